"""A shard of the attack battery (see :mod:`_battery`): the JavaScript, TypeScript and Go tasks. No attack
may earn a reward.
"""

from __future__ import annotations

from _battery import _GO, _JS, _TS, shard

globals().update(shard((_JS, _TS, _GO)))
