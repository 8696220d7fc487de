"""A shard of the attack battery (see :mod:`_battery`): the Python TAP and SQL tasks, and the attacks that
apply to none of the battery's tasks on the built-in tasks they apply to. No attack may earn a reward.
"""

from __future__ import annotations

from _battery import _SQL, _TAP, shard

globals().update(shard((_TAP, _SQL), extra=True))
