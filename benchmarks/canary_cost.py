"""What the canary costs: ``run(task, gold)`` with every defence on, against the same run with the canary
switched off, side by side, per language; and the bare test command for scale.

    python benchmarks/canary_cost.py [--repeat 9] [--lang go ...]

For one built-in HardBug task per language and runner (Python: pytest and TAP) the three are run
in turn ``--repeat`` times (bare, run() with the canary, run() without), so machine noise hits them alike.
Reports medians, the canary's added time, and the run()/bare ratio with and without it. Writes
benchmarks/results/canary_cost.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from _bare import BareDir

import patchbench as pb
from patchbench.harness import Defences


def _timed_run(task: pb.Task, defences: Defences) -> float:
    t = time.perf_counter()
    v = pb.run(task, pb.Candidate.gold(), defences=defences)
    elapsed = time.perf_counter() - t
    assert v.status is pb.Status.RESOLVED, (task.id, v.status, v.reason)
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--lang", action="append", default=[])
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "canary_cost.json")
    args = ap.parse_args()
    seen: set[tuple[str, str | None]] = set()
    rows = []
    on, off = Defences(), Defences(canary=False)
    for task in pb.load("builtin:hardbug").tasks:
        if args.lang and task.language not in args.lang:
            continue
        v = pb.run(task, pb.Candidate.gold())  # warm the caches (and any calibration)
        if (task.language, v.runner) in seen:
            continue
        seen.add((task.language, v.runner))
        bare_dir = BareDir(task, gold=True)
        bare_dir.run()
        b, with_c, without_c = [], [], []
        for _ in range(args.repeat):
            b.append(bare_dir.run())
            with_c.append(_timed_run(task, on))
            without_c.append(_timed_run(task, off))
        bare_dir.close()
        mb, mw, mo = statistics.median(b), statistics.median(with_c), statistics.median(without_c)
        rows.append(
            {
                "language": task.language,
                "task": task.id,
                "runner": v.runner,
                "canary_planted": v.canary is not None,
                "bare_s": round(mb, 4),
                "run_with_canary_s": round(mw, 4),
                "run_without_canary_s": round(mo, 4),
                "canary_cost_ms": round((mw - mo) * 1000, 1),
                "ratio_with_canary": round(mw / mb, 3),
                "ratio_without_canary": round(mo / mb, 3),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"repeat": args.repeat, "rows": rows}, indent=2) + "\n")
    head = ("language", "runner", "bare", "canary", "none", "cost ms", "ratio", "r/no")
    print("{:<11} {:<10} {:>8} {:>8} {:>8} {:>8} {:>6} {:>6}".format(*head))
    for r in rows:
        print(
            f"{r['language']:<11} {r['runner']:<10} {r['bare_s']:>8.3f} {r['run_with_canary_s']:>8.3f} "
            f"{r['run_without_canary_s']:>8.3f} {r['canary_cost_ms']:>8.1f} "
            f"{r['ratio_with_canary']:>6.2f} {r['ratio_without_canary']:>6.2f}"
        )


if __name__ == "__main__":
    main()
