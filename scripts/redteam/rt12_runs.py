"""Round thirteen's attacks run through :func:`patchbench.run` (the audit's flow, one verdict each), printing
the controls and decoys each run planted. Usage: ``python scripts/redteam/rt12_runs.py [--times N] [ATTACK
...]`` (default: every ``rt12-*`` entry of the catalogue, once); exits 1 when any run is rewarded."""

from __future__ import annotations

import sys

import rt7_runs  # the same runner (this directory is on sys.path when run as a script)

if __name__ == "__main__":
    sys.exit(rt7_runs.main(sys.argv[1:], prefix="rt12-"))
