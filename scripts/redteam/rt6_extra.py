"""Run ``patchbench`` with round seven's off-battery attack added to the catalogue.

Usage (the same arguments as ``patchbench``)::

    python scripts/redteam/rt6_extra.py audit builtin --no-probes \
        --attack rt6-py-fix-for-small-pools-only --time-limit 20 -j 1

That attack applies only to py-asyncio-pool-overcommit, a built-in task outside the battery of
``tests/audit/test_attacks.py``, so it is kept out of the catalogue (see
``patchbench.audit.attacks.redteam6.EXTRA_ENTRIES``).
"""

from __future__ import annotations

from patchbench.audit.attacks.redteam6 import register_extra
from patchbench.cli import main

if __name__ == "__main__":
    register_extra()
    main()
