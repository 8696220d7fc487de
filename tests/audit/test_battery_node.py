"""A shard of the attack battery (see :mod:`_battery`): the JavaScript task (TypeScript's is
test_battery_node_b.py). No attack may earn a reward."""

from __future__ import annotations

from _battery import _JS, shard

globals().update(shard((_JS,)))
