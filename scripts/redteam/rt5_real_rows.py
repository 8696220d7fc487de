"""Run ``patchbench`` with round six's real-row attacks added to the catalogue.

Usage (the same arguments as ``patchbench``)::

    python scripts/redteam/rt5_real_rows.py audit /work/wt/i11a/realworld/repos/rows \
        --repos /work/wt/i11a/realworld/repos/mirrors --no-probes \
        --attack rt5-java-equality-for-listed-versions --attack rt5-py-refuse-the-listed-size-only \
        --time-limit 60 -j 1

Those two attacks apply to no built-in task, so they are kept out of the catalogue (see
``patchbench.audit.attacks.redteam5.REAL_ROW_ENTRIES``).
"""

from __future__ import annotations

from patchbench.audit.attacks.redteam5 import register_real_rows
from patchbench.cli import main

if __name__ == "__main__":
    register_real_rows()
    main()
