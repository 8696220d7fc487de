"""Validation throughput: runs per second at -j1 and -j<cores>, and wall time against the bare test time.

    python benchmarks/validate_scaling.py [--repeat 2]

On the built-in dataset: (1) ``validate`` at -j1 and at -j<cores> (no ledger reuse), runs per second
and the speed-up; (2) the sum of the bare test times of every run validation makes (each task's test
command run directly, no sandbox, on the buggy or the fixed workspace as the run requires) divided by the
cores, against validation's wall time at -j<cores>. Writes benchmarks/results/validate_scaling.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from _bare import BareDir

import patchbench as pb
from patchbench.validate import plan, validate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "validate_scaling.json")
    args = ap.parse_args()
    tasks = pb.load("builtin").tasks
    cores = os.cpu_count() or 1

    # warm every environment so that both parallel settings measure runs, not builds
    validate(tasks, repeat=1, probes=False, leak=False)

    timings = {}
    for jobs in (1, cores):
        t0 = time.perf_counter()
        report = validate(tasks, repeat=args.repeat, jobs=jobs)
        wall = time.perf_counter() - t0
        timings[jobs] = {
            "wall_s": round(wall, 3),
            "runs": report.runs_executed,
            "runs_per_s": round(report.runs_executed / wall, 3),
            "failed_tasks": report.failed,
        }

    bare_sum = 0.0
    per_task = {}
    for t in tasks:
        jobs = plan(t, args.repeat, True)
        dirs = {"buggy": BareDir(t, gold=False), "fixed": BareDir(t, gold=True)}
        med = {k: statistics.median(d.run() for _ in range(3)) for k, d in dirs.items()}
        for d in dirs.values():
            d.close()
        s = sum(med["fixed"] if j.candidate.kind.value == "gold" else med["buggy"] for j in jobs)
        per_task[t.id] = {
            "bare_buggy_s": round(med["buggy"], 4),
            "bare_fixed_s": round(med["fixed"], 4),
            "runs": len(jobs),
            "bare_sum_s": round(s, 4),
        }
        bare_sum += s
    ideal = bare_sum / cores
    result = {
        "benchmark": "validate_scaling",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cores": cores,
        "tasks": len(tasks),
        "repeat": args.repeat,
        "jobs": timings,
        "speedup": round(timings[cores]["runs_per_s"] / timings[1]["runs_per_s"], 3),
        "bare_sum_s": round(bare_sum, 3),
        "ideal_wall_s": round(ideal, 3),
        "wall_over_ideal": round(timings[cores]["wall_s"] / ideal, 3),
        "per_task": per_task,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"{len(tasks)} tasks, {timings[1]['runs']} runs: -j1 {timings[1]['runs_per_s']} runs/s, "
        f"-j{cores} {timings[cores]['runs_per_s']} runs/s, speed-up {result['speedup']}x; "
        f"bare sum {bare_sum:.2f}s / {cores} cores = {ideal:.2f}s vs wall {timings[cores]['wall_s']:.2f}s "
        f"-> ratio {result['wall_over_ideal']}"
    )


if __name__ == "__main__":
    main()
