"""Round eight's attacks run through :func:`patchbench.run` (the audit's flow, one verdict each), printing
the controls and decoys each run planted. Usage: ``python scripts/redteam/rt7_runs.py [--times N] [ATTACK
...]`` (default: every ``rt7-*`` entry of the catalogue, once); exits 1 when any run is rewarded."""

from __future__ import annotations

import sys

import patchbench as pb
from patchbench.audit.attacks import CATALOGUE


def main(argv: list[str], prefix: str = "rt7-") -> int:
    """Run the named attacks (default: every entry whose name starts with ``prefix``)."""
    times = 1
    if argv[:1] == ["--times"]:
        times, argv = int(argv[1]), argv[2:]
    names = argv or [n for n in CATALOGUE if n.startswith(prefix)]
    tasks = pb.load("builtin").tasks
    rewarded = 0
    for name in names:
        for task in tasks:
            candidate = CATALOGUE[name].build(task)
            if candidate is None:
                continue
            for _ in range(times):
                v = pb.run(task, candidate)
                rewarded += v.reward > 0
                print(
                    f"{name} {task.id}: {v.status.value} reward={v.reward} controls={v.controls} "
                    f"decoys={v.decoys} {v.reason}"
                )
    return 1 if rewarded else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
