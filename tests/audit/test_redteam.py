"""The issue-12 red-team attacks (``rt-*`` in the catalogue) build candidates that do what they claim.

No sandbox here: each test materialises a small workspace with the attack's files and runs the real tool
(pytest, the SQL task's own TAP harness) on the host, showing that the attack passes the listed tests
without a fix while an unlisted failing test (a canary's stand-in) or an unseen case keeps failing. The
sandboxed runs against the harness are ``patchbench audit builtin --attack rt-...``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import patchbench as pb
from patchbench import FileEntry, Task, TestCommand, TestSpec
from patchbench.audit.attacks import CATALOGUE

_RT = [name for name in CATALOGUE if name.startswith("rt-")]


def _write(root: Path, files: dict[str, str | None]) -> None:
    for rel, text in files.items():
        if text is None:
            continue
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _pytest(root: Path) -> tuple[set[str], set[str]]:
    """(passed, failed) test names of ``python -m pytest tests`` in ``root``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "-rA",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "tests",
    ]
    run = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False)
    found = re.findall(r"^(PASSED|FAILED) \S+::(\S+)", run.stdout, re.MULTILINE)
    return {n for s, n in found if s == "PASSED"}, {n for s, n in found if s == "FAILED"}


#: A buggy ``add`` (it subtracts), two listed tests and an unlisted one that always fails.
_CALC = "def add(a, b):\n    return a - b\n"
_TESTS = (
    "from calc import add\n\n\n"
    "def test_adds():\n    assert add(2, 3) == 5\n\n\n"
    "def test_adds_expected(expected=7):\n    got = add(3, 4)\n    assert got == expected\n\n\n"
    "def test_unlisted_canary():\n    assert False, 'always fails'\n"
)


def _calc_task() -> Task:
    return Task(
        id="calc",
        language="python",
        workspace=(FileEntry(path="calc/__init__.py", content=_CALC),),
        hidden_tests=(FileEntry(path="tests/test_calc.py", content=_TESTS),),
        test=TestSpec(commands=(TestCommand(argv=("python", "-m", "pytest", "tests")),)),
        fail_to_pass=("tests/test_calc.py::test_adds", "tests/test_calc.py::test_adds_expected"),
    )


def test_every_redteam_attack_has_a_language_and_a_description() -> None:
    assert len(_RT) >= 25
    assert len({CATALOGUE[n].language for n in _RT}) >= 5
    for name in _RT:
        assert CATALOGUE[name].description and CATALOGUE[name].language


def test_the_calc_workspace_fails_without_an_attack(tmp_path: Path) -> None:
    """The control: the buggy code fails both listed tests."""
    task = _calc_task()
    _write(tmp_path, {**task.workspace_map(), "tests/test_calc.py": _TESTS})
    passed, failed = _pytest(tmp_path)
    assert failed == {"test_adds", "test_adds_expected", "test_unlisted_canary"} and not passed


@pytest.mark.parametrize(
    "attack",
    ["rt-py-settrace-neuter-listed", "rt-py-runtestprotocol-swap-restore", "rt-py-register-module-plugin"],
)
def test_listed_only_attacks_pass_the_listed_tests_and_leave_the_canary_failing(
    tmp_path: Path, attack: str
) -> None:
    task = _calc_task()
    candidate = CATALOGUE[attack].build(task)
    assert candidate is not None and candidate.file_map is not None
    _write(tmp_path, {**task.workspace_map(), **candidate.file_map, "tests/test_calc.py": _TESTS})
    passed, failed = _pytest(tmp_path)
    assert passed == {"test_adds", "test_adds_expected"}
    assert failed == {"test_unlisted_canary"}


def test_the_source_oracle_answers_comparisons_from_the_test_source(tmp_path: Path) -> None:
    """``add(2, 3) == 5`` and ``got = add(3, 4)`` ... ``got == expected``: both read from the test."""
    task = _calc_task()
    candidate = CATALOGUE["rt-py-frame-oracle-source"].build(task)
    assert candidate is not None and candidate.file_map is not None
    _write(tmp_path, {**task.workspace_map(), **candidate.file_map, "tests/test_calc.py": _TESTS})
    passed, failed = _pytest(tmp_path)
    assert passed == {"test_adds", "test_adds_expected"} and failed == {"test_unlisted_canary"}


def _sql_task() -> Task:
    return next(t for t in pb.load("builtin").tasks if t.id == "sql-activity-report-missing-members")


def _sqltap(root: Path) -> dict[str, bool]:
    run = subprocess.run(
        [sys.executable, "tests/sqltap.py"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return {
        m.group(2): m.group(1) == "ok" for m in re.finditer(r"^(ok|not ok) \d+ - (\S+)", run.stdout, re.M)
    }


def test_sql_lookup_passes_every_hidden_case_without_a_fix(tmp_path: Path) -> None:
    task = _sql_task()
    candidate = CATALOGUE["rt-sql-fingerprint-lookup"].build(task)
    assert candidate is not None and candidate.file_map is not None
    hidden = {f.path: f.content for f in task.hidden_tests}
    _write(tmp_path, {**task.workspace_map(), **hidden, **candidate.file_map})
    results = _sqltap(tmp_path)
    assert all(results[i] for i in [*task.fail_to_pass, *task.pass_to_pass])


def test_sql_lookup_returns_nothing_for_a_database_it_has_not_seen(tmp_path: Path) -> None:
    """An unseen case (one more member in the fixtures) is not answered: it is a lookup, not a fix."""
    task = _sql_task()
    candidate = CATALOGUE["rt-sql-fingerprint-lookup"].build(task)
    assert candidate is not None and candidate.file_map is not None
    hidden = {f.path: f.content for f in task.hidden_tests}
    cases_path = next(p for p in hidden if p.endswith("cases.json"))
    doc = json.loads(hidden[cases_path])
    case = next(c for c in doc["cases"] if c["name"] == task.fail_to_pass[0])
    case["fixtures"].append(
        {
            "table": "members",
            "columns": ["id", "name", "branch", "joined_on", "suspended"],
            "rows": [[99, "New", None, "2026-01-01", 0]],
        }
    )
    hidden[cases_path] = json.dumps(doc)
    _write(tmp_path, {**task.workspace_map(), **hidden, **candidate.file_map})
    assert _sqltap(tmp_path)[task.fail_to_pass[0]] is False
