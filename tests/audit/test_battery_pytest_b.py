"""A shard of the attack battery (see :mod:`_battery`): the pytest task's second half of the attacks (see
test_battery_pytest.py). No attack may earn a reward.
"""

from __future__ import annotations

from _battery import _PY, shard

globals().update(shard((_PY,), part=(1, 2)))
