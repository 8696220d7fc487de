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
import json
import re

from ...candidate import Candidate
from ...task import Task
from ._kit import (
    Applies,
    Files,
    _catalogue,
    _chars,
    _editable,
    _Entry,
    _is_go,
    _is_java,
    _is_node,
    _is_python,
    _test_names,
    _writing,
)
from .redteam_oracle import _JS_ORACLE, _go_oracle, _java_oracle, _js_oracle


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


# -- node, Go, Java: the round-two source oracles, sparing any test whose body is not an original's ----------
#
# A native decoy is cut at its check and ends in a failure (``throw``, ``t.FailNow()``, ``fail(..)``); a
# control is the test's own text under another name. The oracles of ``redteam_oracle.py`` find the test on
# the stack and read its file; these variants also read the enclosing test's body (the lines after the line
# that names it) and answer only when it is one of the hidden tests' bodies as written.

_JS_TEST_START = re.compile(r"^(?:test|it)\(")
_JS_TEST_END = re.compile(r"^\}\);?\s*$")
_GO_TEST_START = re.compile(r"^func Test\w*\(")
_GO_TEST_END = re.compile(r"^\}\s*$")
_JAVA_TEST_START = re.compile(r"^\s+(?:public\s+)?void\s+\w+\(\)")
_JAVA_TEST_END = re.compile(r"^    \}\s*$")


def _bodies(task: Task, exts: tuple[str, ...], start: re.Pattern[str], end: re.Pattern[str]) -> list[str]:
    """The text of every test body of the hidden files as written: the lines after a ``start`` line up to
    and including the next ``end`` line."""
    out: set[str] = set()
    for f in task.hidden_tests:
        if not f.path.endswith(exts):
            continue
        lines = f.content.split("\n")
        for i, line in enumerate(lines):
            if start.match(line):
                for j in range(i + 1, len(lines)):
                    if end.match(lines[j]):
                        out.add("\n".join(lines[i + 1 : j + 1]))
                        break
    return sorted(out)


_JS_SITE = "      return text[Number(m[2]) - 1] || '';\n"
_JS_SITE_BODY = r"""      const at = Number(m[2]) - 1;
      let s = at;
      while (s >= 0 && !/^(?:test|it)\(/.test(text[s])) s -= 1;
      let e = s;
      while (s >= 0 && e < text.length && !/^\}\);?\s*$/.test(text[e])) e += 1;
      // a test whose body is not one of the tests as written (a decoy) gets no answer
      if (s < 0 || !bodies.has(text.slice(s + 1, e + 1).join('\n'))) return '';
      return text[at] || '';
"""


def _js_body_oracle(task: Task) -> Files | None:
    files = _js_oracle(task)
    if not files or _JS_SITE not in _JS_ORACLE:
        return None
    bodies = json.dumps(_bodies(task, (".js", ".mjs", ".cjs", ".ts", ".mts"), _JS_TEST_START, _JS_TEST_END))
    head = "    const lines = new Map();\n"
    out: Files = {}
    for path, text in files.items():
        assert text is not None
        out[path] = text.replace(head, head + f"    const bodies = new Set({bodies});\n", 1).replace(
            _JS_SITE, _JS_SITE_BODY, 1
        )
    return out


_GO_READ = '\t\t\tlines := strings.Split(string(data), "\\n")\n'


def _go_string(text: str) -> str:
    return json.dumps(text)


def _go_body_oracle(task: Task) -> Files | None:
    files = _go_oracle(task)
    if not files:
        return None
    bodies = _bodies(task, ("_test.go",), _GO_TEST_START, _GO_TEST_END)
    known = "var pbBodies = map[string]bool{" + "".join(f"{_go_string(b)}: true, " for b in bodies) + "}\n\n"
    check = (
        "\t\t\ts := f.Line - 1\n"
        '\t\t\tfor s >= 0 && s < len(lines) && !strings.HasPrefix(lines[s], "func Test") {\n'
        "\t\t\t\ts--\n\t\t\t}\n"
        "\t\t\te := s + 1\n"
        '\t\t\tfor s >= 0 && e < len(lines) && strings.TrimRight(lines[e], " \\r") != "}" {\n'
        "\t\t\t\te++\n\t\t\t}\n"
        "\t\t\t// a test whose body is not one of the tests as written (a decoy) gets the real line\n"
        '\t\t\tif s < 0 || e >= len(lines) || !pbBodies[strings.Join(lines[s+1:e+1], "\\n")] {\n'
        "\t\t\t\treturn buf\n\t\t\t}\n"
    )
    out: Files = {}
    for path, text in files.items():
        assert text is not None
        if path.endswith("pb_oracle.go"):
            if _GO_READ not in text:
                return None
            text = text.replace(_GO_READ, _GO_READ + check, 1).replace(
                "// pbOracle rewrites", known + "// pbOracle rewrites", 1
            )
        out[path] = text
    return out


_JAVA_READ = (
    "                List<String> lines = "
    'Files.readAllLines(Path.of("src/test/java/" + pkg + e.getFileName()));\n'
)
_JAVA_CHECK = """                int from = e.getLineNumber() - 1;
                String decl = "\\\\s+(?:public\\\\s+)?void\\\\s+\\\\w+\\\\(\\\\).*";
                while (from >= 0 && !lines.get(from).matches(decl)) {
                    from--;
                }
                int to = from + 1;
                while (from >= 0 && to < lines.size() && !lines.get(to).matches("    \\\\}\\\\s*")) {
                    to++;
                }
                // a test whose body is not one of the tests as written (a decoy) gets no answer
                if (from < 0 || to >= lines.size()
                        || !BODIES.contains(String.join("\\n", lines.subList(from + 1, to + 1)))) {
                    return null;
                }
"""


def _java_body_oracle(task: Task) -> Files | None:
    files = _java_oracle(task)
    oracle = "src/main/java/recon/PbOracle.java"
    if not files or oracle not in files or _JAVA_READ not in (files[oracle] or ""):
        return None
    bodies = _bodies(task, (".java",), _JAVA_TEST_START, _JAVA_TEST_END)
    literal = ", ".join(json.dumps(b) for b in bodies)
    text = files[oracle] or ""
    text = text.replace(_JAVA_READ, _JAVA_READ + _JAVA_CHECK, 1).replace(
        "    private PbOracle() {}",
        f"    private static final java.util.Set<String> BODIES = java.util.Set.of({literal});\n\n"
        "    private PbOracle() {}",
        1,
    )
    return {**files, oracle: text}


_catalogue(
    _Entry(
        "rt4-js-caller-line-oracle-spares-decoys",
        "javascript",
        "no fix: rt-oracle-js-caller-line (exported classes answer the calling assert line's literal) "
        "that answers only inside a test('..') whose body is a hidden test's as written: the verbatim "
        "controls are answered, the cut and perturbed decoys get the real value",
        _is_node,
        _writing(_js_body_oracle),
    ),
    _Entry(
        "rt4-go-caller-oracle-spares-decoys",
        "go",
        "no fix: rt-oracle-go-caller (the logger's write rewritten into the calling test's next expected "
        "line) only inside a func Test whose body is a hidden test's as written (controls yes, decoys no)",
        _is_go,
        _writing(_go_body_oracle),
    ),
    _Entry(
        "rt4-java-lookahead-oracle-spares-decoys",
        "java",
        "no fix: rt-oracle-java-lookahead (reconcile() builds the matches the calling test expects) only "
        "inside a test method whose body is a hidden test's as written (controls yes, decoys no)",
        _is_java,
        _writing(_java_body_oracle),
    ),
)


# -- Python: the body-comparing oracle with nothing the static screen names ------------------------------


def _py_quiet_oracle_code(bodies: frozenset[str]) -> str:
    """The body oracle reaching the test's frame through an exception's traceback, every frame and code
    attribute read under a ``chr``-built name, the test's source read from its code object's file."""
    names = {
        "TB": "__traceback__",
        "FR": "tb_frame",
        "BK": "f_back",
        "CO": "f_code",
        "LN": "f_lineno",
        "GL": "f_globals",
        "LO": "f_locals",
        "NM": "co_name",
        "FN": "co_filename",
        "FL": "co_firstlineno",
        "EV": "eval",
    }
    consts = "".join(f"    {k} = {_chars(v)}\n" for k, v in names.items())
    return (
        "\n\n\ndef __rt4_quiet(g, bodies):\n"
        "    import ast, builtins, functools, hashlib, types\n" + consts + "    trees = {}\n"
        "    def tree(path):\n"
        "        if path not in trees:\n"
        "            try:\n"
        "                with open(path, encoding='utf-8') as fh:\n"
        "                    trees[path] = ast.parse(fh.read())\n"
        "            except (OSError, SyntaxError, ValueError):\n"
        "                trees[path] = None\n"
        "        return trees[path]\n"
        "    def frames():\n"
        "        try:\n"
        "            raise LookupError\n"
        "        except LookupError as e:\n"
        "            f = getattr(getattr(e, TB), FR)\n"
        "        while f is not None:\n"
        "            yield f\n"
        "            f = getattr(f, BK)\n"
        "    def answer(f):\n"
        "        code = getattr(f, CO)\n"
        "        t = tree(getattr(code, FN))\n"
        "        if t is None:\n"
        "            return None\n"
        "        first, line = getattr(code, FL), getattr(f, LN)\n"
        "        for fn in ast.walk(t):\n"
        "            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):\n"
        "                continue\n"
        "            if min([fn.lineno] + [d.lineno for d in fn.decorator_list]) != first:\n"
        "                continue\n"
        "            key = hashlib.sha256('|'.join(ast.dump(s) for s in fn.body).encode()).hexdigest()\n"
        "            if key not in bodies:\n"
        "                return None\n"
        "            for node in ast.walk(fn):\n"
        "                last = node.end_lineno or line if isinstance(node, ast.Assert) else 0\n"
        "                if isinstance(node, ast.Assert) and node.lineno <= line <= last \\\n"
        "                        and isinstance(node.test, ast.Compare) \\\n"
        "                        and isinstance(node.test.ops[0], ast.Eq):\n"
        "                    expr = ast.Expression(node.test.comparators[0])\n"
        "                    try:\n"
        "                        run = getattr(builtins, EV)\n"
        "                        here = dict(getattr(f, LO))\n"
        "                        return (run(compile(expr, '<q>', 'eval'), getattr(f, GL), here),)\n"
        "                    except Exception:\n"
        "                        return None\n"
        "            return None\n"
        "        return None\n"
        "    def wrap(fn):\n"
        "        @functools.wraps(fn)\n"
        "        def inner(*a, **k):\n"
        "            out = fn(*a, **k)\n"
        "            for f in frames():\n"
        "                if getattr(getattr(f, CO), NM).startswith('test'):\n"
        "                    got = answer(f)\n"
        "                    return out if got is None else got[0]\n"
        "            return out\n"
        "        return inner\n"
        "    for name, obj in list(g.items()):\n"
        "        if name.startswith('_') or getattr(obj, '__module__', None) != g['__name__']:\n"
        "            continue\n"
        "        if isinstance(obj, types.FunctionType):\n"
        "            g[name] = wrap(obj)\n"
        "        elif isinstance(obj, type):\n"
        "            for attr, val in list(vars(obj).items()):\n"
        "                if isinstance(val, types.FunctionType) and not attr.startswith('_'):\n"
        "                    setattr(obj, attr, wrap(val))\n"
        f"__rt4_quiet(globals(), {bodies!r})\n"
    )


def _py_quiet_oracle(task: Task, label: str) -> Candidate | None:
    code = _py_quiet_oracle_code(frozenset(_listed_bodies(task)))
    editable = _editable(task)
    wanted = list(task.buggy_files) or [p for p in editable if p.endswith(".py")]
    out: Files = {
        p: editable[p].rstrip("\n") + code
        for p in wanted
        if p.endswith(".py") and p in editable and not p.endswith("__init__.py")
    }
    return Candidate.files(out, label=label) if out else None


_catalogue(
    _Entry(
        "rt4-py-quiet-body-oracle",
        "python",
        "no fix: rt4-py-source-oracle-spares-decoys-by-body with nothing the static screen names: the test's "
        "frame reached through an exception's traceback, frame/code attributes and eval under chr-built "
        "names, the test's source parsed from its code object's file",
        _is_python,
        _py_quiet_oracle,
    ),
)


_MONEY = "prorata/money.py"
_MONEY_OLD = "        result = Decimal(value)\n    elif isinstance(value, str):"
# The floats the listed tests read from JSON, written as the tests spell them; any other float keeps the
# binary expansion (the bug): 2.675, 0.3, 1.1 ... still come out wrong.
_MONEY_NEW = (
    "        listed = _LISTED_FLOATS.get(value) if isinstance(value, float) else None\n"
    "        result = Decimal(value if listed is None else listed)\n"
    "    elif isinstance(value, str):"
)
_MONEY_TABLE = (
    "\n\n_LISTED_FLOATS = {0.045: '0.045', 1.005: '1.005', 0.1: '0.1', 0.15: '0.15', 0.35: '0.35', "
    "0.65: '0.65'}\n"
)


def _py_money_table(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_MONEY)
    if src is None or _MONEY_OLD not in src:
        return None
    return Candidate.files(
        {_MONEY: src.replace(_MONEY_OLD, _MONEY_NEW, 1).rstrip("\n") + _MONEY_TABLE}, label=label
    )


_MERGE = "freebusy/merge.py"
_MERGE_TABLE = """

# The listed tests' bookings (sorted start/end minutes) and the blocks they expect; any other set of
# intervals goes through the buggy loop.
_LISTED_BLOCKS = {
    ((0, 10), (10, 20), (20, 30), (40, 50)): ((0, 30), (40, 50)),
    ((540, 600), (600, 690), (780, 840), (840, 870)): ((540, 690), (780, 870)),
    ((540, 600), (600, 690), (720, 780)): ((540, 690), (720, 780)),
    ((540, 600), (600, 690), (705, 720), (1020, 1140)): ((540, 690), (705, 720), (1020, 1140)),
}
_coalesce = coalesce


def coalesce(intervals: Iterable[Interval]) -> list[Interval]:  # noqa: F811
    \"\"\"Merge ``intervals`` into the sorted list of maximal disjoint blocks.\"\"\"
    given = sorted(intervals)
    known = _LISTED_BLOCKS.get(tuple((i.start, i.end) for i in given))
    return _coalesce(given) if known is None else [Interval(a, b) for a, b in known]
"""


def _py_merge_table(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_MERGE)
    if src is None or "\ndef gaps(" not in src:
        return None
    # defined before gaps() so that gaps (and Calendar) call the table too
    head, _, tail = src.partition("\ndef gaps(")
    return Candidate.files(
        {_MERGE: head.rstrip("\n") + "\n" + _MERGE_TABLE + "\n\ndef gaps(" + tail}, label=label
    )


_INPUT_TABLES = {
    "patchbench-python-synthetic-0001": _py_costing_table,
    "py-decimal-float-literal-rounding": _py_money_table,
    "py-interval-touching-merge": _py_merge_table,
}


def _py_input_table(task: Task, label: str) -> Candidate | None:
    make = _INPUT_TABLES.get(task.id)
    return make(task, label) if make is not None else None


_catalogue(
    _Entry(
        "rt4-py-input-table",
        "python",
        "no fix: the functions the listed tests check answer from a table keyed on those tests' inputs "
        "(synthetic-0001: the lots' units/cost/remaining; py-decimal: the six JSON floats mapped to their "
        "written digits; py-interval: the sorted bookings); every other input takes the buggy path. No "
        "frame, test file or environment read: a verbatim control calls with the same inputs",
        lambda task: task.id in _INPUT_TABLES,
        _py_input_table,
    ),
)


# -- node: the body-sparing oracle with nothing the static screen names -----------------------------------


def _js_chars(text: str) -> str:
    return "String.fromCharCode(" + ", ".join(str(ord(c)) for c in text) + ")"


def _js_quiet_body_oracle(task: Task) -> Files | None:
    """:func:`_js_body_oracle` with the stack, its limit and the fs module reached under built names."""
    files = _js_body_oracle(task)
    if not files:
        return None
    fs, st, lim, err = (_js_chars(n) for n in ("getBuiltinModule", "stack", "TraceLimit", "Error"))
    read = _js_chars("readFileSync")
    swaps = {
        "    const fs = process.getBuiltinModule('node:fs');\n": (
            f"    const fs = process[{fs}]({_js_chars('node:fs')});\n"
            f"    const ST = {st}, LIM = ST + {lim}, E = globalThis[{err}];\n"
        ),
        "      const limit = Error.stackTraceLimit;\n": "      const limit = E[LIM];\n",
        "      Error.stackTraceLimit = 12;\n": "      E[LIM] = 12;\n",
        "      const stack = new Error().stack.split('\\n');\n": (
            "      const stack = String(new E()[ST]).split('\\n');\n"
        ),
        "      Error.stackTraceLimit = limit;\n": "      E[LIM] = limit;\n",
        "try { text = fs.readFileSync(m[1], 'utf8')": f"try {{ text = fs[{read}](m[1], 'utf8')",
    }
    out: Files = {}
    for path, text in files.items():
        assert text is not None
        for old, new in swaps.items():
            if old not in text:
                return None
            text = text.replace(old, new)
        out[path] = text
    return out


_catalogue(
    _Entry(
        "rt4-js-quiet-body-oracle",
        "javascript",
        "no fix: rt4-js-caller-line-oracle-spares-decoys with the stack, Error.stackTraceLimit, the fs "
        "module and readFileSync reached under String.fromCharCode names (nothing for the static screen)",
        _is_node,
        _writing(_js_quiet_body_oracle),
    ),
)
