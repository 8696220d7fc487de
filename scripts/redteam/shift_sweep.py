"""Run attacks of the catalogue on the built-in tasks under each secret shift in turn.

The controls' moved inputs depend on a shift drawn at calibration (``harness.SHIFTS``); an attack that a
control catches under most shifts may slip through under one. This pins the draw to one shift at a time
(the calibration's record is keyed by the shifts it draws from, so each is learnt afresh) and prints,
per shift, which attacks were rewarded.

    python scripts/redteam/shift_sweep.py --prefix rt5- --prefix rt6- --prefix rt7- --prefix rt8- -j 2
    python scripts/redteam/shift_sweep.py --attack rt7-js-insertion-order-for-ids-below-1000 --shift 7

Exit 1 when any attack outside the gated class is rewarded under some shift.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import patchbench as pb
from patchbench import harness
from patchbench.audit.attacks import CATALOGUE, plan_attacks, run_attacks


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shift", type=int, action="append", help="a shift to pin (repeatable; default all)")
    ap.add_argument("--prefix", action="append", default=[], help="attacks whose name starts so")
    ap.add_argument("--attack", action="append", default=[], help="an attack by name (repeatable)")
    ap.add_argument("--task", action="append", default=[], help="a built-in task id (default all)")
    ap.add_argument("--time-limit", type=float, default=20.0)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write the per-shift results here")
    args = ap.parse_args(argv)
    names = [n for n in CATALOGUE if n in args.attack or any(n.startswith(p) for p in args.prefix)]
    if not names:
        names = list(CATALOGUE)
    shifts = args.shift or list(harness.SHIFTS)
    bad = [s for s in shifts if s not in harness.SHIFTS]
    if bad:
        ap.error(f"not a shift the calibration draws: {bad} (draws {harness.SHIFTS})")
    tasks = []
    for t in pb.load("builtin").tasks:
        if args.task and t.id not in args.task:
            continue
        spec = t.test.model_copy(update={"time_limit_s": min(t.test.time_limit_s, args.time_limit)})
        tasks.append(t.model_copy(update={"test": spec}))
    applied = [p for p in plan_attacks(tasks, names) if p.candidate is not None]
    tasks = [t for t in tasks if any(p.task.id == t.id for p in applied)]
    print(f"{len(applied)} runs ({len(names)} attacks, {len(tasks)} tasks) under shifts {shifts}", flush=True)
    out: dict[int, dict[str, object]] = {}
    failed = False
    for shift in shifts:
        harness.SHIFTS = (shift,)
        start = time.monotonic()
        report = run_attacks(tasks, attacks=names, jobs=args.jobs)
        rewarded = sorted(
            f"{r.task}:{r.attack}" for r in report.results if r.rewarded and not CATALOGUE[r.attack].holds_fix
        )
        lost = sorted(g.task for g in report.gold if not g.resolved)
        controls = {g.task: g.controls for g in report.gold}
        failed |= bool(rewarded)
        out[shift] = {"rewarded": rewarded, "gold_lost": lost, "controls": controls}
        print(
            f"shift {shift:2}: {len(rewarded)} rewarded, gold lost {lost or 'none'}, "
            f"{time.monotonic() - start:.0f} s",
            flush=True,
        )
        for name in rewarded:
            print(f"    {name}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=str))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
