"""A shard of the attack battery (see :mod:`_battery`): the Go task. No attack may earn a reward."""

from __future__ import annotations

from _battery import _GO, shard

globals().update(shard((_GO,)))
