"""Run ``patchbench`` with round twenty-five's real-row attacks (``rt24-*``) and round twenty-three's
(``rt22-*``) added to the catalogue.

Usage (the same arguments as ``patchbench``)::

    python scripts/redteam/rt24_real_rows.py audit /tmp/rw/repos/rows --repos /tmp/rw/repos/mirrors \
        --no-probes --task realworld-ts-content-type-htab \
        --attack rt24-ts-vitest-fails-for-same-check-copies --time-limit 120 -j 1 --report-dir /tmp/rt24-out

Those attacks apply to no built-in task, so they are kept out of the catalogue (see
``patchbench.audit.attacks.redteam24.REAL_ROW_ENTRIES``).
"""

from __future__ import annotations

from patchbench.audit.attacks import redteam22, redteam24
from patchbench.cli import main

if __name__ == "__main__":
    redteam22.register_real_rows()
    redteam24.register_real_rows()
    main()
