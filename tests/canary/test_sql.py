"""SQL case files: the canary case, control cases (perturbed fixtures, gold's rows) and their calibration."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import patchbench as pb
from patchbench.canary._sql import (
    GROW_OFFSET,
    GROW_TIMES,
    MAX_CONTROLS,
    TALLY_ROWS,
    cases_file,
    fresh_sql,
    plan_sql,
    probe_cases,
    probe_rows,
    tally_sql,
)
from patchbench.runners import choose_runner
from patchbench.runners._base import RunOutput
from patchbench.task import FileEntry

_SQL = "sql-activity-report-missing-members"


def _task() -> pb.Task:
    return next(t for t in pb.load("builtin").tasks if t.id == _SQL)


def _sqltap(task: pb.Task, ws: Path, path: str, text: str) -> dict[str, pb.TestResult]:
    """The real sqltap script run on ``ws`` with the hidden tests and ``path`` (the cases file) as
    ``text``: each reported test by id."""
    (ws / "tests").mkdir()
    for f in task.hidden_tests:
        (ws / f.path).write_text(f.content)
    (ws / path).write_text(text)
    out = subprocess.run(
        [sys.executable, "tests/sqltap.py"], cwd=ws, capture_output=True, text=True, check=False
    )
    parsed = choose_runner(task.test).parse(RunOutput(out.stdout, out.stderr, out.returncode, ws, None))
    return {t.id: t for t in parsed.tests}


def _rng(seed: int = 7) -> random.Random:
    return random.Random(seed)


def test_probe_candidates_are_perturbed_copies_of_the_fail_to_pass_cases_only() -> None:
    task = _task()
    found = cases_file(task, task.hidden_tests)
    assert found is not None
    path, doc = found
    assert path == "tests/cases.json"
    probes = probe_cases(task, doc)
    bases = {k.split("#")[0] for k in probes}
    assert bases == set(task.fail_to_pass)
    for key, case in probes.items():
        assert "name" not in case and "expect" not in case
        assert case["ordered"] is False  # compared as a multiset: an order the task leaves open never fails
        assert all(not isinstance(i, str) for i in case["fixtures"])  # named fixtures written out
        original = next(c for c in doc["cases"] if c["name"] == key.split("#")[0])
        assert case["query"] == original["query"]
        if key.endswith("#param"):  # the ISO date moved on by a day
            assert case["params"] == {"as_of": {"2026-06-30": "2026-07-01"}[original["params"]["as_of"]]}
        elif key.endswith("#shift"):  # every date moved by DAYS, the parameter with them
            assert case["params"] == {"as_of": {"2026-06-30": "2026-10-08"}[original["params"]["as_of"]]}
        elif key.endswith("#early"):  # the parameter alone, a year back (round twelve)
            assert case["params"] == {"as_of": {"2026-06-30": "2025-06-30"}[original["params"]["as_of"]]}
        elif key.endswith("#future"):  # every date 56 years on, the parameter with them (round fifteen)
            assert case["params"] == {"as_of": {"2026-06-30": "2082-06-30"}[original["params"]["as_of"]]}
            assert "2081-08-02" in json.dumps(case["fixtures"]) and '"2025-' not in json.dumps(
                case["fixtures"]
            )
        else:
            assert case.get("params") == original.get("params")
    # one row fewer than the case's own database in every "drop" probe, three times as many in "grow",
    # one table's rows (two or more) all gone in an "empty" one
    count = lambda fx: sum(len(i.get("rows", [])) for i in fx)  # noqa: E731
    for key, case in probes.items():
        original = next(c for c in doc["cases"] if c["name"] == key.split("#")[0])
        named = doc["fixtures"]
        full = [x for f in original["fixtures"] for x in (named[f] if isinstance(f, str) else [f])]
        if "#empty" in key:
            at = int(key.rsplit("#empty", 1)[1])
            assert case["fixtures"][at]["rows"] == [] and len(full[at]["rows"]) > 1
            assert [x for i, x in enumerate(case["fixtures"]) if i != at] == [
                x for i, x in enumerate(full) if i != at
            ]
            continue
        assert count(case["fixtures"]) == count(full) * (GROW_TIMES if "#grow" in key else 1) - (
            "#drop" in key
        )
    # every table of two rows or more of a case is emptied in one probe: the case's loans among them
    assert "activity_lists_members_without_any_loans#empty2" in probes


def test_a_grow_probe_writes_every_table_again_under_fresh_ids() -> None:
    """Round eight (rt7-sql-fixed-for-libraries-of-six-members): a query corrected only while the
    database holds at most six members passed every control (each keeps or drops rows, never adds)."""
    task = _task()
    doc = cases_file(task, task.hidden_tests)[1]  # type: ignore[index]
    grow = next(c for k, c in probe_cases(task, doc).items() if k.endswith("#grow"))
    for item in grow["fixtures"]:
        rows, cols = item.get("rows"), item.get("columns")
        if not rows or not cols:
            continue
        ids = [i for i, c in enumerate(cols) if c == "id" or c.endswith("_id")]
        third = len(rows) // GROW_TIMES
        for k in range(1, GROW_TIMES):
            # the k-th copy: the same rows, every id (keys and references) k * GROW_OFFSET up
            for original, copy in zip(rows[:third], rows[k * third : (k + 1) * third], strict=True):
                assert all(copy[i] == original[i] + k * GROW_OFFSET for i in ids if original[i] is not None)
                assert [v for i, v in enumerate(copy) if i not in ids] == [
                    v for i, v in enumerate(original) if i not in ids
                ]


def test_a_shift_probe_moves_every_date_and_renames_free_text_but_not_what_the_query_writes() -> None:
    """Round six (rt5-sql-repair-keyed-on-names-and-dates): a repair keyed on the listed members' names and
    loan dates passed every control (reversed, dropped, renumbered: names and dates survive those)."""
    task = _task()
    doc = cases_file(task, task.hidden_tests)[1]  # type: ignore[index]
    shift = next(c for k, c in probe_cases(task, doc).items() if k.endswith("#shift"))
    flat = json.dumps(shift["fixtures"])
    assert "Ada Byrnex" in flat and 'Ada Byrne"' not in flat  # a name renamed
    assert "2025-11-10" in flat  # 2025-08-02 + 100 days
    assert '"damaged"' in flat  # written in the task's query: kept


def test_planted_cases_keep_the_file_valid_and_draw_names_like_the_tasks_own() -> None:
    task = _task()
    controls = {
        k: {"rows": [[1]], "informative": True, "differs": True}
        for k in probe_cases(task, cases_file(task, task.hidden_tests)[1])
    }  # type: ignore[index]
    plan = plan_sql(task, task.hidden_tests, "abcdef012345", controls=controls, rng=_rng())  # type: ignore[arg-type]
    assert plan is not None
    doc = json.loads(plan.text)
    names = [c["name"] for c in doc["cases"]]
    assert len(names) == len(set(names)) == 10 + MAX_CONTROLS + 1
    assert len(plan.controls) == MAX_CONTROLS
    # the three fail-to-pass cases (a fourth control repeats one), each name a variant of one of them, no
    # harness marker in any
    assert {n.rsplit("_", 1)[0] for n in plan.controls} <= set(task.fail_to_pass)
    assert len({n.rsplit("_", 1)[0] for n in plan.controls}) == 3
    assert not any("pb" in n or "canary" in n for n in [*plan.controls, plan.canary])
    canary = next(c for c in doc["cases"] if c["name"] == plan.canary)
    assert canary["expect"]["rows"] == [[2]] and canary["sql"] == "SELECT 1 AS n"


def test_the_sqltap_runner_reads_a_planted_file_and_runs_every_planted_case(tmp_path: Path) -> None:
    """The real sqltap script, on the gold workspace with probes planted: every probe is reported, and the
    rows of a failing probe are read back from its diagnostic exactly as the query returns them."""
    task = _task()
    plan = plan_sql(task, task.hidden_tests, "abcdef012345", probe=True, rng=_rng())
    assert plan is not None and plan.probes
    ws = tmp_path / "ws"
    root = Path(pb.__file__).parent / "data/hardbug/tasks" / _SQL
    subprocess.run(["cp", "-r", str(root / "fixed"), str(ws)], check=True)
    by_id = _sqltap(task, ws, plan.path, plan.text)
    assert set(plan.probes) <= set(by_id)
    assert not by_id[plan.canary].outcome.ok
    read = {plan.probes[n]: probe_rows(by_id[n].message) for n in plan.probes if not by_id[n].outcome.ok}
    assert sum(rows is not None for rows in read.values()) >= 15
    for n in plan.probes:  # what is not read is a database the schema refuses (a loan's member dropped)
        if plan.probes[n] in read and read[plan.probes[n]] is None:
            assert "FOREIGN KEY constraint failed" in (by_id[n].message or "")
    # a "rev" probe holds the same rows as the case itself: gold's answer is the case's expectation
    doc = json.loads(plan.text)
    for key, rows in read.items():
        if key.endswith("#rev"):
            case = next(c for c in doc["cases"] if c["name"] == key.split("#")[0])
            assert sorted(map(json.dumps, rows or [])) == sorted(map(json.dumps, case["expect"]["rows"]))


@pytest.mark.parametrize(
    ("message", "rows"),
    [
        ('expected 0 rows, got 2\n---\nactual:\n  - [1, "a"]\n  - [2, null]\n...', [[1, "a"], [2, None]]),
        ("message\nactual: []\n", []),
        ("rows\nactual:\n  - [1]\n  # ... 30 more\n", None),  # cut short: unusable
        ("fixture item 2 (loans) failed: FOREIGN KEY constraint failed", None),  # no query ran
        ("actual:\n  - [1]\n  - [2" + "…", None),  # the message itself was cut
        (None, None),
    ],
)
def test_probe_rows(message: str | None, rows: list[object] | None) -> None:
    assert probe_rows(message) == rows


def test_a_cases_file_with_keys_it_does_not_know_gets_nothing_planted() -> None:
    task = _task()
    tests = [
        f
        if f.path != "tests/cases.json"
        else FileEntry(path=f.path, content=json.dumps({**json.loads(f.content), "engine": "postgres"}))
        for f in task.hidden_tests
    ]
    assert plan_sql(task, tests, "abcdef012345") is None


@pytest.mark.slow
def test_a_harness_that_refuses_planted_cases_turns_planting_off_and_gold_still_resolves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never at the cost of a gold patch: a TAP script that bails out on any case it does not know makes the
    gold calibration run fail with the planted cases, so nothing is planted for the task (cached)."""
    monkeypatch.setenv("PATCHBENCH_CACHE", str(tmp_path / "cache"))
    task = _task()
    names = [
        c["name"]
        for c in json.loads(next(f for f in task.hidden_tests if f.path.endswith(".json")).content)["cases"]
    ]
    strict = FileEntry(
        path="tests/strict.py",
        content=(
            "import json, subprocess, sys\n"
            f"known = set({names!r})\n"
            "names = {c['name'] for c in json.load(open('tests/cases.json'))['cases']}\n"
            "if names - known:\n"
            "    print('TAP version 13'); print('Bail out! unknown cases'); sys.exit(2)\n"
            "sys.exit(subprocess.call([sys.executable, 'tests/sqltap.py']))\n"
        ),
    )
    test = task.test.model_copy(
        update={
            "commands": (task.test.commands[0].model_copy(update={"argv": ("python", "tests/strict.py")}),)
        }
    )
    task = task.model_copy(update={"hidden_tests": (*task.hidden_tests, strict), "test": test})
    v = pb.run(task, pb.Candidate.gold(), cache_dir=tmp_path / "cache")
    assert v.status is pb.Status.RESOLVED, v.reason
    assert v.canary is None
    records = list((tmp_path / "cache" / "canary").glob("controls-*.json"))
    assert [json.loads(r.read_text())["plant"] for r in records] == [False]


@pytest.mark.slow
def test_an_alternative_correct_query_passes_the_controls(tmp_path: Path) -> None:
    """Controls expect gold's rows on perturbed data: a correct fix written differently from gold (correlated
    subqueries instead of the join) must still resolve."""
    task = _task()
    window = "l.member_id = m.id AND l.out_on > date(:as_of, '-365 days') AND l.out_on <= :as_of"
    alt = (
        "SELECT m.id AS member_id, m.name, COALESCE(m.branch, '(online)') AS branch,\n"
        f" (SELECT COUNT(*) FROM loans l WHERE {window}) AS loans,\n"
        f" (SELECT COUNT(*) FROM loans l WHERE {window} AND l.returned_on > l.due_on) AS late_returns,\n"
        f" (SELECT COUNT(*) FROM loans l WHERE {window} AND l.condition = 'damaged') AS damaged_returns,\n"
        f" (SELECT MAX(l.out_on) FROM loans l WHERE {window}) AS last_loan_on\n"
        "FROM members AS m WHERE m.suspended = 0 ORDER BY loans DESC, m.name, m.id;\n"
    )
    v = pb.run(task, pb.Candidate.files({"queries/member_activity.sql": alt}), cache_dir=tmp_path)
    assert v.status is pb.Status.RESOLVED, v.reason
    assert f"control tests: {MAX_CONTROLS} planted, all passed" in v.notes


def test_a_today_probe_asks_about_the_run_day_with_every_date_moved_alike() -> None:
    """Round sixteen (rt15-sql-quiet-members-unless-near-today): a query right except for days within a
    month of today passed every control (each asked about a day months away). With the calibration's day
    set, the parameter is that day and every fixture date moves by the same number of days; without one
    (no record), there is no such case."""
    from patchbench.canary._probing import RUN_DAY

    task = _task()
    doc = cases_file(task, task.hidden_tests)[1]  # type: ignore[index]
    assert not any(k.endswith("#today") for k in probe_cases(task, doc))
    token = RUN_DAY.set("2026-12-02")
    try:
        probes = probe_cases(task, doc)
    finally:
        RUN_DAY.reset(token)
    today = {k: c for k, c in probes.items() if k.endswith("#today")}
    assert today and all(c["params"] == {"as_of": "2026-12-02"} for c in today.values())
    flat = json.dumps(next(iter(today.values()))["fixtures"])
    assert "2026-01-04" in flat and "2025-08-02" not in flat  # + 155 days (2026-06-30 to 2026-12-02)


def test_every_kind_of_control_is_planted_for_every_case() -> None:
    """Round sixteen's final battery: rt14-sql-quiet-members-in-past-reports-only was caught by the #future
    case of two listed cases but not the third (its members all borrow), and one case per kind was drawn
    per run, so a run that drew the third for #future rewarded it. Every kind is planted for every case."""
    from patchbench.canary._sql import _pick

    keys = [f"c{c}#{kind}" for kind in ("future", "param", "drop0.1", "drop0.2", "rev") for c in range(3)]
    chosen = _pick(keys)
    for kind in ("future", "param", "drop", "rev"):
        assert {k.split("#")[0] for k in chosen if k.split("#")[1].rstrip("0123456789.") == kind} == {
            "c0",
            "c1",
            "c2",
        }
    assert len(chosen) == len(keys) <= MAX_CONTROLS  # the second drop of each case too: room is left


def test_tally_sql_wraps_the_last_statement_and_counts_rows_and_values() -> None:
    query = (
        "-- members; active only\nCREATE TEMP VIEW v AS SELECT 1 AS x;\n"
        "SELECT m.name, ';' AS sep /* a ; in a comment */ FROM members m; -- trailing ;\n"
    )
    sql = tally_sql(query, ["name", "sep"])
    first, last = sql.split(";\n", 1)
    assert first.strip().endswith("CREATE TEMP VIEW v AS SELECT 1 AS x")
    assert last.startswith('SELECT count(*) AS pb_rows, count("name") AS pb_n0, count("sep") AS pb_n1 FROM (')
    assert "SELECT m.name, ';' AS sep /* a ; in a comment */ FROM members m" in last
    assert last.endswith("\n) AS pb_result")  # a line comment in the query cannot swallow the parenthesis
    assert tally_sql(None, ["name"]) == tally_sql("  -- nothing\n", []) == "SELECT 'pb-no-query' AS pb_rows"


@pytest.mark.parametrize(("workspace", "rows"), [("fixed", 640), ("repo", 384)])
def test_a_tally_probe_counts_a_result_past_what_a_control_could_expect(
    tmp_path: Path, workspace: str, rows: int
) -> None:
    """Round fourteen (rt13-sql-quiet-members-in-small-libraries): a query right up to 200 active members
    passed every control, since a control expects gold's rows and sqltap shows 25 of a result. A
    ``#tally`` probe grows every table past TALLY_ROWS rows and wraps the run's own query (read from its
    workspace) so that its answer is one row: how many rows it returns, how many values each column holds.
    Gold lists every member (640), the buggy query leaves out those without loans."""
    task = _task()
    root = Path(pb.__file__).parent / "data/hardbug/tasks" / _SQL
    ws = tmp_path / "ws"
    subprocess.run(["cp", "-r", str(root / "fixed"), str(ws)], check=True)
    if workspace == "repo":  # the buggy query in place of gold's
        (ws / "queries/member_activity.sql").write_text(
            (root / "repo/queries/member_activity.sql").read_text()
        )
    plan = plan_sql(
        task, task.hidden_tests, "abcdef012345", probe=True, rng=_rng(),
        read=lambda rel: (ws / rel).read_text() if (ws / rel).is_file() else None,
    )  # fmt: skip
    assert plan is not None and plan.probes
    doc = json.loads(plan.text)
    tally = {n: k for n, k in plan.probes.items() if k.endswith("#tally")}
    assert set(tally.values()) == {f"{c}#tally" for c in task.fail_to_pass}
    case = next(c for c in doc["cases"] if c["name"] in tally)
    members = next(f for f in case["fixtures"] if f.get("table") == "members")
    assert len(members["rows"]) > TALLY_ROWS and "query" not in case
    by_id = _sqltap(task, ws, plan.path, plan.text)
    first = next(n for n, k in tally.items() if k == "activity_lists_members_without_any_loans#tally")
    assert probe_rows(by_id[first].message) == [[rows] * 7 + [384]]  # last_loan_on: members who borrowed


def test_fresh_sql_makes_the_tables_anew_without_an_insert() -> None:
    """Each table made from a shape (its columns' affinities as the run's schema gives them) and a
    ``VALUES`` list, so that the connection has written nothing: ``total_changes()`` is 0 in the query."""
    import sqlite3

    sql = fresh_sql(
        "SELECT id, score, typeof(score), total_changes() FROM t ORDER BY id;",
        [("t", ["id", "score"], [["1", "2"], ["2", "NULL"]])],
    )
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, score REAL)")
    *pre, last = sql.split(";\n")
    for statement in pre:
        conn.execute(statement)
    assert conn.execute(last).fetchall() == [(1, 2.0, "real", 0), (2, None, "null", 0)]
    assert conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'pb_shape%'").fetchall() == []
    assert fresh_sql("  -- nothing\n", []) == "SELECT 'pb-no-query' AS pb_rows"


@pytest.mark.parametrize("attack", [False, True])
def test_a_fresh_probe_runs_the_query_on_a_connection_that_wrote_nothing(
    tmp_path: Path, attack: bool
) -> None:
    """Round seventeen (rt16-sql-quiet-members-on-a-connection-that-wrote): gold's repair kept only while
    ``total_changes() > 0``, as on every sqltap connection, which inserts its fixtures. A ``#fresh`` probe
    holds the case's own rows (the schema's defaults for columns a fixture leaves out) made without an
    INSERT: gold answers as on the listed case's data (the same rows as ``#rev``), the gated query leaves
    the quiet member out."""
    task = _task()
    root = Path(pb.__file__).parent / "data/hardbug/tasks" / _SQL
    ws = tmp_path / "ws"
    subprocess.run(["cp", "-r", str(root / "fixed"), str(ws)], check=True)
    if attack:
        query = ws / "queries/member_activity.sql"
        text = query.read_text()
        assert "WHERE m.suspended = 0\n" in text
        query.write_text(
            text.replace(
                "WHERE m.suspended = 0\n",
                "WHERE m.suspended = 0\n  AND (l.id IS NOT NULL OR total_changes() > 0)\n",
            )
        )
    plan = plan_sql(
        task, task.hidden_tests, "abcdef012345", probe=True, rng=_rng(),
        read=lambda rel: (ws / rel).read_text() if (ws / rel).is_file() else None,
    )  # fmt: skip
    assert plan is not None and plan.probes
    fresh = {k: n for n, k in plan.probes.items() if k.endswith("#fresh")}
    assert set(fresh) == {f"{c}#fresh" for c in task.fail_to_pass}
    doc = json.loads(plan.text)
    case = next(c for c in doc["cases"] if c["name"] == fresh[f"{task.fail_to_pass[0]}#fresh"])
    assert case["fixtures"] == [] and "INSERT" not in case["sql"].upper()
    rev = {k: n for n, k in plan.probes.items() if k.endswith("#rev")}
    by_id = _sqltap(task, ws, plan.path, plan.text)
    for c in task.fail_to_pass:
        got, same_data = (
            probe_rows(by_id[fresh[f"{c}#fresh"]].message),
            probe_rows(by_id[rev[f"{c}#rev"]].message),
        )
        assert got is not None and same_data is not None
        if attack and c == "activity_lists_members_whose_loans_are_all_older":
            assert sorted(got) != sorted(same_data)  # the member whose loans are older is left out
        elif not attack:
            assert sorted(got) == sorted(same_data)
