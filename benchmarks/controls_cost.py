"""What the control tests cost: the one-off calibration per task, and the copies every run executes.

    python benchmarks/controls_cost.py [--repeat 5] [--task ID ...]

For each built-in task (or those named): the calibration of its control tests (``harness._controls``: a run
of the gold patch with every control candidate planted, then the buggy code with them for every runner but
Python TAP), timed with its
cached record removed, next to ``run(task, gold)`` with every defence on and with the controls switched off
(``Defences(controls=False)``: the canary and decoys stay), in turn, ``--repeat`` times, medians. The
difference is what the planted controls (up to two copies and 24 variants on moved inputs or structure;
SQL: five cases) add to every run. The environment cache is
the default one (built on first use, before timing). Writes benchmarks/results/controls_cost.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import patchbench as pb
from patchbench.envs import default_cache_dir
from patchbench.harness import Defences, _controls
from patchbench.runners import choose_runner
from patchbench.sandbox import get_sandbox

OUT = Path(__file__).parent / "results" / "controls_cost.json"


def _timed(task: pb.Task, defences: Defences) -> tuple[float, int]:
    t = time.perf_counter()
    v = pb.run(task, pb.Candidate.gold(), defences=defences)
    elapsed = time.perf_counter() - t
    assert v.status is pb.Status.RESOLVED, (task.id, v.status, v.reason)
    return elapsed, v.controls


def _calibration(task: pb.Task) -> float:
    records = default_cache_dir() / "canary"
    for path in records.glob("controls-*.json"):
        try:
            if json.loads(path.read_text()).get("task") == task.id:
                path.unlink()
        except (OSError, ValueError):
            continue
    t = time.perf_counter()
    record = _controls(task, choose_runner(task.test).name, get_sandbox("bwrap"), None, (), True)
    elapsed = time.perf_counter() - t
    assert record is not None, task.id
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--task", action="append", default=[])
    args = parser.parse_args()
    tasks = [t for t in pb.load("builtin").tasks if not args.task or t.id in args.task]
    rows = []
    for task in tasks:
        _timed(task, Defences())  # environment and records in place
        calibration = _calibration(task)
        on: list[float] = []
        off: list[float] = []
        planted = 0
        for _ in range(args.repeat):
            seconds, planted = _timed(task, Defences())
            on.append(seconds)
            off.append(_timed(task, Defences(controls=False))[0])
        row = {
            "task": task.id,
            "language": task.language,
            "controls_planted": planted,
            "calibration_s": round(calibration, 3),
            "run_s": round(statistics.median(on), 4),
            "run_without_controls_s": round(statistics.median(off), 4),
            "controls_cost_ms": round((statistics.median(on) - statistics.median(off)) * 1000, 1),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"{'task':38} {'ctl':>3} {'calib s':>8} {'run s':>7} {'no ctl':>7} {'cost ms':>8}")
    for r in rows:
        print(
            f"{r['task'][:38]:38} {r['controls_planted']:>3} {r['calibration_s']:>8.2f} {r['run_s']:>7.3f} "
            f"{r['run_without_controls_s']:>7.3f} {r['controls_cost_ms']:>8.1f}"
        )


if __name__ == "__main__":
    main()
