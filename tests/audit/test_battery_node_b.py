"""A shard of the attack battery (see :mod:`_battery`): the TypeScript task (JavaScript's is
test_battery_node.py). No attack may earn a reward."""

from __future__ import annotations

from _battery import _TS, shard

globals().update(shard((_TS,)))
