"""A shard of the attack battery (see :mod:`_battery`): the Go and Rust tasks. No attack may earn a
reward."""

from __future__ import annotations

from _battery import _GO, _RS, shard

globals().update(shard((_GO, _RS)))
