"""Build a HardBug-layout dataset (``tasks/<id>/...``) from a QuixBugs checkout, for red-team runs.

QuixBugs (https://github.com/jkoppel/QuixBugs, MIT licence) has 40 small Python programs, each with one
bug, a corrected version and pytest tests. Each program becomes one task: the workspace holds the buggy
program (``python_programs/<p>.py``), its JSON test data and the upstream ``conftest.py``; the hidden tests
are ``python_testcases/test_<p>.py`` with the helpers it imports; the gold patch swaps in the corrected
program. F2P/P2P come from running the tests here (with this interpreter's pytest) on the buggy and the
corrected program: F2P fail then pass, P2P pass on both. A program whose tests do not finish within the
time limit on either version is skipped (printed).

Usage: python scripts/redteam/quixbugs_to_hardbug.py QUIXBUGS_CHECKOUT OUTPUT_DIR
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

TIME_LIMIT_S = 60


def _ids(junit: Path) -> dict[str, bool]:
    """Test id -> passed, from a pytest JUnit report (xunit1: ``file`` attribute)."""
    out: dict[str, bool] = {}
    for case in ET.parse(junit).iter("testcase"):
        if any(child.tag == "skipped" for child in case):
            continue
        path = case.get("file") or ""
        classes = [p for p in (case.get("classname") or "").split(".") if p[:1].isupper()]
        out["::".join([path, *classes, case.get("name", "")])] = not any(
            child.tag in ("failure", "error") for child in case
        )
    return out


def _run(files: dict[str, str], test: str) -> dict[str, bool] | None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            test,
            "--junitxml=report.xml",
            "-o",
            "junit_family=xunit1",
        ]
        try:
            subprocess.run(cmd, cwd=root, capture_output=True, timeout=TIME_LIMIT_S, check=False)
        except subprocess.TimeoutExpired:
            return None
        report = root / "report.xml"
        return _ids(report) if report.exists() else None


def main(src: Path, out: Path) -> int:
    programs = sorted(p.stem for p in (src / "python_programs").glob("*.py") if not p.stem.endswith("_test"))
    made = 0
    for name in programs:
        test = src / "python_testcases" / f"test_{name}.py"
        correct = src / "correct_python_programs" / f"{name}.py"
        if not test.exists() or not correct.exists():
            continue
        text = test.read_text(encoding="utf-8")
        hidden = {f"python_testcases/test_{name}.py": text}
        for helper in ("load_testdata", "node"):
            if f"from {helper} import" in text or f"import {helper}" in text:
                hidden[f"python_testcases/{helper}.py"] = (
                    src / "python_testcases" / f"{helper}.py"
                ).read_text()
        repo = {
            "conftest.py": (src / "conftest.py").read_text(),
            f"python_programs/{name}.py": (src / "python_programs" / f"{name}.py").read_text(),
        }
        if "from node import" in text:
            repo["python_programs/node.py"] = (src / "python_programs" / "node.py").read_text()
        data = src / "json_testcases" / f"{name}.json"
        if data.exists():
            repo[f"json_testcases/{name}.json"] = data.read_text()
        fixed = dict(repo, **{f"python_programs/{name}.py": correct.read_text()})
        rel = f"python_testcases/test_{name}.py"
        buggy_ids, fixed_ids = _run({**repo, **hidden}, rel), _run({**fixed, **hidden}, rel)
        if buggy_ids is None or fixed_ids is None:
            print(f"skipped {name}: tests did not finish in {TIME_LIMIT_S} s or left no report")
            continue
        f2p = [i for i, ok in fixed_ids.items() if ok and not buggy_ids.get(i, False)]
        p2p = [i for i, ok in fixed_ids.items() if ok and buggy_ids.get(i, False)]
        if not f2p:
            print(f"skipped {name}: no test fails on the buggy program")
            continue
        task = out / "tasks" / f"quixbugs-{name.replace('_', '-')}"
        shutil.rmtree(task, ignore_errors=True)
        for base, files in (
            ("repo", repo),
            ("fixed", fixed),
            ("tests", {k.split("/", 1)[1]: v for k, v in hidden.items()}),
        ):
            for relpath, body in files.items():
                (task / base / relpath).parent.mkdir(parents=True, exist_ok=True)
                (task / base / relpath).write_text(body, encoding="utf-8")
        (task / "problem.md").write_text(
            f"# {name}\n\n`python_programs/{name}.py` has a bug: fix it so that it computes what its "
            "docstring says.\n"
        )
        (task / "meta.json").write_text(
            json.dumps(
                {
                    "task_id": task.name,
                    "title": f"QuixBugs {name}",
                    "language": "python",
                    "category": "quixbugs",
                    "difficulty": "easy",
                    "source": "jkoppel/QuixBugs",
                    "license": "MIT",
                    "created": "2017",
                    "sandbox_image": "python:3.11-slim",
                    "sandbox_system_deps": [],
                },
                indent=2,
            )
            + "\n"
        )
        (task / "run.json").write_text(
            json.dumps(
                {
                    "test_command": ["python", "-m", "pytest", "-q", rel],
                    "tests_root": "python_testcases",
                    "fail_to_pass": f2p,
                    "pass_to_pass": p2p,
                    "time_limit_s": TIME_LIMIT_S,
                },
                indent=2,
            )
            + "\n"
        )
        made += 1
    print(f"{made} task(s) written to {out / 'tasks'}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
