"""Per language: cold vs warm environment preparation, and run() overhead over the bare test command.

    python benchmarks/languages.py [--repeat 7] [--lang go ...]

For each built-in task (one per language): environment preparation into an empty cache (cold) and again
(warm, a cache hit); then the task's test command on the fixed workspace run bare (no sandbox, no harness)
and through ``patchbench.run(task, gold)``, alternating, ``--repeat`` times each; medians and their ratio.
Writes benchmarks/results/languages.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from _bare import BareDir

import patchbench as pb
from patchbench.envs import env_for


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--lang", action="append", default=[])
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "languages.json")
    args = ap.parse_args()
    tasks = [t for t in pb.load("builtin:hardbug").tasks if not args.lang or t.language in args.lang]
    seen: set[str] = set()
    rows = []
    for task in tasks:
        if task.language in seen:
            continue
        seen.add(task.language)
        cold_cache = Path(tempfile.mkdtemp(prefix="pb-bench-cold-"))
        try:
            env = env_for(task.env.language, cold_cache)
            t = time.perf_counter()
            env.prepare(task)
            cold = time.perf_counter() - t
            warm_times = []
            for _ in range(5):
                t = time.perf_counter()
                p = env.prepare(task)
                warm_times.append(time.perf_counter() - t)
                assert p.cache_hit
        finally:
            shutil.rmtree(cold_cache, ignore_errors=True)
        bare_dir = BareDir(task, gold=True)
        bare_dir.run()
        pb.run(task, pb.Candidate.gold())  # warm the default cache
        b, h = [], []
        for _ in range(args.repeat):
            b.append(bare_dir.run())
            t = time.perf_counter()
            v = pb.run(task, pb.Candidate.gold())
            h.append(time.perf_counter() - t)
            assert v.status is pb.Status.RESOLVED, (task.id, v.reason)
        bare_dir.close()
        mb, mh = statistics.median(b), statistics.median(h)
        rows.append(
            {
                "language": task.language,
                "task": task.id,
                "env_cold_s": round(cold, 3),
                "env_warm_ms": round(statistics.median(warm_times) * 1000, 2),
                "bare_median_s": round(mb, 4),
                "run_median_s": round(mh, 4),
                "ratio": round(mh / mb, 3),
                "overhead_ms": round((mh - mb) * 1000, 1),
            }
        )
        r = rows[-1]
        print(
            f"{r['language']:<11} env cold {r['env_cold_s']:>7.2f}s warm {r['env_warm_ms']:>6.2f}ms | bare "
            f"{r['bare_median_s']:.3f}s run() {r['run_median_s']:.3f}s ratio {r['ratio']} "
            f"(+{r['overhead_ms']} ms)"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "benchmark": "languages",
                "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
                "repeat": args.repeat,
                "languages": rows,
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
