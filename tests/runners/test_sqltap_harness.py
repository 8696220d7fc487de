"""The SQL task harness (``tests/sqltap.py`` shipped in each SQL task): its TAP goes through parse_tap.

The harness is run the way patchbench runs it (``python tests/sqltap.py`` from the workspace root), on
scratch copies of the built-in SQL task's buggy and fixed workspaces, and on tiny cases files that pin
down its comparison rules (NULLs, storage classes, ordering, duplicates) and its error reporting.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from patchbench.results import Outcome
from patchbench.results import TestResults as Results
from patchbench.runners.tap import parse_tap

TASK_DIR = (
    Path(__file__).resolve().parents[2]
    / "src"
    / "patchbench"
    / "data"
    / "hardbug"
    / "tasks"
    / "sql-activity-report-missing-members"
)
RUN = json.loads((TASK_DIR / "run.json").read_text(encoding="utf-8"))
F2P: list[str] = RUN["fail_to_pass"]
P2P: list[str] = RUN["pass_to_pass"]


def _workspace(tmp_path: Path, version: str) -> Path:
    ws = tmp_path / version
    shutil.copytree(TASK_DIR / version, ws)
    shutil.copytree(TASK_DIR / "tests", ws / "tests")
    return ws


def _run(ws: Path, *args: str) -> tuple[int, Results, str]:
    argv = [sys.executable if a == "python" else a for a in RUN["test_command"]]
    proc = subprocess.run([*argv, *args], cwd=ws, capture_output=True, text=True, timeout=60, check=False)
    assert proc.stderr == ""
    return proc.returncode, parse_tap(proc.stdout), proc.stdout


def _outcomes(results: Results) -> dict[str, Outcome]:
    return {t.id: t.outcome for t in results.tests}


def _message(results: Results, test_id: str) -> str:
    return next(t.message or "" for t in results.tests if t.id == test_id)


# -- the built-in task's workspaces ------------------------------------------------------------------


def test_buggy_workspace_fails_exactly_the_fail_to_pass_cases(tmp_path: Path) -> None:
    code, results, _ = _run(_workspace(tmp_path, "repo"))
    assert code == 1
    assert results.complete, results.notes
    assert results.notes == ()
    assert [t.id for t in results.tests] == [*P2P, *F2P]
    assert _outcomes(results) == {**dict.fromkeys(P2P, Outcome.PASSED), **dict.fromkeys(F2P, Outcome.FAILED)}
    message = _message(results, "activity_lists_members_without_any_loans")
    assert "expected 5 rows, got 3: 2 expected rows missing" in message
    assert '- [6, "Fay Adeyemi", "North", 0, 0, 0, null]' in message


def test_fixed_workspace_passes_every_case(tmp_path: Path) -> None:
    code, results, _ = _run(_workspace(tmp_path, "fixed"))
    assert code == 0
    assert results.complete, results.notes
    assert _outcomes(results) == dict.fromkeys([*P2P, *F2P], Outcome.PASSED)


def test_a_query_with_a_syntax_error_is_not_ok_with_the_sqlite_message(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "fixed")
    (ws / "queries" / "member_activity.sql").write_text("SELEC member_id FROM members;\n", encoding="utf-8")
    code, results, _ = _run(ws)
    assert code == 1
    assert results.complete
    outcomes = _outcomes(results)
    activity = {i for i in outcomes if i.startswith("activity_")}
    assert activity == {i for i in [*P2P, *F2P] if i.startswith("activity_")}
    assert {i for i, o in outcomes.items() if o is Outcome.FAILED} == activity
    for test_id in activity:
        assert 'OperationalError: near \\"SELEC\\": syntax error' in _message(results, test_id)
        assert 'query: "queries/member_activity.sql"' in _message(results, test_id)


def test_a_broken_schema_fails_every_case_with_the_setup_error(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "fixed")
    (ws / "schema.sql").write_text("CREATE TABLE members (id INTEGER PRIMARY KEY,);\n", encoding="utf-8")
    code, results, _ = _run(ws)
    assert code == 1
    assert set(_outcomes(results).values()) == {Outcome.FAILED}
    assert "setup failed: schema.sql: OperationalError" in _message(results, F2P[0])


# -- comparison rules and error reporting, on tiny cases files ---------------------------------------


def _cases(tmp_path: Path, cases: list[dict[str, Any]], **top: Any) -> tuple[int, Results, str]:
    ws = tmp_path / "ws"
    (ws / "tests").mkdir(parents=True, exist_ok=True)
    shutil.copy(TASK_DIR / "tests" / "sqltap.py", ws / "tests" / "sqltap.py")
    (ws / "schema.sql").write_text("CREATE TABLE t (k INTEGER, v);\n", encoding="utf-8")
    doc = {"setup": ["schema.sql"], **top, "cases": cases}
    (ws / "tests" / "cases.json").write_text(json.dumps(doc), encoding="utf-8")
    return _run(ws)


def _case(
    name: str, sql: str, rows: list[list[Any]], *, ordered: bool = False, **extra: Any
) -> dict[str, Any]:
    return {"name": name, "sql": sql, "ordered": ordered, "expect": {"rows": rows}, **extra}


def test_comparison_rules_for_nulls_storage_classes_order_and_duplicates(tmp_path: Path) -> None:
    data = {"table": "t", "columns": ["k", "v"], "rows": [[1, None], [2, "x"], [2, "x"]]}
    cases = [
        _case("null_matches_null", "SELECT k, v FROM t WHERE k = 1", [[1, None]], fixtures=[data]),
        _case("null_is_not_empty_text", "SELECT v FROM t WHERE k = 1", [[""]], fixtures=[data]),
        _case("null_is_not_zero", "SELECT NULL", [[0]]),
        _case("integer_is_not_real_when_strict", "SELECT 1", [[1.0]]),
        _case("integer_matches_real_when_numeric", "SELECT 1", [[1.0]], types="numeric"),
        _case("text_is_not_a_number_even_numeric", "SELECT '1'", [[1]], types="numeric"),
        _case("real_within_tolerance", "SELECT 1.0 / 3", [[0.333333333333]], float_tolerance=1e-9),
        _case("unordered_ignores_order", "VALUES (2), (1)", [[1], [2]]),
        _case("ordered_checks_order", "VALUES (2), (1)", [[1], [2]], ordered=True),
        _case(
            "duplicates_count",
            "SELECT DISTINCT k, v FROM t",
            [[1, None], [2, "x"], [2, "x"]],
            fixtures=[data],
        ),
        _case(
            "last_result_set_wins",
            "CREATE TEMP VIEW w AS SELECT ';' AS s; -- a comment; with a semicolon\nSELECT s FROM w",
            [[";"]],
        ),
        _case("blob_values", "SELECT x'00ff'", [[{"blob": "00ff"}]]),
        _case("skipped_case", "SELECT 1", [[2]], skip="not ready"),
        _case(
            "runaway_query_is_interrupted",
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n",
            [[0]],
            timeout_s=0.3,
        ),
    ]
    code, results, stdout = _cases(tmp_path, cases)
    assert code == 1
    assert results.complete
    assert _outcomes(results) == {
        "null_matches_null": Outcome.PASSED,
        "null_is_not_empty_text": Outcome.FAILED,
        "null_is_not_zero": Outcome.FAILED,
        "integer_is_not_real_when_strict": Outcome.FAILED,
        "integer_matches_real_when_numeric": Outcome.PASSED,
        "text_is_not_a_number_even_numeric": Outcome.FAILED,
        "real_within_tolerance": Outcome.PASSED,
        "unordered_ignores_order": Outcome.PASSED,
        "ordered_checks_order": Outcome.FAILED,
        "duplicates_count": Outcome.FAILED,
        "last_result_set_wins": Outcome.PASSED,
        "blob_values": Outcome.PASSED,
        "skipped_case": Outcome.SKIPPED,
        "runaway_query_is_interrupted": Outcome.FAILED,
    }
    assert "same rows in a different order" in _message(results, "ordered_checks_order")
    assert "- [1]\n" in _message(results, "integer_is_not_real_when_strict")
    assert "- [1.0]" in _message(results, "integer_is_not_real_when_strict")
    assert "query interrupted after 0.3 s" in _message(results, "runaway_query_is_interrupted")
    assert "# failed 7 of 14" in stdout


def test_an_invalid_cases_file_bails_out(tmp_path: Path) -> None:
    code, results, stdout = _cases(
        tmp_path, [{"name": "no_order", "sql": "SELECT 1", "expect": {"rows": []}}]
    )
    assert code == 2
    assert not results.complete
    assert "Bail out! invalid cases file: case 'no_order': 'ordered' is required" in stdout


@pytest.mark.parametrize(
    ("value", "fragment"),
    [(True, "no boolean type"), ([1], "unsupported value"), ({"blob": "zz"}, "blob is not hex")],
)
def test_values_without_a_sqlite_meaning_are_rejected(tmp_path: Path, value: Any, fragment: str) -> None:
    code, _, stdout = _cases(tmp_path, [_case("bad_value", "SELECT 1", [[value]])])
    assert code == 2
    assert fragment in stdout
