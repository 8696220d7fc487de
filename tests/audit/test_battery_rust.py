"""A shard of the attack battery (see :mod:`_battery`): the Rust task. No attack may earn a reward."""

from __future__ import annotations

from _battery import _RS, shard

globals().update(shard((_RS,)))
