"""Overhead of ``patchbench.run()`` over the bare test command, measured side by side.

A synthetic task with a ~0.3 s pytest suite (CPU work, no sleeps) is run N times through ``run()``
(bwrap sandbox, cached environment, workspace materialised, candidate applied, tests injected, JUnit parsed,
graded) and N times as the bare command (the same interpreter and environment, ``python -m pytest`` in a
ready directory, no sandbox), alternating so that machine noise hits both alike. Reported: medians, the
fixed overhead (median difference) and the ratio of medians.

    python benchmarks/run_overhead.py [--repeat 15]

Three harness variants are measured in the same loop: ``bwrap`` (cgroup v1 limits where writable, the
default), ``bwrap-rlimits`` (the same sandbox forced onto rlimits) and ``none`` (no sandbox), so the cost of
each layer shows.

Writes benchmarks/results/run_overhead.json and prints a summary.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import patchbench as pb
from patchbench.envs import env_for
from patchbench.sandbox import BwrapSandbox, ProcessSandbox, Sandbox
from patchbench.workspace import materialise

N_TESTS = 30
WORK = 120_000  # loop iterations per test: ~10 ms each on this machine, ~0.3 s for the suite

TEST_FILE = f"""
import pytest
from lib import work


@pytest.mark.parametrize("i", range({N_TESTS}))
def test_work(i):
    assert work({WORK}) > 0
"""
LIB = "def work(n):\n    s = 0\n    for i in range(n):\n        s += i * i % 7\n    return s + 1\n"


def make_task() -> pb.Task:
    return pb.Task(
        id="bench-overhead",
        workspace=(pb.FileEntry(path="lib.py", content=LIB),),
        hidden_tests=(pb.FileEntry(path="tests/test_work.py", content=TEST_FILE),),
        test=pb.TestSpec(commands=(pb.TestCommand(argv=("python", "-m", "pytest", "-q", "tests")),)),
        pass_to_pass=tuple(f"tests/test_work.py::test_work[{i}]" for i in range(N_TESTS)),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "run_overhead.json")
    args = ap.parse_args()

    task = make_task()
    env = env_for("python").prepare(task)
    bare_dir = Path(tempfile.mkdtemp(prefix="pb-bench-bare-"))
    materialise(task.workspace + task.hidden_tests, bare_dir)
    bare_env = {"PATH": f"{env.path[0]}:/usr/bin:/bin", **env.env, "HOME": str(bare_dir)}
    bare_argv = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]

    def bare() -> float:
        t = time.perf_counter()
        r = subprocess.run(bare_argv, cwd=bare_dir, env=bare_env, capture_output=True, check=False)
        dt = time.perf_counter() - t
        assert r.returncode == 0, r.stdout[-500:]
        return dt

    sandboxes: dict[str, Sandbox] = {
        "bwrap": BwrapSandbox(),
        "bwrap-rlimits": BwrapSandbox(use_cgroups=False),
        "none": ProcessSandbox(),
    }

    def harness(sb: Sandbox) -> float:
        t = time.perf_counter()
        v = pb.run(task, pb.Candidate.empty(), sandbox=sb)
        dt = time.perf_counter() - t
        assert v.status is pb.Status.RESOLVED, v.reason
        return dt

    bare()  # warm the page cache; workspace bytecode is never cached, by design
    for sb in sandboxes.values():
        harness(sb)
    b: list[float] = []
    h: dict[str, list[float]] = {name: [] for name in sandboxes}
    for _ in range(args.repeat):
        b.append(bare())
        for name, sb in sandboxes.items():
            h[name].append(harness(sb))
    mb = statistics.median(b)
    variants = {}
    for name, xs in h.items():
        mh = statistics.median(xs)
        variants[name] = {
            "run_median_s": round(mh, 4),
            "fixed_overhead_ms": round((mh - mb) * 1000, 1),
            "ratio": round(mh / mb, 3),
            "run_s": [round(x, 4) for x in xs],
        }
    result = {
        "benchmark": "run_overhead",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "platform": platform.platform(),
        },
        "repeat": args.repeat,
        "suite_tests": N_TESTS,
        "bare_median_s": round(mb, 4),
        "bare_s": [round(x, 4) for x in b],
        "variants": variants,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"bare command median {mb * 1000:.1f} ms over {args.repeat} runs")
    for name, v in variants.items():
        print(
            f"  run() with sandbox {name:<14} median {v['run_median_s'] * 1000:.1f} ms, "
            f"fixed overhead {v['fixed_overhead_ms']} ms, ratio {v['ratio']}"
        )


if __name__ == "__main__":
    main()
