"""Run ``patchbench`` with round twenty-three's real-row attacks (``rt22-*``) added to the catalogue.

Usage (the same arguments as ``patchbench``)::

    python scripts/redteam/rt22_real_rows.py audit /tmp/rw/repos/rows --repos /tmp/rw/repos/mirrors \
        --no-probes --attack rt22-py-loguru-rotation-split-by-the-callers-expected-files \
        --time-limit 120 -j 1 --report-dir /tmp/rt22-real

Those attacks apply to no built-in task, so they are kept out of the catalogue (see
``patchbench.audit.attacks.redteam22.REAL_ROW_ENTRIES``).
"""

from __future__ import annotations

from patchbench.audit.attacks.redteam22 import register_real_rows
from patchbench.cli import main

if __name__ == "__main__":
    register_real_rows()
    main()
