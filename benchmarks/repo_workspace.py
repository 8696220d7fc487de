"""Preparing a run's workspace from a repository: cold (mirror → cached checkout) vs warm (per-run copy).

    python benchmarks/repo_workspace.py [--files 2000] [--repeat 15]

Builds a synthetic repository of ~2,000 files (Python-package-like sizes, 3 commits) and a bare mirror of
it, then measures: cold = finding the commit in the mirror and writing the cached checkout (git archive,
extraction, fresh one-commit history); warm = what every run pays, copying the cached checkout into the
run's own workspace directory. Writes benchmarks/results/repo_workspace.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from patchbench import Repository
from patchbench.checkouts import RepoCache
from patchbench.workspace import copy_tree

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@b",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@b",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True, text=True).stdout


def make_repo(root: Path, n: int) -> str:
    rng = random.Random(7)
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    for i in range(n):
        p = root / f"pkg{i % 40}" / f"sub{i % 7}" / f"mod_{i}.py"
        p.parent.mkdir(parents=True, exist_ok=True)
        lines = rng.randint(20, 400)
        p.write_text("".join(f"def f_{i}_{j}(x):\n    return x + {j}\n" for j in range(lines // 2)))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    (root / "pkg0" / "sub0" / "mod_0.py").write_text("x = 1\n")
    git(root, "commit", "-q", "-am", "two")
    base = git(root, "rev-parse", "HEAD").strip()
    (root / "pkg0" / "sub0" / "mod_0.py").write_text("x = 2\n")
    git(root, "commit", "-q", "-am", "three")
    return base


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "repo_workspace.json")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="pb-bench-repo-"))
    try:
        base = make_repo(tmp / "origin", args.files)
        (tmp / "repos" / "bench").mkdir(parents=True)
        subprocess.run(
            ["git", "clone", "-q", "--mirror", str(tmp / "origin"), str(tmp / "repos/bench/big.git")],
            check=True,
            env=ENV,
        )
        size = sum(f.stat().st_size for f in (tmp / "origin").rglob("*.py"))
        repo = Repository(repo="bench/big", base_commit=base)
        cold: list[float] = []
        for i in range(3):
            cache = RepoCache(tmp / f"cache{i}", [tmp / "repos"], network=False)
            t = time.perf_counter()
            co = cache.checkout(repo)
            cold.append(time.perf_counter() - t)
        warm: list[float] = []
        for i in range(args.repeat):
            dest = tmp / "runs" / str(i) / "workspace"
            t = time.perf_counter()
            copy_tree(co.path, dest)
            warm.append(time.perf_counter() - t)
            shutil.rmtree(dest.parent)
        files = sum(1 for _ in co.path.rglob("*") if _.is_file())
        result = {
            "benchmark": "repo_workspace",
            "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "repo_files": args.files,
            "checkout_files_incl_git": files,
            "source_bytes": size,
            "cold_checkout_median_s": round(statistics.median(cold), 4),
            "warm_copy_median_s": round(statistics.median(warm), 4),
            "cold_s": [round(x, 4) for x in cold],
            "warm_s": [round(x, 4) for x in warm],
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")
        print(
            f"{args.files}-file repository ({size / 1e6:.1f} MB of source): cold checkout "
            f"{result['cold_checkout_median_s'] * 1000:.0f} ms, warm per-run copy "
            f"{result['warm_copy_median_s'] * 1000:.0f} ms (median of {args.repeat})"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
