"""A shard of the attack battery (see :mod:`_battery`): the Java task's second half of the attacks (see
test_battery_java.py). No attack may earn a reward."""

from __future__ import annotations

from _battery import _JAVA, shard

globals().update(shard((_JAVA,), part=(1, 2)))
