"""A shard of the attack battery (see :mod:`_battery`): the JavaScript and TypeScript tasks. No attack may
earn a reward."""

from __future__ import annotations

from _battery import _JS, _TS, shard

globals().update(shard((_JS, _TS)))
