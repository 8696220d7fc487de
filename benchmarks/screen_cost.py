"""What the static screen costs: the screen alone, as ``run()`` calls it, beside ``run(task, gold)``.

    python benchmarks/screen_cost.py [--repeat 9] [--screen-repeat 200]

For every built-in task: ``run(task, gold)`` ``--repeat`` times (it includes the screen), and the
screen's own step — read what the gold patch changed from a workspace it was applied to, as the harness
does (every changed file but data and documents: :func:`patchbench.workspace.read_changed`), and screen
it (:func:`patchbench.screen.screen`) — ``--screen-repeat`` times, and the policy's step
(:func:`patchbench.screen.enforce` under ``reject``, the default, on the gold verdict given a finding,
against the codes gold shows) as often. The first screen of each language in a fresh process also pays
for loading the grammar and compiling its queries: reported apart (``cold_ms``). Reports medians and the
screen's share of the run; writes benchmarks/results/screen_cost.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import patchbench as pb
from patchbench.screen import DATA_EXTENSIONS, MAX_BYTES, SuspiciousPolicy, enforce, screen
from patchbench.verdict import Finding
from patchbench.workspace import Baseline, apply_candidate, read_changed


def _screen_step(task: pb.Task, root: Path, base: Baseline, changed: set[str]) -> float:
    t = time.perf_counter()
    screen(task, read_changed(changed, root, base, limit=MAX_BYTES, skip=DATA_EXTENSIONS))
    return time.perf_counter() - t


def _policy_step(v: pb.Verdict, exempt: frozenset[str]) -> float:
    t = time.perf_counter()
    enforce(v, SuspiciousPolicy.REJECT, exempt=exempt)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--screen-repeat", type=int, default=200)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "screen_cost.json")
    args = ap.parse_args()
    rows = []
    for task in pb.load("builtin").tasks:
        # A repository task's gold patch touches its shown files: screen it over those.
        files_task = (
            task
            if task.repository is None
            else task.model_copy(update={"repository": None, "workspace": task.context_files})
        )
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            base = Baseline(files_task.workspace)
            base.materialise(root)
            applied = apply_candidate(files_task, pb.Candidate.gold(), root, base)
            cold = _screen_step(files_task, root, base, applied.changed)
            warm = [_screen_step(files_task, root, base, applied.changed) for _ in range(args.screen_repeat)]
        v = pb.run(task, pb.Candidate.gold())  # warm the environment cache and any calibration
        assert v.status is pb.Status.RESOLVED, (task.id, v.reason)
        runs = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            v = pb.run(task, pb.Candidate.gold())
            runs.append(time.perf_counter() - t)
            assert v.status is pb.Status.RESOLVED and v.suspicious == (), (task.id, v.reason, v.suspicious)
        # the policy's step on a resolved verdict with a finding (the case that does the most work)
        flagged = v.model_copy(
            update={"suspicious": (Finding(code="report-write", path="a.py", line=1, evidence="x"),)}
        )
        policy = [_policy_step(flagged, frozenset({"environment-read"})) for _ in range(args.screen_repeat)]
        screen_ms, run_s = statistics.median(warm) * 1000, statistics.median(runs)
        rows.append(
            {
                "task": task.id,
                "language": task.language,
                "changed_files": len(applied.changed),
                "findings": len(v.suspicious),
                "cold_ms": round(cold * 1000, 2),
                "screen_ms": round(screen_ms, 3),
                "policy_us": round(statistics.median(policy) * 1e6, 2),
                "run_s": round(run_s, 4),
                "share_pct": round(100 * screen_ms / 1000 / run_s, 3),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    out = {"repeat": args.repeat, "screen_repeat": args.screen_repeat, "rows": rows}
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(f"{'task':<40} {'lang':<11} {'cold ms':>8} {'screen ms':>10} {'run s':>7} {'share %':>8}")
    for r in rows:
        print(
            f"{r['task']:<40} {r['language']:<11} {r['cold_ms']:>8.2f} {r['screen_ms']:>10.3f} "
            f"{r['run_s']:>7.3f} {r['share_pct']:>8.3f}"
        )
    worst = max(r["screen_ms"] for r in rows)
    middle = statistics.median(r["screen_ms"] for r in rows)
    print(f"screen: median of medians {middle:.3f} ms, worst {worst:.3f} ms")
    print(f"policy (enforce under reject): worst median {max(r['policy_us'] for r in rows):.2f} us")


if __name__ == "__main__":
    main()
