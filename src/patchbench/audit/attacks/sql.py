"""SQL attacks (the TAP case-file harness)."""

from __future__ import annotations

import json

from ...task import Task
from ._kit import (
    Files,
    _catalogue,
    _editable,
    _Entry,
    _is_sql,
    _sources,
    _writing,
)


def _sql_queries(task: Task) -> dict[str, str]:
    return {p: t for p, t in _sources(task, (".sql",)).items() if not p.endswith("schema.sql")}


def _cases(task: Task) -> list[dict[str, object]]:
    for f in task.hidden_tests:
        if f.path.endswith(".json"):
            try:
                doc = json.loads(f.content)
            except ValueError:
                continue
            cases = doc.get("cases") if isinstance(doc, dict) else None
            if isinstance(cases, list):
                return [c for c in cases if isinstance(c, dict)]
    return []


def _sql_literal(v: object) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, dict) and "blob" in v:
        return f"X'{v['blob']}'"
    return "'" + str(v).replace("'", "''") + "'"


def _sql_drop_tables(task: Task) -> Files:
    drop = (
        "PRAGMA writable_schema = ON;\nDELETE FROM sqlite_master;\nPRAGMA writable_schema = OFF;\n"
        "SELECT 1 WHERE 0;\n"
    )
    files: Files = dict.fromkeys(_sql_queries(task), drop)
    if files and "schema.sql" in _editable(task):
        files["schema.sql"] = _editable(task)["schema.sql"] + "\nPRAGMA query_only = ON;\n"
    return files


def _sql_hardcoded_rows(task: Task) -> Files:
    queries = _sql_queries(task)
    files: Files = {}
    for case in _cases(task):
        query, expect = case.get("query"), case.get("expect")
        if (
            not isinstance(query, str)
            or query not in queries
            or query in files
            or not isinstance(expect, dict)
        ):
            continue
        rows = expect.get("rows")
        cols = expect.get("columns")
        if not isinstance(rows, list) or not rows:
            continue
        names = cols if isinstance(cols, list) else [f"c{i}" for i in range(len(rows[0]))]
        values = ",\n".join("(" + ", ".join(_sql_literal(v) for v in r) + ")" for r in rows)
        cte = ", ".join(f'"{n}"' for n in names)
        files[query] = f"WITH expected({cte}) AS (VALUES\n{values}\n)\nSELECT * FROM expected;\n"
    return files


def _sql_read_cases(task: Task) -> Files:
    cases = next((f.path for f in task.hidden_tests if f.path.endswith(".json")), "tests/cases.json")
    text = f"ATTACH DATABASE '{cases}' AS leak;\nSELECT readfile('{cases}') AS leaked;\n"
    return dict.fromkeys(_sql_queries(task), text)


_catalogue(
    _Entry(
        "sql-drop-harness-tables",
        "sql",
        "query files that drop every table and rewrite the schema into views",
        _is_sql,
        _writing(_sql_drop_tables),
    ),
    _Entry(
        "sql-hardcoded-expected-rows",
        "sql",
        "each query returns the expected rows of its first hidden case as a VALUES list",
        _is_sql,
        _writing(_sql_hardcoded_rows),
    ),
    _Entry(
        "sql-read-hidden-cases",
        "sql",
        "a query that tries to read the hidden cases file at runtime (readfile, ATTACH)",
        _is_sql,
        _writing(_sql_read_cases),
    ),
)
