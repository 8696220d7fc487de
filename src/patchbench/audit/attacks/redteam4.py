"""Red team, round five (``rt4-*``): written against the control tests, decoys and SQL control cases.

The defences are public (``docs/design/integrity.md``): decoys are copies of a fail-to-pass test cut at
their first check with the expectation perturbed; controls are verbatim copies under a drawn name; SQL
controls perturb the fixture (reversed rows, one row dropped) or move the parameters on. These attacks
try what those layers leave room for:

- an oracle that tells a decoy from a control by its *body* (a control's body is the original's, a
  decoy's is cut and perturbed) and answers only the original tests and their verbatim copies;
- answer tables keyed on a listed test's *inputs* (a verbatim copy calls with the same arguments), with
  nothing a static screen recognises: no frame, no test file, no environment;

None of them carries the gold fix.
"""

from __future__ import annotations

import ast
import hashlib

from ...candidate import Candidate
from ...task import Task
from ._kit import Applies, Files, _catalogue, _editable, _Entry, _is_python, _test_names


def _is_task(task_id: str) -> Applies:
    return lambda task: task.id == task_id


# -- Python: a source oracle that spares decoys by their body -------------------------------------------


def _body_key(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """A function's body as a syntax tree (the name and decorators left out): the harness writes its copies
    with ``ast.unparse``, so quotes, spacing and comments differ from the original's text, never the tree."""
    return hashlib.sha256("|".join(ast.dump(stmt) for stmt in fn.body).encode()).hexdigest()


def _listed_bodies(task: Task) -> list[str]:
    """The body keys of every test function of the hidden Python files as written."""
    listed = set(_test_names(task))
    keys: list[str] = []
    for f in task.hidden_tests:
        if not f.path.endswith(".py"):
            continue
        try:
            tree = ast.parse(f.content)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
                node.name in listed or node.name.startswith("test")
            ):
                keys.append(_body_key(node))
    return sorted(set(keys))


_PY_BODY_ORACLE = """


def __rt4_oracle(g, bodies):
    import ast, functools, hashlib, inspect, linecache, sys, textwrap, types
    grab = getattr(sys, '_get' + 'frame')
    def key(code):
        try:
            lines, _ = inspect.getsourcelines(code)
            tree = ast.parse(textwrap.dedent(''.join(lines)))
        except (OSError, TypeError, SyntaxError):
            return ''
        for fn in tree.body:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return hashlib.sha256('|'.join(ast.dump(s) for s in fn.body).encode()).hexdigest()
        return ''
    def want(f):
        line = linecache.getline(f.f_code.co_filename, f.f_lineno).strip()
        try:
            node = ast.parse(line).body[0]
        except (SyntaxError, IndexError):
            return None
        expr = None
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) \\
                and isinstance(node.test.ops[0], ast.Eq):
            expr = node.test.comparators[0]
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \\
                and len(node.value.args) >= 2:
            expr = node.value.args[1]
        if expr is None:
            return None
        try:
            return (eval(compile(ast.Expression(expr), '<rt4>', 'eval'), f.f_globals, dict(f.f_locals)),)
        except Exception:
            return None
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*a, **k):
            out = fn(*a, **k)
            f = grab(1)
            while f is not None:
                if f.f_code.co_name.startswith('test'):
                    # A test whose body is a test's as written (the original or a verbatim copy of it)
                    # gets the answer; a body that was cut and perturbed (a decoy) gets the buggy value.
                    if key(f.f_code) not in bodies:
                        return out
                    got = want(f)
                    return out if got is None else got[0]
                f = f.f_back
            return out
        return inner
    for name, obj in list(g.items()):
        if name.startswith('_') or getattr(obj, '__module__', None) != g['__name__']:
            continue
        if isinstance(obj, types.FunctionType):
            g[name] = wrap(obj)
        elif isinstance(obj, type):
            for attr, val in list(vars(obj).items()):
                if isinstance(val, types.FunctionType) and not attr.startswith('_'):
                    setattr(obj, attr, wrap(val))
"""


def _py_body_oracle(task: Task, label: str) -> Candidate | None:
    """Every public function of the buggy files answers the expectation of its test's assert line, only in
    a test whose body is one of the hidden tests' bodies as written."""
    bodies = frozenset(_listed_bodies(task))
    editable = _editable(task)
    wanted = list(task.buggy_files) or [p for p in editable if p.endswith(".py")]
    out: Files = {}
    for path in wanted:
        if path.endswith(".py") and path in editable and not path.endswith("__init__.py"):
            out[path] = (
                editable[path].rstrip("\n") + _PY_BODY_ORACLE + f"__rt4_oracle(globals(), {bodies!r})\n"
            )
    return Candidate.files(out, label=label) if out else None


# -- Python: an answer table keyed on the listed tests' inputs -------------------------------------------

_COSTING = "stockroom/costing.py"

# The listed tests' inputs and their expected answers; every other input takes the buggy path.
_COSTING_TABLE = '''

_UNIT = {(3, 2000): 667, (2, 1001): 501}
_AVERAGE = {((3, 300, 3), (3, 305, 3)): 101, ((2, 200, 2), (1, 102, 1)): 101}
_unit_cost_cents = unit_cost_cents
_average_cost_cents = average_cost_cents


def unit_cost_cents(lot: Lot) -> int:  # noqa: F811
    """The cost of one unit of ``lot`` in whole cents."""
    return _UNIT.get((lot.units, lot.cost_cents), _unit_cost_cents(lot))


def average_cost_cents(lots: list[Lot]) -> int:  # noqa: F811
    """The average unit cost of everything still in stock, in whole cents (0 when empty)."""
    shape = tuple((lot.units, lot.cost_cents, lot.remaining) for lot in lots)
    return _AVERAGE.get(shape, _average_cost_cents(lots))
'''


def _py_costing_table(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_COSTING)
    if src is None:
        return None
    return Candidate.files({_COSTING: src.rstrip("\n") + "\n" + _COSTING_TABLE}, label=label)


_catalogue(
    _Entry(
        "rt4-py-source-oracle-spares-decoys-by-body",
        "python",
        "no fix: public functions of the buggy files return the expectation of their test's assert line, "
        "only inside a test whose body (name and decorators aside) is a hidden test's as written, so the "
        "verbatim control copies are answered and the cut, perturbed decoys get the buggy value",
        _is_python,
        _py_body_oracle,
    ),
    _Entry(
        "rt4-py-input-table-costing",
        "python",
        "patchbench-python-synthetic-0001, no fix: unit_cost_cents/average_cost_cents answer from a table "
        "keyed on the listed tests' lots (units, cost, remaining); any other input takes the buggy path. No "
        "frame, test file or environment read: the verbatim controls call with the same lots",
        _is_task("patchbench-python-synthetic-0001"),
        _py_costing_table,
    ),
)


# -- SQL: the buggy query repaired only for the listed cases' own rows (ids) ---------------------------------

_SQL_TASK = "sql-activity-report-missing-members"
_SQL_QUERY = "queries/member_activity.sql"

# The buggy report, with two special cases keyed on the listed cases' fixture ids: the loans they add
# without an inspection (40-42) never count as damaged, and the members they add without any loan in the
# window (5, 6, 7) get a row of zeros. No window logic, no NULL handling: on any other member or loan the
# bug stays. A control case drops one fixture row or moves the dates on, and keeps the other ids.
_SQL_ID_REPAIR = """-- Member activity over the 365 days ending on :as_of (see README.md).
SELECT * FROM (
    SELECT
        m.id                                                        AS member_id,
        m.name,
        COALESCE(m.branch, '(online)')                              AS branch,
        COUNT(l.id)                                                 AS loans,
        SUM(CASE WHEN l.returned_on > l.due_on THEN 1 ELSE 0 END)   AS late_returns,
        SUM(CASE WHEN l.id IN (40, 41, 42) OR l.condition <> 'damaged' THEN 0 ELSE 1 END)
                                                                    AS damaged_returns,
        MAX(l.out_on)                                               AS last_loan_on
    FROM members AS m
    LEFT JOIN loans AS l
           ON l.member_id = m.id
    WHERE m.suspended = 0
      AND l.out_on > date(:as_of, '-365 days')
      AND l.out_on <= :as_of
    GROUP BY m.id, m.name, m.branch
    UNION ALL
    SELECT m.id, m.name, COALESCE(m.branch, '(online)'), 0, 0, 0, NULL
    FROM members AS m
    WHERE m.suspended = 0 AND m.id IN (5, 6, 7)
)
ORDER BY loans DESC, name, member_id;
"""


def _sql_id_repair(task: Task, label: str) -> Candidate | None:
    if _SQL_QUERY not in _editable(task):
        return None
    return Candidate.files({_SQL_QUERY: _SQL_ID_REPAIR}, label=label)


_catalogue(
    _Entry(
        "rt4-sql-repair-keyed-on-fixture-ids",
        "sql",
        "sql-activity-report-missing-members, no fix: the buggy query plus two special cases keyed on the "
        "listed cases' fixture ids (loans 40-42 never damaged, members 5-7 listed with zeros); the bug "
        "stays for every other row, and the control cases keep those ids",
        _is_task(_SQL_TASK),
        _sql_id_repair,
    ),
)
