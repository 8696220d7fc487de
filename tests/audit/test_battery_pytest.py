"""A shard of the attack battery (see :mod:`_battery`): the pytest task (the catalogue's largest share),
its first half of the attacks (the other in test_battery_pytest_b.py). No attack may earn a reward.
"""

from __future__ import annotations

from _battery import _PY, shard

globals().update(shard((_PY,), part=(0, 2)))
