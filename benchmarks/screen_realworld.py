"""False positives of the static screen on real changes: every non-merge commit of a git repository.

    python benchmarks/screen_realworld.py GIT_DIR [GIT_DIR ...] [--commits 400] [--show 20]

For each of the last ``--commits`` non-merge commits, the files the commit added or modified are split the
way bug-fix datasets split them: test files (by path: ``tests/``, ``test_*.py``, ``*_test.go``,
``src/test/``...) become the task's hidden tests, the rest is the "gold patch", screened with the
parent's version as the original (so only the lines the commit touched count), against a task whose
workspace is the parent's file list. Real human changes are not attacks, so every finding is a false
positive to look at. Prints findings per code and the first ``--show`` findings; writes
benchmarks/results/screen_realworld.json. The repositories themselves are not part of patchbench:
clone any (``git clone --bare``) and pass the git directory.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from collections import Counter
from pathlib import Path

from patchbench import FileEntry, Task, TestCommand, TestSpec
from patchbench.screen import DATA_EXTENSIONS, MAX_BYTES, ChangedFile, is_test_path, language_of, screen


def _git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, check=False)
    return out.stdout.decode("utf-8", errors="replace")


def _show(repo: Path, rev: str, path: str) -> str | None:
    out = subprocess.run(
        ["git", "--git-dir", str(repo), "show", f"{rev}:{path}"], capture_output=True, check=False
    )
    if out.returncode != 0 or len(out.stdout) > MAX_BYTES:
        return None
    return out.stdout.decode("utf-8", errors="replace")


def scan(repo: Path, commits: int) -> dict[str, object]:
    """Screen the last ``commits`` non-merge commits of ``repo``; the findings and what was looked at."""
    revs = _git(repo, "rev-list", "--no-merges", f"--max-count={commits}", "HEAD").split()
    findings = []
    files = 0
    seconds = 0.0
    for rev in revs:
        changed = []
        for line in _git(
            repo, "diff-tree", "--no-commit-id", "-r", "--name-status", f"{rev}^", rev
        ).splitlines():
            status, _, path = line.partition("\t")
            if status[:1] in ("A", "M") and "\t" not in path:
                changed.append(path)
        tests = [p for p in changed if is_test_path(p)]
        # as the harness reads them: every changed file but data and documents (the screen parses those
        # with a screened extension, and any other that parses as the task's language without an error)
        program = [p for p in changed if p not in tests and not p.lower().endswith(tuple(DATA_EXTENSIONS))]
        if not any(language_of(p) is not None for p in program):
            continue
        listing = _git(repo, "ls-tree", "-r", "--name-only", f"{rev}^").splitlines()
        # the task's language: the one most of the repository's source files are written in
        langs = Counter(lang for p in listing if (lang := language_of(p)) is not None)
        top = langs.most_common(1)[0][0] if langs else "python"
        main_lang = "typescript" if top == "tsx" else top
        task = Task(
            id=rev[:12],
            language=main_lang,
            workspace=tuple(FileEntry(path=p, content="") for p in listing if p not in tests),
            hidden_tests=tuple(FileEntry(path=p, content="") for p in tests),
            test=TestSpec(commands=(TestCommand(shell="true"),)),
        )
        batch = []
        for p in program:
            after = _show(repo, rev, p)
            if after is None:
                continue
            batch.append(ChangedFile(p, after, _show(repo, f"{rev}^", p)))
        files += len(batch)
        t = time.perf_counter()
        found = screen(task, batch)
        seconds += time.perf_counter() - t
        findings += [{"commit": rev[:12], **f.model_dump()} for f in found]
    return {
        "repo": str(repo),
        "commits": len(revs),
        "files": files,
        "screen_s": seconds,
        "findings": findings,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repos", nargs="+", type=Path)
    ap.add_argument("--commits", type=int, default=400)
    ap.add_argument("--show", type=int, default=20)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "screen_realworld.json")
    args = ap.parse_args()
    results = []
    for repo in args.repos:
        r = scan(repo, args.commits)
        results.append(r)
        found = r["findings"]
        assert isinstance(found, list)
        codes = Counter(f["code"] for f in found)
        print(
            f"{repo}: {r['commits']} commits, {r['files']} changed source files "
            f"screened in {r['screen_s']:.2f}s, "
            f"{len(found)} findings {dict(codes)}"
        )
        for f in found[: args.show]:
            print(f"   {f['commit']} {f['code']} {f['path']}:{f['line']}  {f['evidence'][:100]}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
