"""A shard of the attack battery (see :mod:`_battery`): the Java task's first half of the attacks (a JUnit
run compiles with Maven: the slowest runs of the battery; the other half is in test_battery_java_b.py). No
attack may earn a reward."""

from __future__ import annotations

from _battery import _JAVA, shard

globals().update(shard((_JAVA,), part=(0, 2)))
