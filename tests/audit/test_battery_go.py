"""A shard of the attack battery (see :mod:`_battery`): the Go task's first half of the attacks (the second
is test_battery_go_b.py: the Go shard alone took 284 s of a 15.5-minute suite). No attack may earn a
reward."""

from __future__ import annotations

from _battery import _GO, shard

globals().update(shard((_GO,), part=(0, 2)))
