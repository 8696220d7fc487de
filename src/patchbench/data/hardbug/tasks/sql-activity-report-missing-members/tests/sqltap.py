"""sqltap: run SQL query files against fixture data in SQLite and report the results as TAP 13.

Usage (from anywhere; paths in the cases file are relative to the workspace root)::

    python tests/sqltap.py [CASES_FILE] [--root DIR] [--case NAME ...]

``CASES_FILE`` defaults to ``cases.json`` next to this script and ``--root`` to the directory above
it (the workspace).  ``--case`` runs only the named cases (repeatable).  Standard library only,
Python 3.9 or later; the SQLite is whichever the interpreter's ``sqlite3`` module links (its version
is printed as a TAP comment).

Every case gets a fresh in-memory database: the ``setup`` files (the schema) are executed, the
case's fixtures inserted, then the query's statements run in order with the case's named
parameters; the result set of the LAST statement that returns one is compared with the expected
rows.  Output is TAP version 13 (a ``1..N`` plan, ``ok N - name`` / ``not ok N - name`` and a YAML
diagnostic block with expected and actual rows under each failure).  Exit status: 0 when every
case passed, 1 when one failed, 2 when the cases file itself is invalid (``Bail out!``).

The cases file (JSON)::

    {
      "setup": ["schema.sql"],            # workspace files run before every case (executescript)
      "types": "strict",                  # or "numeric" (see "Comparing values")
      "float_tolerance": 1e-9,            # relative and absolute; 0 compares REALs exactly
      "timeout_s": 5,                     # per case; a runaway query is interrupted
      "foreign_keys": true,               # PRAGMA foreign_keys for every case
      "fixtures": {                       # named data sets, used by name from cases
        "base": [
          {"table": "t", "columns": ["id", "name"], "rows": [[1, "a"], [2, null]]},
          {"sql": "UPDATE t SET name = upper(name);"}
        ]
      },
      "cases": [
        {
          "name": "test_name",            # the TAP description, i.e. the test id (unique)
          "query": "queries/report.sql",  # a workspace file ... or "sql": "SELECT ..." inline
          "params": {"as_of": "2026-06-30"},   # bound to :as_of in every statement
          "fixtures": ["base", {"table": "t", "columns": ["id"], "rows": [[3]]}],
          "ordered": true,                # REQUIRED: does row order matter?
          "expect": {"columns": ["id", "name"], "rows": [[1, "A"], [2, null]]},
          "skip": "reason"                # optional: report "ok N - name # SKIP reason"
        }
      ]
    }

Top-level ``types``, ``float_tolerance`` and ``timeout_s`` are defaults that a case may override.
``expect.columns`` is optional; when given, the result's column names must match exactly, in order.
Unknown keys are errors, so that a misspelt option cannot be silently ignored.

Values.  In fixture rows and expected rows a value is a JSON integer (SQLite INTEGER), a JSON
number with a fraction or exponent such as ``2.0`` (REAL), a string (TEXT), ``null`` (NULL) or
``{"blob": "<hex>"}`` (BLOB).  ``true``/``false`` are rejected: SQLite has no boolean type, write
1 or 0.  Fixture rows are inserted with bound parameters, so the column affinities of the schema
apply exactly as they would to an application's inserts.

Comparing values.
* NULL matches NULL and nothing else (not 0, not '', not 'NULL').
* ``"types": "strict"`` (the default): the storage class must match, so 1 (INTEGER), 1.0 (REAL) and
  '1' (TEXT) are three different values.
* ``"types": "numeric"``: INTEGER and REAL compare by numeric value, so 1 matches 1.0; TEXT still
  never matches a number and BLOB only matches an equal BLOB.
* REAL values (and, in numeric mode, any number compared with a REAL) match when they are within
  ``float_tolerance``; TEXT and BLOB compare exactly (case and trailing spaces count).
* ``"ordered": true`` compares row by row; ``false`` compares the rows as a multiset (duplicates
  count).

A query that cannot be prepared or run (a syntax error, a missing table, a missing parameter) makes
its case ``not ok`` with the SQLite error message; so does a failing setup or fixture.
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_CASES = HERE / "cases.json"
DEFAULT_ROOT = HERE.parent

#: Rows fetched from a result set at most (a runaway join must not exhaust memory).
MAX_ROWS = 5000
#: Rows shown for expected/actual/missing/unexpected in a diagnostic block.
SHOWN_ROWS = 25
#: SQLite virtual machine instructions between two checks of the case's deadline.
PROGRESS_STEPS = 10000

TOP_KEYS = {
    "description",
    "setup",
    "types",
    "float_tolerance",
    "timeout_s",
    "foreign_keys",
    "fixtures",
    "cases",
}
CASE_KEYS = {
    "name",
    "description",
    "query",
    "sql",
    "params",
    "fixtures",
    "ordered",
    "expect",
    "types",
    "float_tolerance",
    "timeout_s",
    "skip",
}
TYPE_MODES = ("strict", "numeric")

Value = Any  # None | int | float | str | bytes
Row = tuple[Value, ...]


class CasesError(Exception):
    """The cases file is invalid: nothing can be run."""


class CaseFailure(Exception):
    """One case failed; ``details`` become the YAML diagnostic."""

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


# -- reading the cases file ---------------------------------------------------------------------------


def _value(raw: Any, where: str) -> Value:
    """A JSON value from a fixture or expected row as the Python value sqlite3 uses."""
    if raw is None or isinstance(raw, str):
        return raw
    if isinstance(raw, bool):
        raise CasesError(f"{where}: {json.dumps(raw)} is not a SQLite value (no boolean type: use 1 or 0)")
    if isinstance(raw, (int, float)):
        if isinstance(raw, float) and not math.isfinite(raw):
            raise CasesError(f"{where}: non-finite number")
        return raw
    if isinstance(raw, dict) and set(raw) == {"blob"} and isinstance(raw["blob"], str):
        try:
            return bytes.fromhex(raw["blob"])
        except ValueError:
            raise CasesError(f"{where}: blob is not hex: {raw['blob']!r}") from None
    raise CasesError(
        f"{where}: unsupported value {json.dumps(raw)} (use a number, string, null or {{'blob': hex}})"
    )


def _rows(raw: Any, where: str, width: int | None = None) -> list[Row]:
    if not isinstance(raw, list):
        raise CasesError(f"{where}: rows must be a list of lists")
    rows: list[Row] = []
    for i, row in enumerate(raw, start=1):
        if not isinstance(row, list):
            raise CasesError(f"{where}: row {i} is not a list")
        if width is not None and len(row) != width:
            raise CasesError(f"{where}: row {i} has {len(row)} values, expected {width}")
        rows.append(tuple(_value(v, f"{where} row {i}") for v in row))
    return rows


def _fixture_item(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise CasesError(f"{where}: a fixture item is an object with 'table' or 'sql'")
    if "sql" in raw:
        if set(raw) != {"sql"} or not isinstance(raw["sql"], str):
            raise CasesError(f"{where}: an 'sql' fixture item has only a string 'sql'")
        return {"sql": raw["sql"]}
    if set(raw) != {"table", "columns", "rows"}:
        raise CasesError(f"{where}: a table fixture item has exactly 'table', 'columns' and 'rows'")
    table, columns = raw["table"], raw["columns"]
    if not isinstance(table, str) or not table:
        raise CasesError(f"{where}: 'table' must be a name")
    if not isinstance(columns, list) or not columns or not all(isinstance(c, str) and c for c in columns):
        raise CasesError(f"{where}: 'columns' must be a non-empty list of names")
    return {
        "table": table,
        "columns": columns,
        "rows": _rows(raw["rows"], f"{where} ({table})", len(columns)),
    }


def _options(raw: dict[str, Any], where: str, defaults: dict[str, Any]) -> dict[str, Any]:
    types = raw.get("types", defaults["types"])
    if types not in TYPE_MODES:
        raise CasesError(f"{where}: 'types' must be one of {', '.join(TYPE_MODES)}")
    tol = raw.get("float_tolerance", defaults["float_tolerance"])
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or tol < 0:
        raise CasesError(f"{where}: 'float_tolerance' must be a number >= 0")
    timeout = raw.get("timeout_s", defaults["timeout_s"])
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise CasesError(f"{where}: 'timeout_s' must be a positive number")
    return {"types": types, "float_tolerance": float(tol), "timeout_s": float(timeout)}


def load_cases(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Validate the cases file; (global settings, cases with fixtures resolved)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise CasesError(f"cannot read {path}: {e}") from None
    except ValueError as e:
        raise CasesError(f"{path.name} is not valid JSON: {e}") from None
    if not isinstance(doc, dict):
        raise CasesError(f"{path.name}: the top level must be an object")
    unknown = set(doc) - TOP_KEYS
    if unknown:
        raise CasesError(f"{path.name}: unknown key(s) {sorted(unknown)}")
    setup = doc.get("setup", [])
    if not isinstance(setup, list) or not all(isinstance(s, str) for s in setup):
        raise CasesError("'setup' must be a list of workspace paths")
    fk = doc.get("foreign_keys", True)
    if not isinstance(fk, bool):
        raise CasesError("'foreign_keys' must be true or false")
    defaults = _options(doc, "top level", {"types": "strict", "float_tolerance": 1e-9, "timeout_s": 5.0})
    named_raw = doc.get("fixtures", {})
    if not isinstance(named_raw, dict):
        raise CasesError("'fixtures' must map names to lists of fixture items")
    named: dict[str, list[dict[str, Any]]] = {}
    for fname, fitems in named_raw.items():
        if not isinstance(fitems, list):
            raise CasesError(f"fixture {fname!r} must be a list of fixture items")
        named[fname] = [
            _fixture_item(item, f"fixture {fname!r} item {i}") for i, item in enumerate(fitems, 1)
        ]

    raw_cases = doc.get("cases")
    if not isinstance(raw_cases, list) or not raw_cases:
        raise CasesError("'cases' must be a non-empty list")
    cases: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_cases, start=1):
        if not isinstance(raw, dict):
            raise CasesError(f"case {i} is not an object")
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip() or "#" in name or "\n" in name:
            raise CasesError(f"case {i}: 'name' must be a one-line string without '#'")
        where = f"case {name!r}"
        if name in seen:
            raise CasesError(f"{where}: duplicate name")
        seen.add(name)
        unknown = set(raw) - CASE_KEYS
        if unknown:
            raise CasesError(f"{where}: unknown key(s) {sorted(unknown)}")
        if ("query" in raw) == ("sql" in raw):
            raise CasesError(f"{where}: give exactly one of 'query' (a workspace file) and 'sql'")
        source = raw.get("query", raw.get("sql"))
        if not isinstance(source, str) or not source.strip():
            raise CasesError(f"{where}: 'query'/'sql' must be a non-empty string")
        if not isinstance(raw.get("ordered"), bool):
            raise CasesError(f"{where}: 'ordered' is required (true or false)")
        params = raw.get("params", {})
        if not isinstance(params, dict):
            raise CasesError(f"{where}: 'params' must be an object of named parameters")
        params = {k: _value(v, f"{where} param {k!r}") for k, v in params.items()}
        items: list[dict[str, Any]] = []
        fixtures = raw.get("fixtures", [])
        if not isinstance(fixtures, list):
            raise CasesError(f"{where}: 'fixtures' must be a list")
        for j, item in enumerate(fixtures, start=1):
            if isinstance(item, str):
                if item not in named:
                    raise CasesError(f"{where}: unknown fixture {item!r}")
                items.extend(named[item])
            else:
                items.append(_fixture_item(item, f"{where} fixture item {j}"))
        expect = raw.get("expect")
        if not isinstance(expect, dict) or "rows" not in expect or not set(expect) <= {"columns", "rows"}:
            raise CasesError(f"{where}: 'expect' must be an object with 'rows' and optionally 'columns'")
        columns = expect.get("columns")
        if columns is not None and (
            not isinstance(columns, list) or not all(isinstance(c, str) for c in columns)
        ):
            raise CasesError(f"{where}: 'expect.columns' must be a list of names")
        skip = raw.get("skip")
        if skip is not None and not isinstance(skip, str):
            raise CasesError(f"{where}: 'skip' must be a reason string")
        cases.append(
            {
                "name": name,
                "query": raw.get("query"),
                "sql": raw.get("sql"),
                "params": params,
                "fixtures": items,
                "ordered": raw["ordered"],
                "columns": columns,
                "rows": _rows(expect["rows"], f"{where} expect", len(columns) if columns else None),
                "skip": skip,
                **_options(raw, where, defaults),
            }
        )
    return {"setup": setup, "foreign_keys": fk}, cases


# -- running one case ---------------------------------------------------------------------------------


def split_statements(sql: str) -> list[str]:
    """Split SQL text into statements at the semicolons SQLite itself considers statement ends.

    ``sqlite3.complete_statement`` knows about string literals, quoted identifiers, comments and
    trigger bodies, so a ``;`` inside any of them does not split.  Text after the last complete
    statement (a final statement without ``;``, or a trailing comment) is kept as one more statement.
    """
    statements: list[str] = []
    start = 0
    for i, ch in enumerate(sql):
        if ch == ";" and sqlite3.complete_statement(sql[start : i + 1]):
            statements.append(sql[start : i + 1])
            start = i + 1
    if sql[start:].strip():
        statements.append(sql[start:])
    return statements


def _read_workspace_file(root: Path, rel: str, what: str) -> str:
    path = (root / rel).resolve()
    if root.resolve() not in path.parents:
        raise CaseFailure(f"{what} {rel!r} is outside the workspace")
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CaseFailure(f"{what} not found: {rel}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CaseFailure(f"cannot read {what} {rel}: {e}") from None


def _sqlite_error(e: Exception) -> str:
    return f"{type(e).__name__}: {e}"


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def run_query(
    conn: sqlite3.Connection, sql: str, params: dict[str, Value], label: str
) -> tuple[list[str], list[Row]]:
    """Run every statement of ``sql``; the columns and rows of the last one that returns a result set."""
    result: tuple[list[str], list[Row]] | None = None
    statements = split_statements(sql)
    for number, statement in enumerate(statements, start=1):
        try:
            cursor = conn.execute(statement, params)
            if cursor.description is None:
                continue
            columns = [d[0] for d in cursor.description]
            rows = [tuple(r) for r in cursor.fetchmany(MAX_ROWS + 1)]
        except (sqlite3.Error, ValueError, OverflowError) as e:
            where = label if len(statements) == 1 else f"{label}, statement {number}"
            raise CaseFailure(f"query failed: {_sqlite_error(e)}", query=where) from None
        if len(rows) > MAX_ROWS:
            raise CaseFailure(f"query returned more than {MAX_ROWS} rows", query=label)
        result = (columns, rows)
    if result is None:
        raise CaseFailure("query returned no result set (no SELECT/VALUES/RETURNING statement)", query=label)
    return result


def same_value(expected: Value, actual: Value, types: str, tol: float) -> bool:
    """Whether one expected value matches one actual value (see the module docstring)."""
    if expected is None or actual is None:
        return expected is None and actual is None
    e_num = isinstance(expected, (int, float))
    a_num = isinstance(actual, (int, float))
    if e_num and a_num:
        if types == "strict" and type(expected) is not type(actual):
            return False
        if isinstance(expected, float) or isinstance(actual, float):
            return math.isclose(expected, actual, rel_tol=tol, abs_tol=tol)
        return bool(expected == actual)
    return type(expected) is type(actual) and expected == actual


def same_row(expected: Row, actual: Row, types: str, tol: float) -> bool:
    return len(expected) == len(actual) and all(
        same_value(expected[i], actual[i], types, tol) for i in range(len(expected))
    )


def first_difference(expected: list[Row], actual: list[Row], types: str, tol: float) -> int | None:
    """The index of the first row that differs (or exists in one list only), None when none does."""
    for i in range(max(len(expected), len(actual))):
        if i >= len(expected) or i >= len(actual) or not same_row(expected[i], actual[i], types, tol):
            return i
    return None


def compare(case: dict[str, Any], columns: list[str], rows: list[Row]) -> None:
    """Raise CaseFailure when the result does not match the case's expectation."""
    expected: list[Row] = case["rows"]
    types, tol = case["types"], case["float_tolerance"]
    if case["columns"] is not None and columns != case["columns"]:
        raise CaseFailure(
            "column names differ", expected_columns=case["columns"], actual_columns=columns, actual=rows
        )
    if expected and len(columns) != len(expected[0]):
        width = len(expected[0])
        raise CaseFailure(
            f"expected {width} column{'s' if width != 1 else ''}, got {len(columns)}",
            actual_columns=columns,
            actual=rows,
        )
    if case["ordered"]:
        first = first_difference(expected, rows, types, tol)
        if first is None:
            return
        missing, unexpected = _multiset_diff(expected, rows, types, tol)
        if not missing and not unexpected:
            message = f"same rows in a different order (first difference at row {first + 1})"
        elif len(expected) == len(rows):
            message = f"row {first + 1} differs"
        else:
            message = f"expected {len(expected)} rows, got {len(rows)}"
    else:
        missing, unexpected = _multiset_diff(expected, rows, types, tol)
        if not missing and not unexpected:
            return
        message = (
            "rows differ" if len(expected) == len(rows) else f"expected {len(expected)} rows, got {len(rows)}"
        )
    details: dict[str, Any] = {}
    parts = []
    if missing:
        parts.append(f"{len(missing)} expected row{'s' if len(missing) != 1 else ''} missing")
        details["missing"] = missing
    if unexpected:
        parts.append(f"{len(unexpected)} unexpected row{'s' if len(unexpected) != 1 else ''}")
        details["unexpected"] = unexpected
    if parts:
        message += ": " + ", ".join(parts)
    raise CaseFailure(message, columns=columns, expected=expected, actual=rows, **details)


def _multiset_diff(
    expected: list[Row], actual: list[Row], types: str, tol: float
) -> tuple[list[Row], list[Row]]:
    """(expected rows without a match, actual rows without a match); each actual row matches once."""
    left = list(actual)
    missing: list[Row] = []
    for row in expected:
        for i, candidate in enumerate(left):
            if same_row(row, candidate, types, tol):
                del left[i]
                break
        else:
            missing.append(row)
    return missing, left


def run_case(case: dict[str, Any], settings: dict[str, Any], root: Path) -> None:
    """Run one case in a fresh database; raise CaseFailure when it does not pass."""
    label = case["query"] or "inline sql"
    sql = case["sql"] if case["sql"] is not None else _read_workspace_file(root, case["query"], "query file")
    conn = sqlite3.connect(":memory:", isolation_level=None)
    deadline = time.monotonic() + case["timeout_s"]
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), PROGRESS_STEPS)
    try:
        conn.execute(f"PRAGMA foreign_keys = {'ON' if settings['foreign_keys'] else 'OFF'}")
        for rel in settings["setup"]:
            script = _read_workspace_file(root, rel, "setup file")
            try:
                conn.executescript(script)
            except sqlite3.Error as e:
                raise CaseFailure(f"setup failed: {rel}: {_sqlite_error(e)}") from None
        for n, item in enumerate(case["fixtures"], start=1):
            try:
                if "sql" in item:
                    conn.executescript(item["sql"])
                else:
                    marks = ", ".join("?" for _ in item["columns"])
                    names = ", ".join(_quote_ident(c) for c in item["columns"])
                    conn.executemany(
                        f"INSERT INTO {_quote_ident(item['table'])} ({names}) VALUES ({marks})", item["rows"]
                    )
            except (sqlite3.Error, OverflowError) as e:
                what = item.get("table", "sql")
                raise CaseFailure(f"fixture item {n} ({what}) failed: {_sqlite_error(e)}") from None
        try:
            columns, rows = run_query(conn, sql, case["params"], label)
        except CaseFailure as failure:
            if time.monotonic() > deadline:
                raise CaseFailure(f"query interrupted after {case['timeout_s']:g} s", query=label) from None
            raise failure
        compare(case, columns, rows)
    finally:
        conn.close()


# -- TAP output ---------------------------------------------------------------------------------------


def _json_value(value: Value) -> Any:
    if isinstance(value, bytes):
        return {"blob": value.hex()}
    return value


def _yaml_rows(rows: list[Row]) -> list[str]:
    shown = [f"    - {json.dumps([_json_value(v) for v in row])}" for row in rows[:SHOWN_ROWS]]
    if len(rows) > SHOWN_ROWS:
        shown.append(f"    # ... {len(rows) - SHOWN_ROWS} more")
    return shown


def diagnostic(failure: CaseFailure, case: dict[str, Any]) -> list[str]:
    """The YAML block for a failed case: JSON scalars and flow sequences, which YAML reads as-is."""
    lines = ["  ---", f"  message: {json.dumps(failure.message)}", "  severity: fail"]
    details = dict(failure.details)
    lines.append(f"  query: {json.dumps(details.pop('query', case['query'] or 'inline sql'))}")
    if "expected" in details or "actual" in details:
        lines.append(f"  ordered: {'true' if case['ordered'] else 'false'}")
        lines.append(f"  types: {case['types']}")
    for key in ("columns", "expected_columns", "actual_columns"):
        if key in details:
            lines.append(f"  {key}: {json.dumps(details.pop(key))}")
    for key in ("expected", "actual", "missing", "unexpected"):
        if key in details:
            rows = details.pop(key)
            lines.append(f"  {key}:{' []' if not rows else ''}")
            lines.extend(_yaml_rows(rows))
    lines.append("  ...")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run SQL test cases in SQLite and print TAP 13.")
    parser.add_argument("cases", nargs="?", type=Path, default=DEFAULT_CASES, help="the cases file (JSON)")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="the workspace root")
    parser.add_argument("--case", action="append", default=[], help="run only this case (repeatable)")
    args = parser.parse_args(argv)

    print("TAP version 13")
    try:
        settings, cases = load_cases(args.cases)
        if args.case:
            unknown = sorted(set(args.case) - {c["name"] for c in cases})
            if unknown:
                raise CasesError(f"no such case(s): {', '.join(unknown)}")
            cases = [c for c in cases if c["name"] in args.case]
    except CasesError as e:
        print(f"Bail out! invalid cases file: {e}".replace("\n", " "))
        return 2
    print(f"# sqlite {sqlite3.sqlite_version}, python {sys.version.split()[0]}")
    print(f"1..{len(cases)}")
    failed = 0
    for number, case in enumerate(cases, start=1):
        if case["skip"] is not None:
            print(f"ok {number} - {case['name']} # SKIP {case['skip']}")
            continue
        try:
            run_case(case, settings, args.root)
        except CaseFailure as failure:
            failed += 1
            print(f"not ok {number} - {case['name']}")
            print("\n".join(diagnostic(failure, case)))
        else:
            print(f"ok {number} - {case['name']}")
        sys.stdout.flush()
    if failed:
        print(f"# failed {failed} of {len(cases)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
