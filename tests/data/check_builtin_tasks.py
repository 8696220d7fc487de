"""Check the built-in HardBug tasks (``src/patchbench/data/hardbug/tasks``).

Usage::

    python tests/data/check_builtin_tasks.py [TASKS_DIR] [--runs N]

For every task directory this checks the layout and the JSON files, that
``repo/`` and ``fixed/`` hold the same files and differ by a small diff that
``patch -p1`` applies, that ``problem.md`` is ASCII and names none of the
functions, methods or classes whose code differs between the two versions,
and then runs the hidden tests (in scratch copies under the system temp
directory) against both versions: on ``repo/`` exactly ``fail_to_pass`` must
fail, on ``fixed/`` everything must pass.  Every run is repeated ``--runs``
times to catch nondeterminism.  Exit status 0 when every task passes.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_TASKS = Path(__file__).resolve().parents[2] / "src" / "patchbench" / "data" / "hardbug" / "tasks"
TASK_ID = re.compile(r"^(?:py|js|ts|go|rs|java|sql)-[a-z0-9]+(?:-[a-z0-9]+)*$")
META_KEYS = {
    "task_id",
    "title",
    "language",
    "category",
    "difficulty",
    "source",
    "license",
    "created",
    "sandbox_image",
    "sandbox_system_deps",
}
RUN_KEYS = {"test_command", "fail_to_pass", "pass_to_pass", "time_limit_s"}
MAX_CHANGED_LINES = 20
TAP_LINE = re.compile(r"^(not ok|ok)\s+\d+\s+-\s+(.*?)\s*(?:#\s*(?:SKIP|TODO).*)?$")
PYTEST_LINE = re.compile(r"^(PASSED|FAILED|ERROR|XPASS|XFAIL|SKIPPED)\s+(\S+)")


class Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, message: str) -> None:
        self.items.append(message)


def files_under(root: Path) -> set[str]:
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def unified_diff(task: Path, names: list[str]) -> tuple[str, int]:
    """A ``patch -p1`` diff repo -> fixed, and the number of changed lines."""
    out: list[str] = []
    changed = 0
    for name in names:
        a = (task / "repo" / name).read_text(encoding="utf-8").splitlines(keepends=True)
        b = (task / "fixed" / name).read_text(encoding="utf-8").splitlines(keepends=True)
        if a == b:
            continue
        lines = list(difflib.unified_diff(a, b, f"a/{name}", f"b/{name}"))
        changed += sum(1 for ln in lines if ln[:1] in "+-" and not ln.startswith(("+++", "---")))
        out.extend(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines)
    return "".join(out), changed


def _defs(tree: ast.AST) -> dict[str, tuple[str, ast.AST]]:
    """Qualified name -> (simple name, node) for every def/class, nested ones included."""
    found: dict[str, tuple[str, ast.AST]] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}{child.name}"
                found[qual] = (child.name, child)
                walk(child, qual + ".")
            else:
                walk(child, prefix)

    walk(tree, "")
    return found


def changed_names(task: Path, names: list[str]) -> set[str]:
    """Simple names of defs/classes whose code differs (a changed method also marks its class)."""
    result: set[str] = set()
    for name in names:
        if not name.endswith(".py"):
            continue
        old = _defs(ast.parse((task / "repo" / name).read_text(encoding="utf-8")))
        new = _defs(ast.parse((task / "fixed" / name).read_text(encoding="utf-8")))
        for qual in set(old) | set(new):
            a, b = old.get(qual), new.get(qual)
            if a is None or b is None or ast.dump(a[1]) != ast.dump(b[1]):
                result.add((a or b)[0])  # type: ignore[index]
    return result


def run_suite(
    task: Path, version: str, command: list[str], limit: float
) -> tuple[int, dict[str, bool], float, str]:
    """Run the hidden tests against ``version`` in a scratch copy; (exit, {test: passed}, seconds, output)."""
    scratch = Path(tempfile.mkdtemp(prefix=f"hardbug-{task.name}-{version}-"))
    try:
        shutil.copytree(task / version, scratch, dirs_exist_ok=True)
        shutil.copytree(task / "tests", scratch / "tests", dirs_exist_ok=True)
        argv = [sys.executable if a == "python" else a for a in command]
        is_pytest = "pytest" in argv
        if is_pytest:
            argv += ["-rA", "-p", "no:cacheprovider"]
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONPATH", None)
        start = time.perf_counter()
        proc = subprocess.run(
            argv, cwd=scratch, capture_output=True, text=True, timeout=limit, env=env, check=False
        )
        elapsed = time.perf_counter() - start
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    results: dict[str, bool] = {}
    for line in proc.stdout.splitlines():
        if is_pytest:
            m = PYTEST_LINE.match(line)
            if m:
                results[m.group(2)] = m.group(1) in {"PASSED", "XFAIL"}
        else:
            m = TAP_LINE.match(line)
            if m:
                results[m.group(2)] = m.group(1) == "ok"
    return proc.returncode, results, elapsed, proc.stdout + proc.stderr


def check_task(task: Path, runs: int) -> tuple[Problems, list[str]]:
    p = Problems()
    notes: list[str] = []
    for required in ("problem.md", "meta.json", "run.json", "repo", "fixed", "tests"):
        if not (task / required).exists():
            p.add(f"missing {required}")
    if p.items:
        return p, notes
    if not TASK_ID.match(task.name):
        p.add(f"task id {task.name!r} is not <lang>- kebab-case")
    meta = json.loads((task / "meta.json").read_text(encoding="utf-8"))
    run = json.loads((task / "run.json").read_text(encoding="utf-8"))
    if set(meta) != META_KEYS:
        p.add(f"meta.json keys {sorted(set(meta) ^ META_KEYS)} differ")
    if meta.get("task_id") != task.name:
        p.add("meta.json task_id does not match the directory name")
    if meta.get("difficulty") != "expert":
        p.add("meta.json language/difficulty")
    if set(run) != RUN_KEYS:
        p.add(f"run.json keys {sorted(set(run) ^ RUN_KEYS)} differ")
    f2p, p2p = list(run.get("fail_to_pass", [])), list(run.get("pass_to_pass", []))
    if set(f2p) & set(p2p) or len(set(f2p)) != len(f2p) or len(set(p2p)) != len(p2p):
        p.add("fail_to_pass/pass_to_pass overlap or repeat")
    if not 2 <= len(f2p) <= 4:
        p.add(f"{len(f2p)} fail_to_pass tests (want 2-4)")
    if not 6 <= len(f2p) + len(p2p) <= 12:
        p.add(f"{len(f2p) + len(p2p)} tests (want 6-12)")

    stray = [q for q in task.rglob("*") if q.name == "__pycache__" or q.suffix == ".pyc"]
    if stray:
        p.add(f"stray bytecode: {stray[0]}")
    repo_files, fixed_files = files_under(task / "repo"), files_under(task / "fixed")
    if repo_files != fixed_files:
        p.add(f"repo/ and fixed/ file sets differ: {sorted(repo_files ^ fixed_files)}")
    names = sorted(repo_files & fixed_files)
    diff, changed = unified_diff(task, names)
    notes.append(
        f"diff: {changed} changed lines in {diff.count('+++ b/')} file(s); repo/ has {len(names)} files"
    )
    if not diff:
        p.add("repo/ and fixed/ are identical")
    if changed > MAX_CHANGED_LINES:
        p.add(f"diff too large: {changed} changed lines")
    if shutil.which("patch") and diff:
        scratch = Path(tempfile.mkdtemp(prefix=f"hardbug-{task.name}-patch-"))
        try:
            shutil.copytree(task / "repo", scratch, dirs_exist_ok=True)
            proc = subprocess.run(
                ["patch", "-p1", "--dry-run"],
                cwd=scratch,
                input=diff,
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode != 0:
                p.add(f"patch --dry-run failed: {proc.stdout}{proc.stderr}")
            else:
                notes.append("patch -p1 --dry-run: ok")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    problem = (task / "problem.md").read_bytes()
    try:
        text = problem.decode("ascii")
    except UnicodeDecodeError:
        p.add("problem.md is not ASCII")
        text = problem.decode("utf-8", "replace")
    touched = changed_names(task, names)
    notes.append(f"changed defs: {sorted(touched)}")
    for name in sorted(touched):
        if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text):
            p.add(f"problem.md names the changed def {name!r}")

    command = run["test_command"]
    limit = float(run.get("time_limit_s", 60))
    expected = set(f2p) | set(p2p)
    for attempt in range(1, runs + 1):
        for version in ("repo", "fixed"):
            code, results, elapsed, output = run_suite(task, version, command, limit)
            failing = {t for t, ok in results.items() if not ok}
            tag = f"run {attempt} {version}"
            if set(results) != expected:
                p.add(f"{tag}: tests seen {sorted(set(results) ^ expected)} differ from run.json")
            if version == "repo":
                if failing != set(f2p):
                    p.add(f"{tag}: failing {sorted(failing)} != fail_to_pass {sorted(f2p)}")
                if code == 0:
                    p.add(f"{tag}: exit status 0 on the buggy version")
            else:
                if failing or code != 0:
                    p.add(f"{tag}: fixed version failed (exit {code}): {sorted(failing)}")
            if elapsed > 5:
                p.add(f"{tag}: slow ({elapsed:.2f}s)")
            notes.append(f"{tag}: exit {code}, {len(results)} tests, {len(failing)} failing, {elapsed:.2f}s")
            if p.items and os.environ.get("HARDBUG_VERBOSE"):
                print(output)
    return p, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tasks_dir", nargs="?", type=Path, default=DEFAULT_TASKS)
    parser.add_argument("--runs", type=int, default=2, help="repeat each test run N times (default 2)")
    args = parser.parse_args(argv)
    tasks = sorted(d for d in args.tasks_dir.iterdir() if d.is_dir())
    if not tasks:
        print(f"no tasks under {args.tasks_dir}")
        return 1
    bad = 0
    for task in tasks:
        problems, notes = check_task(task, args.runs)
        print(f"{'FAIL' if problems.items else 'ok  '} {task.name}")
        for note in notes:
            print(f"       {note}")
        for item in problems.items:
            print(f"   !!  {item}")
        bad += bool(problems.items)
    print(f"{len(tasks) - bad}/{len(tasks)} tasks ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
