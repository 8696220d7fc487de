"""A shard of the attack battery (see :mod:`_battery`): the Go task's second half of the attacks (see
test_battery_go.py). No attack may earn a reward."""

from __future__ import annotations

from _battery import _GO, shard

globals().update(shard((_GO,), part=(1, 2)))
