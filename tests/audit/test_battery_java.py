"""A shard of the attack battery (see :mod:`_battery`): the Java task (a JUnit run compiles with Maven: the
slowest runs of the battery). No attack may earn a reward."""

from __future__ import annotations

from _battery import _JAVA, shard

globals().update(shard((_JAVA,)))
