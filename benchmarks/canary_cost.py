"""What the canary costs: ``run(task, gold)`` with every defence on, against the same run with the canary
switched off, side by side, per language; and the bare test command for scale.

    python benchmarks/canary_cost.py [--repeat 9] [--lang go ...]

For one built-in HardBug task per language and runner (Python: pytest and TAP) the three are run
in turn ``--repeat`` times (bare, run() with the canary, run() without), so machine noise hits them alike.
Reports medians, the canary's added time, and the run()/bare ratio with and without it. Writes
benchmarks/results/canary_cost.json.

    python benchmarks/canary_cost.py --layers [--repeat 9]

measures the integrity layers of issue 12 one by one instead (whole runs on a shared machine vary by far
more than 10 ms): on the host, per built-in task, the configuration guard on the gold patch, the
environment's pytest plugins (first read, then cached), the decoys' planning (Python: ast; node, Go,
Rust, Java: tree-sitter; the first call apart) and the stream check; in
the test process, pytest on a task's hidden tests without the plugin, with the plugin as it was (no
workspace, stream or decoys), and with every layer. Writes benchmarks/results/integrity_layers.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from functools import partial
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


def _median_ms(fn: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return round(statistics.median(times) * 1000, 3)


def _pytest_ms(task: pb.Task, mode: str, repeat: int) -> float:
    """pytest (no sandbox) on the task's gold workspace and hidden tests: ``none`` without the plugin,
    ``plugin`` with it alone, ``layers`` with the integrity stream, audit hook and decoys too."""
    import os
    import subprocess
    import sys
    import tempfile

    from patchbench.canary import PYTEST_PLUGIN, PYTEST_PLUGIN_MODULE, plan_canary
    from patchbench.workspace import Baseline, apply_candidate, inject_tests

    with tempfile.TemporaryDirectory() as tmp:
        ws, h = Path(tmp) / "ws", Path(tmp) / "h"
        Baseline(task.workspace).materialise(ws)
        apply_candidate(task, pb.Candidate.gold(), ws)
        inject_tests(task.hidden_tests, ws)
        h.mkdir()
        (h / f"{PYTEST_PLUGIN_MODULE}.py").write_text(PYTEST_PLUGIN)
        c = plan_canary("pytest", task, task.hidden_tests, "bench", workspace_dst=str(ws), harness_dst=str(h),
                        reports_dst=tmp)  # fmt: skip
        assert c is not None
        env = {**os.environ, "PYTHONPATH": f"{h}:{ws}"}
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={tmp}/j.xml"]
        if mode != "none":
            for rel, text in c.files.items():
                (ws / rel).write_text(text)
            keep = ("PATCHBENCH_CANARY_NAME", "PATCHBENCH_CANARY_FILE")
            extra = c.env if mode == "layers" else {k: v for k, v in c.env.items() if k in keep}
            env.update({k: v for k, v in extra.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")})
            argv += ["-p", PYTEST_PLUGIN_MODULE]
        return _median_ms(
            lambda: subprocess.run([*argv, "tests"], cwd=ws, env=env, capture_output=True, check=False),
            repeat,
        )


#: Run inside the test process: pytest with the plugin, its checks timed from the inside.
_INSIDE = """
import json, sys, time
import _patchbench_canary as plugin
spent = {"compare_s": 0.0, "compares": 0, "emit_s": 0.0, "emits": 0}
def timed(fn, key):
    def wrapper(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            spent[key + "_s"] += time.perf_counter() - t
            spent[key + "s"] += 1
    return wrapper
plugin._compare = timed(plugin._compare, "compare")
plugin._emit = timed(plugin._emit, "emit")
import pytest
t = time.perf_counter()
pytest.main(["-q", "-p", "no:cacheprovider", "-p", "_patchbench_canary", sys.argv[1], "tests"])
spent["session_s"] = time.perf_counter() - t
print("PBJSON" + json.dumps(spent))
"""


def _inside_ms(task: pb.Task) -> dict[str, float]:
    """The plugin's per-report checks and stream writes, timed inside one pytest session (no sandbox)."""
    import os
    import subprocess
    import sys
    import tempfile

    from patchbench.canary import PYTEST_PLUGIN, PYTEST_PLUGIN_MODULE, plan_canary
    from patchbench.workspace import Baseline, apply_candidate, inject_tests

    with tempfile.TemporaryDirectory() as tmp:
        ws, h = Path(tmp) / "ws", Path(tmp) / "h"
        Baseline(task.workspace).materialise(ws)
        apply_candidate(task, pb.Candidate.gold(), ws)
        inject_tests(task.hidden_tests, ws)
        h.mkdir()
        (h / f"{PYTEST_PLUGIN_MODULE}.py").write_text(PYTEST_PLUGIN)
        c = plan_canary("pytest", task, task.hidden_tests, "bench", workspace_dst=str(ws), harness_dst=str(h),
                        reports_dst=tmp)  # fmt: skip
        assert c is not None
        for rel, text in c.files.items():
            (ws / rel).write_text(text)
        env = {**os.environ, **{k: v for k, v in c.env.items() if k != "PYTEST_ADDOPTS"}}
        env["PYTHONPATH"] = f"{h}:{ws}"
        r = subprocess.run(
            [sys.executable, "-c", _INSIDE, f"--junitxml={tmp}/j.xml"], cwd=ws, env=env, capture_output=True,
            text=True, check=False,
        )  # fmt: skip
        line = next(x for x in r.stdout.splitlines() if x.startswith("PBJSON"))
        spent = json.loads(line[len("PBJSON") :])
        return {
            "checks_ms": round(spent["compare_s"] * 1000, 2),
            "checks": spent["compares"],
            "stream_writes_ms": round(spent["emit_s"] * 1000, 2),
            "stream_writes": spent["emits"],
            "session_ms": round(spent["session_s"] * 1000, 1),
        }


def layers(repeat: int, out: Path) -> None:
    """The integrity layers' costs (see the module docstring)."""
    import hashlib
    import sys

    from patchbench.canary import env_pytest_plugins, plan_decoys, stream_problems
    from patchbench.canary._decoys_native import plan_native_decoys
    from patchbench.canary._python import _entry_point_modules
    from patchbench.workspace import Baseline, apply_candidate, config_violations

    rows = []
    venv = Path(sys.prefix)
    _entry_point_modules.cache_clear()
    t = time.perf_counter()
    env_pytest_plugins(venv)
    first = round((time.perf_counter() - t) * 1000, 3)
    cached = _median_ms(lambda: env_pytest_plugins(venv), repeat)
    print(json.dumps({"env_pytest_plugins_first_ms": first, "cached_ms": cached}), flush=True)
    for task in pb.load("builtin").tasks:
        import tempfile

        if not task.workspace:
            continue  # a repository task: its checkout is not materialised here

        with tempfile.TemporaryDirectory() as tmp:
            ws = Path(tmp) / "ws"
            Baseline(task.workspace).materialise(ws)
            applied = apply_candidate(task, pb.Candidate.gold(), ws)
            guard = _median_ms(partial(config_violations, task, applied.changed, ws), repeat)
        # Python: the ast planner; node, Go, Rust, Java: the tree-sitter one (its first call also loads the
        # grammar, once per process)
        native = task.language in ("go", "rust", "java", "javascript", "typescript")
        plan = (
            partial(plan_native_decoys, task.language, task, task.hidden_tests)
            if native
            else partial(plan_decoys, task, task.hidden_tests)
        )
        t = time.perf_counter()
        planted = plan()
        decoys_first = round((time.perf_counter() - t) * 1000, 3)
        decoys = _median_ms(plan, repeat)
        n = 200  # a stream for a 200-test run: three phases per test, then the seal
        xml = b"<testsuites>" + b"<testcase/>" * n + b"</testsuites>"
        lines = [
            json.dumps({"t": "report", "id": f"t.py::test_{i}", "when": w, "outcome": "passed"})
            for i in range(n)
            for w in ("setup", "call", "teardown")
        ]
        lines.append(json.dumps({"t": "end", "xml": hashlib.sha256(xml).hexdigest()}))
        stream = "\n".join(lines).encode()
        reported = [(f"t.py::test_{i}", True) for i in range(n)]
        check = _median_ms(partial(stream_problems, stream, xml, reported), repeat)
        row: dict[str, object] = {
            "task": task.id,
            "language": task.language,
            "guard_ms": guard,
            "decoys_ms": decoys,
            "decoys_first_ms": decoys_first,
            "decoys_planted": len(planted.names),
            "stream_check_200_tests_ms": check,
        }
        if task.language == "python" and "pytest" in " ".join(c.display() for c in task.test.commands):
            # interleaved, one run each per round, so load on the machine hits the three alike
            runs: dict[str, list[float]] = {"none": [], "plugin": [], "layers": []}
            for _ in range(repeat):
                for mode, times in runs.items():
                    times.append(_pytest_ms(task, mode, 1))
            row["pytest_no_plugin_ms"] = round(statistics.median(runs["none"]), 1)
            row["pytest_plugin_before_ms"] = round(statistics.median(runs["plugin"]), 1)
            row["pytest_all_layers_ms"] = round(statistics.median(runs["layers"]), 1)
            row["inside_pytest"] = _inside_ms(task)
        rows.append(row)
        print(json.dumps(row), flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps({"repeat": repeat, "env_pytest_plugins_ms": [first, cached], "rows": rows}, indent=2)
        + "\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--layers", action="store_true", help="measure the integrity layers one by one")
    ap.add_argument("--lang", action="append", default=[])
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "canary_cost.json")
    args = ap.parse_args()
    if args.layers:
        layers(args.repeat, Path(__file__).parent / "results" / "integrity_layers.json")
        return
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
