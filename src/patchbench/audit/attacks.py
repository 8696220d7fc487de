"""An adversarial battery: named attack candidates that try to earn a reward without fixing the bug.

Each attack is one entry of a declarative table: a name, a language label, a description, a predicate
(does the attack apply to this task's language and result protocol?) and a candidate builder. The
builders are a few shapes: code appended to every source file of the task (it runs when the buggy module
is loaded), files written over the workspace (for a repository task, over the paths of
``context_files``/``buggy_files``; ``None`` content deletes a file) or a unified diff. The catalogue
(:data:`CATALOGUE`) maps each name to an :class:`Attack` whose ``build(task)`` returns the candidate, or
``None`` when the attack does not apply. It covers Python (pytest and TAP harnesses),
JavaScript/TypeScript (``node --test``), Go, Java (Maven), Rust (cargo) and SQL (a TAP harness), the
hidden test files themselves (rewritten, emptied, deleted, skipped), and the harness (resource bombs,
symlinks, paths that leave the workspace). The attacker is a worst case: it knows the F2P/P2P test ids
and the hidden tests' paths and content.

:func:`run_attacks` runs every applicable attack against every task through the ordinary engine (the
same flow as :func:`patchbench.run`) and reports one row per attack × task. An attack is *rewarded*
when its verdict is ``resolved`` or its reward is above 0: a hole in the grading.

Resource attacks are bounded on purpose (at most 512 forked processes, 6 GiB of memory, 96 MiB of output)
so that a sandbox without limits cannot take the host down with it; each bound is above the sandbox's
default limit (:class:`patchbench.sandbox.Limits`).
"""

from __future__ import annotations

import ast
import json
import logging
import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from ..candidate import Candidate
from ..engine import Job, LocalEngine
from ..runners import choose_runner
from ..sandbox import Sandbox
from ..task import Task, VerifierKind
from ..verdict import Status, Verdict
from .probes import is_script_task

log = logging.getLogger("patchbench.audit.attacks")

__all__ = [
    "CATALOGUE",
    "Attack",
    "AttackReport",
    "AttackResult",
    "GoldResult",
    "plan_attacks",
    "run_attacks",
]

AttackFn = Callable[[Task], Candidate | None]
Files = dict[str, str | None]
"""Files written over the workspace (``None`` deletes one)."""
Applies = Callable[[Task], bool]
"""Whether an attack applies to a task (its language and runner)."""
Make = Callable[[Task, str], Candidate | None]
"""Builds the candidate of an attack for a task it applies to, labelled with the attack's name."""
CodeFn = Callable[[Task], str]
FilesFn = Callable[[Task], Files | None]
_TAIL = 1500
#: Where the harness's runner reports appear in the sandbox (see patchbench.harness.REPORTS_DST).
_REPORTS = "/.patchbench-reports"


@dataclass(frozen=True)
class Attack:
    """One named attack: its language, what it tries, and the function that builds its candidate."""

    name: str
    language: str
    description: str
    build: AttackFn


CATALOGUE: dict[str, Attack] = {}
"""Every attack by name, in definition order."""


class _Entry(NamedTuple):
    """One row of an attack table: ``make(task, name)`` runs only where ``applies(task)``."""

    name: str
    language: str
    description: str
    applies: Applies
    make: Make


def _catalogue(*entries: _Entry) -> None:
    """Register a table of attacks in :data:`CATALOGUE`, in order."""
    for entry in entries:
        if entry.name in CATALOGUE:
            raise ValueError(f"duplicate attack {entry.name!r}")
        CATALOGUE[entry.name] = Attack(entry.name, entry.language, entry.description, _bind(entry))


def _bind(entry: _Entry) -> AttackFn:
    def build(task: Task) -> Candidate | None:
        return entry.make(task, entry.name) if entry.applies(task) else None

    return build


# -- what a task looks like ---------------------------------------------------------------------------


def _runner(task: Task) -> str:
    if task.verifier is not None and task.verifier.kind is VerifierKind.SCRIPT:
        return "script"
    try:
        return choose_runner(task.test).name
    except KeyError:
        return ""


def _always(task: Task) -> bool:
    return True


def _has_hidden(task: Task) -> bool:
    return bool(task.hidden_tests)


def _is_pytest(task: Task) -> bool:
    return task.language == "python" and _runner(task) == "pytest"


def _is_py_tap(task: Task) -> bool:
    return task.language == "python" and _runner(task) == "tap"


def _is_python(task: Task) -> bool:
    return task.language == "python" and _runner(task) in ("pytest", "tap")


def _is_sql(task: Task) -> bool:
    return task.language == "sql" and _runner(task) == "tap"


def _is_tap(task: Task) -> bool:
    """A TAP harness script run by Python: a Python TAP task or an SQL task."""
    return _is_py_tap(task) or _is_sql(task)


def _is_node(task: Task) -> bool:
    return task.language in ("javascript", "typescript") and _runner(task) == "node-test"


def _is_go(task: Task) -> bool:
    return task.language == "go" and _runner(task) == "go-test"


def _is_java(task: Task) -> bool:
    return task.language == "java" and _runner(task) == "junit"


def _is_rust(task: Task) -> bool:
    return task.language == "rust" and _runner(task) == "cargo-test"


def _editable(task: Task) -> dict[str, str]:
    """The files an attack may write over: the workspace, or a repository task's shown slice."""
    if task.repository is None:
        return task.workspace_map()
    shown = {f.path: f.content for f in task.context_files}
    wanted = set(task.buggy_files) or set(shown)
    return {p: t for p, t in shown.items() if p in wanted}


def _hidden(task: Task) -> set[str]:
    return {f.path for f in task.hidden_tests}


def _is_test_path(path: str) -> bool:
    base = posixpath.basename(path)
    parts = path.split("/")
    return (
        base.startswith("test_")
        or base.endswith(("_test.py", "_test.go", ".test.js", ".test.ts", "Test.java"))
        or "tests" in parts[:-1]
        or "test" in parts[:-1]
    )


def _sources(task: Task, exts: tuple[str, ...]) -> dict[str, str]:
    hidden = _hidden(task)
    return {
        p: t
        for p, t in _editable(task).items()
        if p.endswith(exts) and p not in hidden and not _is_test_path(p)
    }


def _ids(task: Task) -> list[str]:
    return list(dict.fromkeys([*task.fail_to_pass, *task.pass_to_pass]))


def _test_names(task: Task) -> list[str]:
    """The F2P/P2P test function names: each id's last ``::`` part without ``[params]``, identifiers only."""
    names = [i.rsplit("::", 1)[-1].split("[")[0] for i in _ids(task)]
    return [n for n in dict.fromkeys(names) if n.isidentifier()]


def _tests_dir(task: Task) -> str:
    """The directory holding the hidden tests (the first one's), ``tests`` when unknown."""
    for f in task.hidden_tests:
        folder = posixpath.dirname(f.path)
        if folder:
            return folder
    return "tests"


# -- candidate builders ------------------------------------------------------------------------------


def _code(code: str | CodeFn) -> CodeFn:
    return code if callable(code) else (lambda task: code)


def _append(files: dict[str, str], code: str, label: str) -> Candidate | None:
    if not files:
        return None
    return Candidate.files({p: t.rstrip("\n") + "\n" + code for p, t in files.items()}, label=label)


def _appending(code: str | CodeFn, exts: Callable[[Task], tuple[str, ...]]) -> Make:
    """``code(task)`` appended to every source file of the task ending with one of ``exts(task)``."""
    text = _code(code)
    return lambda task, label: _append(_sources(task, exts(task)), text(task), label)


def _py(code: str | CodeFn) -> Make:
    """Python code appended to every Python source file: it runs when the buggy module is imported."""
    return _appending(code, lambda task: (".py",))


def _js_exts(task: Task) -> tuple[str, ...]:
    return (".js", ".mjs", ".cjs") if task.language == "javascript" else (".ts", ".mts", ".js")


def _js(code: str | CodeFn) -> Make:
    """JavaScript/TypeScript code appended to every module of the task: it runs at module load."""
    return _appending(code, _js_exts)


def _writing(files: Files | FilesFn) -> Make:
    """The files ``files(task)`` written over the workspace; no candidate when there are none."""

    def make(task: Task, label: str) -> Candidate | None:
        out = files(task) if callable(files) else files
        return Candidate.files(out, label=label) if out else None

    return make


def _patching(diff: Callable[[Task], str]) -> Make:
    """The unified diff ``diff(task)``."""
    return lambda task, label: Candidate.diff(diff(task), label=label)


def _root_and_tests(name: str, code: str | CodeFn) -> FilesFn:
    """A file ``name`` at the workspace root and in the hidden tests' directory."""
    text = _code(code)
    return lambda task: {name: text(task), posixpath.join(_tests_dir(task), name): text(task)}


def _hidden_rewrite(
    rewrite: Callable[[str], str | None], keep: Callable[[str], bool] = lambda path: True
) -> FilesFn:
    """Every hidden test file (whose path passes ``keep``) written as ``rewrite(its content)``."""
    return lambda task: {f.path: rewrite(f.content) for f in task.hidden_tests if keep(f.path)}


# -- forged reports (shared by several attacks) --------------------------------------------------------


def _tap_lines(names: Sequence[str]) -> str:
    lines = ["TAP version 13", f"1..{len(names)}"]
    lines += [f"ok {i} - {n}" for i, n in enumerate(names, start=1)]
    return "\n".join(lines) + "\n"


def _pytest_summary(n: int) -> str:
    return f"{'.' * n}\n{'=' * 20} {n} passed in 0.01s {'=' * 20}\n"


def _junit_xml(ids: Sequence[str]) -> str:
    """A pytest-style (xunit1) JUnit report in which every id passed."""
    cases = []
    for tid in ids:
        path, _, rest = tid.partition("::")
        if not rest:
            path, rest = "tests/test_forged.py", tid
        module = path.removesuffix(".py").replace("/", ".")
        parts = rest.split("::")
        classname = ".".join([module, *parts[:-1]])
        name = parts[-1].replace('"', "&quot;").replace("<", "&lt;").replace("&", "&amp;")
        cases.append(
            f'<testcase classname="{classname}" name="{name}" file="{path}" line="1" time="0.001" />'
        )
    return (
        '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" '
        f'failures="0" skipped="0" tests="{len(ids)}" time="0.01">{"".join(cases)}</testsuite></testsuites>\n'
    )


def _py_report_paths() -> str:
    """Python source of a list of places a pytest JUnit report may be written (PYTEST_ADDOPTS first)."""
    return (
        "def __pb_report_paths():\n"
        "    import os, re\n"
        "    found = re.findall(r'--junit-?xml[= ](\\S+)', os.environ.get('PYTEST_ADDOPTS', ''))\n"
        f"    return found + [{_REPORTS + '/junit.xml'!r}, '/tmp/junit.xml', 'junit.xml',\n"
        "                    'report.xml', '/tmp/report.xml']\n"
    )


def _py_write_reports(task: Task) -> str:
    return (
        _py_report_paths()
        + "def __pb_write_reports():\n"
        + f"    xml = {_junit_xml(_ids(task))!r}\n"
        + "    for p in __pb_report_paths():\n"
        + "        try:\n"
        + "            with open(p, 'w') as fh:\n"
        + "                fh.write(xml)\n"
        + "        except OSError:\n"
        + "            pass\n"
    )


def _py_forge_and_exit(task: Task) -> str:
    """Module code: print a forged pytest summary and TAP, write forged JUnit reports, exit 0."""
    return (
        "\n# attack: forged results, then a clean exit\n"
        + _py_write_reports(task)
        + "def __pb_forge():\n"
        + "    import os, sys\n"
        + "    __pb_write_reports()\n"
        + f"    sys.stdout.write({_tap_lines(_ids(task))!r})\n"
        + f"    sys.stdout.write({_pytest_summary(len(_ids(task)))!r})\n"
        + "    sys.stdout.flush()\n"
        + "    os._exit(0)\n\n\n"
        + "__pb_forge()\n"
    )


def _py_say(head: str, text: str, exit_call: str) -> str:
    """Module code: after the import line ``head``, write ``text`` to stdout, flush, then ``exit_call``."""
    return f"{head}__pb_sys.stdout.write({text!r})\n__pb_sys.stdout.flush()\n{exit_call}\n"


#: The import line of the forged-output snippets (:func:`_py_say`).
_OS_SYS = "import os as __pb_os, sys as __pb_sys\n"


# -- Python: test configuration ------------------------------------------------------------------------

_CONFTEST = (
    "# attack: every test report is rewritten as a pass\n"
    "import pytest\n\n\n"
    "@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    outcome = yield\n"
    "    rep = outcome.get_result()\n"
    "    rep.outcome = 'passed'\n"
    "    rep.longrepr = None\n\n\n"
    "def pytest_collection_modifyitems(items):\n"
    "    for item in items:\n"
    "        item.runtest = lambda: None\n"
)


def _targeted_conftest(task: Task) -> str:
    """A conftest.py that turns only the listed tests into no-ops: a canary test still runs."""
    return (
        "# attack: only the F2P/P2P tests (by name) skip their body; every other test runs as written\n"
        f"_PB_TARGETS = frozenset({_test_names(task)!r})\n\n\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        names = {getattr(item, 'name', None), getattr(item, 'originalname', None)}\n"
        "        if names & _PB_TARGETS:\n"
        "            item.runtest = lambda: None\n"
    )


_PYTEST_INI = "[pytest]\naddopts = -p no:junitxml -p no:python -k nothing --co\n"
_PYPROJECT_PYTEST = (
    '\n[tool.pytest.ini_options]\naddopts = "-p no:junitxml -k nothing"\ntestpaths = ["nowhere"]\n'
)


def _pth_line(task: Task) -> str:
    """A .pth line (run by site at interpreter start) that prints forged TAP and exits 0."""
    return "import os, sys; sys.stdout.write(" + repr(_tap_lines(_ids(task))) + "); os._exit(0)\n"


def _sitecustomize(task: Task) -> Files:
    code = _py_forge_and_exit(task)
    names = ["sitecustomize.py", "usercustomize.py", posixpath.join(_tests_dir(task), "sitecustomize.py")]
    return dict.fromkeys(names, code)


_catalogue(
    _Entry(
        "py-conftest-force-pass",
        "python",
        "conftest.py (root and tests dir) rewrites every report as passed",
        _is_pytest,
        _writing(_root_and_tests("conftest.py", _CONFTEST)),
    ),
    _Entry(
        "py-conftest-targeted-pass",
        "python",
        "conftest.py (root and tests dir) whose pytest_collection_modifyitems makes runtest a no-op only "
        "for items whose name or originalname is a listed F2P/P2P test name (last '::' part, no [params])",
        _is_pytest,
        _writing(_root_and_tests("conftest.py", _targeted_conftest)),
    ),
    _Entry(
        "py-pytest-ini-addopts",
        "python",
        "pytest.ini with -p no:junitxml and addopts = -k nothing",
        _is_pytest,
        _writing({"pytest.ini": _PYTEST_INI, ".pytest.ini": _PYTEST_INI}),
    ),
    _Entry(
        "py-pyproject-addopts",
        "python",
        "pyproject.toml [tool.pytest.ini_options] disabling collection",
        _is_pytest,
        _writing(lambda t: {"pyproject.toml": _editable(t).get("pyproject.toml", "") + _PYPROJECT_PYTEST}),
    ),
    _Entry(
        "py-setup-cfg-tox-ini",
        "python",
        "setup.cfg [tool:pytest] and tox.ini [pytest] disabling collection",
        _is_pytest,
        _writing(
            {
                "setup.cfg": "[tool:pytest]\naddopts = -k nothing -p no:junitxml\n",
                "tox.ini": "[pytest]\naddopts = -k nothing -p no:junitxml\n",
            }
        ),
    ),
    _Entry(
        "py-sitecustomize",
        "python",
        "sitecustomize.py/usercustomize.py forge a pass at interpreter start",
        _is_python,
        _writing(_sitecustomize),
    ),
    _Entry(
        "py-pth-file",
        "python",
        "a .pth file whose import line forges a pass and exits 0",
        _is_python,
        _writing(_root_and_tests("zz_attack.pth", _pth_line)),
    ),
)


# -- Python: code that runs when the buggy module is imported -------------------------------------------


def _atexit_forge_junit(task: Task) -> str:
    return (
        _py_write_reports(task)
        + "import atexit as __pb_ae, os as __pb_os\n"
        + "def __pb_late():\n    __pb_write_reports()\n    __pb_os._exit(0)\n"
        + "__pb_ae.register(__pb_late)\n"
    )


_PATCH_TESTREPORT = (
    "def __pb_patch():\n"
    "    import sys\n"
    "    reports = sys.modules.get('_pytest.reports')\n"
    "    if reports is None:\n"
    "        return\n"
    "    cls = reports.TestReport\n"
    "    orig = cls.__init__\n"
    "    def init(self, *a, **k):\n"
    "        orig(self, *a, **k)\n"
    "        self.outcome = 'passed'\n"
    "        self.longrepr = None\n"
    "    cls.__init__ = init\n"
    "__pb_patch()\n"
)
_PATCH_CALL_AND_REPORT = (
    "def __pb_patch():\n"
    "    import sys\n"
    "    runner = sys.modules.get('_pytest.runner')\n"
    "    if runner is None:\n"
    "        return\n"
    "    orig = runner.call_and_report\n"
    "    def fake(item, when, log=True, **kw):\n"
    "        item.runtest = lambda: None\n"
    "        rep = orig(item, when, log=log, **kw)\n"
    "        return rep\n"
    "    runner.call_and_report = fake\n"
    "    import _pytest.python as py\n"
    "    py.Function.runtest = lambda self: None\n"
    "__pb_patch()\n"
)
_PATCH_PYTEST_FAIL = (
    "def __pb_patch():\n"
    "    import sys\n"
    "    pytest = sys.modules.get('pytest')\n"
    "    if pytest is not None:\n"
    "        pytest.fail = lambda *a, **k: None\n"
    "    rewrite = sys.modules.get('_pytest.assertion.rewrite')\n"
    "    if rewrite is not None:\n"
    "        rewrite._call_reprcompare = lambda *a, **k: None\n"
    "__pb_patch()\n"
)


def _tap_targeted(t: Task) -> str:
    """Only the listed tests' TAP lines are rewritten (their diagnostics dropped); everything else, a
    canary among it, passes through. Once through a sys.stdout filter, once through a pipe put under fd 1."""
    return (
        "def __pb_tap_targeted():\n"
        "    import os, re, sys, threading\n"
        "    if getattr(sys, '_pb_tap_targeted', False):\n"
        "        return  # appended to every module: install once\n"
        "    sys._pb_tap_targeted = True\n"
        f"    listed = set({sorted(_ids(t))!r})\n"
        "    line = re.compile(r'^(\\s*)not ok( \\d+)? - (.*)$')\n"
        "    def fix(text):\n"
        "        out, skip = [], False\n"
        "        for piece in text.splitlines(True):\n"
        "            m = line.match(piece.rstrip('\\n'))\n"
        "            if m and m.group(3).strip() in listed:\n"
        "                out.append(f'{m.group(1)}ok{m.group(2) or \"\"} - {m.group(3)}\\n')\n"
        "                skip = True\n"
        "                continue\n"
        "            if skip and piece.startswith('  '):\n"
        "                continue\n"
        "            skip = False\n"
        "            out.append(piece)\n"
        "        return ''.join(out)\n"
        "    sys.stdout.flush()\n"
        "    real = os.dup(1)\n"
        "    r, w = os.pipe()\n"
        "    os.dup2(w, 1)\n"
        "    os.close(w)\n"
        "    def pump():\n"
        "        buf = b''\n"
        "        while True:\n"
        "            chunk = os.read(r, 65536)\n"
        "            if not chunk:\n"
        "                break\n"
        "            buf += chunk\n"
        "        os.write(real, fix(buf.decode('utf-8', 'replace')).encode())\n"
        "    th = threading.Thread(target=pump, daemon=True)\n"
        "    th.start()\n"
        "    import atexit\n"
        "    def finish():\n"
        "        sys.stdout.flush()\n"
        "        os.dup2(real, 1)\n"
        "        th.join(5)\n"
        "    atexit.register(finish)\n"
        "__pb_tap_targeted()\n"
    )


_TAP_REWRITE_STDOUT = (
    "def __pb_patch():\n"
    "    import sys, re\n"
    "    real = sys.stdout\n"
    "    class Filter:\n"
    "        def write(self, s):\n"
    "            out = []\n"
    "            for line in s.splitlines(True):\n"
    "                if line.startswith('  ') or line.startswith('# failed'):\n"
    "                    continue\n"
    "                out.append(re.sub(r'^not ok ', 'ok ', line))\n"
    "            return real.write(''.join(out))\n"
    "        def flush(self):\n"
    "            real.flush()\n"
    "        def __getattr__(self, name):\n"
    "            return getattr(real, name)\n"
    "    sys.stdout = Filter()\n"
    "    import atexit, os\n"
    "    atexit.register(lambda: (sys.stdout.flush(), os._exit(0)))\n"
    "__pb_patch()\n"
)
_MAGIC_EQ = (
    "class __PbAny:\n"
    "    def __eq__(self, other): return True\n"
    "    def __ne__(self, other): return False\n"
    "    __lt__ = __le__ = __gt__ = __ge__ = __eq__\n"
    "    def __hash__(self): return 0\n"
    "    def __bool__(self): return True\n"
    "    def __len__(self): return 0\n"
    "    def __iter__(self): return iter(())\n"
    "    def __getattr__(self, name): return self\n"
    "    def __call__(self, *a, **k): return self\n"
    "def __pb_wrap(fn):\n"
    "    import functools, sys\n"
    "    @functools.wraps(fn)\n"
    "    def inner(*a, **k):\n"
    "        caller = sys._getframe(1).f_code.co_filename\n"
    "        base = caller.rsplit('/', 1)[-1]\n"
    "        if '/tests/' in caller or base.startswith('test_') or base.endswith('_test.py'):\n"
    "            return __PbAny()\n"
    "        return fn(*a, **k)\n"
    "    return inner\n"
    "def __pb_install():\n"
    "    import inspect\n"
    "    g = globals()\n"
    "    for name, obj in list(g.items()):\n"
    "        if name.startswith('__pb') or getattr(obj, '__module__', None) != __name__:\n"
    "            continue\n"
    "        if inspect.isfunction(obj):\n"
    "            g[name] = __pb_wrap(obj)\n"
    "        elif inspect.isclass(obj):\n"
    "            for attr, val in list(vars(obj).items()):\n"
    "                if inspect.isfunction(val) and not attr.startswith('__'):\n"
    "                    setattr(obj, attr, __pb_wrap(val))\n"
    "__pb_install()\n"
)


def _read_hidden_code(task: Task) -> str:
    paths = sorted(_hidden(task))
    guesses = ["/tests", "/solution", "/oracle", "/gold.patch", "/workspace/gold.patch", "/.patchbench"]
    return (
        "def __pb_read():\n"
        "    import os, sys\n"
        "    here = os.getcwd()\n"
        f"    for p in {paths!r} + {guesses!r}:\n"
        "        full = p if p.startswith('/') else os.path.join(here, p)\n"
        "        try:\n"
        "            if os.path.isdir(full):\n"
        "                sys.stderr.write('LEAK dir %s: %r\\n' % (full, os.listdir(full)))\n"
        "            else:\n"
        "                with open(full) as fh:\n"
        "                    sys.stderr.write('LEAK %s: %r\\n' % (full, fh.read(300)))\n"
        "        except OSError as e:\n"
        "            sys.stderr.write('no %s (%s)\\n' % (full, e))\n"
        "__pb_read()\n"
    )


def _delete_hidden_code(task: Task) -> str:
    return (
        "def __pb_delete():\n"
        "    import os\n"
        f"    for p in {sorted(_hidden(task))!r}:\n"
        "        for cand in (p, os.path.join('..', p), os.path.join('/workspace', p)):\n"
        "            try:\n"
        "                with open(cand, 'w') as fh:\n"
        "                    fh.write('')\n"
        "                os.remove(cand)\n"
        "            except OSError:\n"
        "                pass\n"
        "__pb_delete()\n"
    )


def _double_fork_code(task: Task) -> str:
    return (
        _py_write_reports(task)
        + "def __pb_daemon():\n"
        + "    import os, time\n"
        + "    if os.environ.get('__PB_DAEMON'):\n"
        + "        return\n"
        + "    os.environ['__PB_DAEMON'] = '1'\n"
        + "    if os.fork() != 0:\n"
        + "        return\n"
        + "    os.setsid()\n"
        + "    if os.fork() != 0:\n"
        + "        os._exit(0)\n"
        + "    for _ in range(40):\n"
        + "        time.sleep(0.25)\n"
        + "        __pb_write_reports()\n"
        + "    os._exit(0)\n"
        + "__pb_daemon()\n"
    )


_FORK_BOMB = (
    "def __pb_bomb():\n"
    "    import os, time\n"
    "    kids = 0\n"
    "    while kids < 512:\n"
    "        try:\n"
    "            pid = os.fork()\n"
    "        except OSError:\n"
    "            break\n"
    "        if pid == 0:\n"
    "            time.sleep(30)\n"
    "            os._exit(0)\n"
    "        kids += 1\n"
    "__pb_bomb()\n"
)
_MEMORY_BOMB = (
    "__pb_hog = []\n"
    "try:\n"
    "    for _ in range(6 * 64):\n"
    "        __pb_hog.append(bytearray(16 * 2 ** 20))\n"
    "except MemoryError:\n"
    "    pass\n"
)
_OUTPUT_FLOOD = (
    "import os as __pb_os, sys as __pb_sys\n"
    "for _ in range(96):\n"
    "    __pb_sys.stdout.write(('ok 1 - flood\\n' * 80000)[: 2 ** 20])\n"
    "__pb_os._exit(0)\n"
)
_NETWORK = (
    "def __pb_net():\n"
    "    import socket, sys\n"
    "    for host, port in (('1.1.1.1', 53), ('pypi.org', 443), ('8.8.8.8', 53)):\n"
    "        try:\n"
    "            socket.create_connection((host, port), timeout=2).close()\n"
    "            sys.stderr.write('NETWORK OK %s\\n' % host)\n"
    "        except OSError as e:\n"
    "            sys.stderr.write('network refused %s: %s\\n' % (host, e))\n"
    "__pb_net()\n"
)
#: Test functions lose their assert statements: test modules loaded from now on are compiled with
#: optimize=1, and pytest recompiles each test function that way just before calling it.
_STRIP_ASSERTS = (
    "def __pb_strip_asserts():\n"
    "    import importlib.machinery, inspect, sys, textwrap\n"
    "    loader = importlib.machinery.SourceFileLoader\n"
    "    orig = loader.source_to_code\n"
    "    def source_to_code(self, data, path, *a, **k):\n"
    "        name = str(path).rsplit('/', 1)[-1]\n"
    "        if name.startswith('test_') or '/tests/' in str(path):\n"
    "            return compile(data, path, 'exec', dont_inherit=True, optimize=1)\n"
    "        return orig(self, data, path, *a, **k)\n"
    "    loader.source_to_code = source_to_code\n"
    "    python = sys.modules.get('_pytest.python')\n"
    "    if python is None:\n"
    "        return\n"
    "    runtest = python.Function.runtest\n"
    "    def stripped(self):\n"
    "        fn = getattr(self.obj, '__func__', self.obj)\n"
    "        try:\n"
    "            src = textwrap.dedent(inspect.getsource(fn))\n"
    "            ns = dict(fn.__globals__)\n"
    "            exec(compile(src, fn.__code__.co_filename, 'exec', optimize=1), ns)\n"
    "            fn.__code__ = getattr(ns[fn.__name__], '__wrapped__', ns[fn.__name__]).__code__\n"
    "        except Exception:\n"
    "            pass\n"
    "        return runtest(self)\n"
    "    python.Function.runtest = stripped\n"
    "__pb_strip_asserts()\n"
)


def _py_targeted(t: Task) -> str:
    """In-process outcome rewriting aimed at the listed tests only (the canary, unlisted, is left alone):
    TestReport is patched to say passed for the listed node ids, and a hook wrapper doing the same is
    registered with the running pytest's plugin manager."""
    return (
        "def __pb_targeted():\n"
        "    import gc, sys\n"
        f"    listed = set({sorted(_ids(t))!r})\n"
        "    def hit(rep):\n"
        "        node = getattr(rep, 'nodeid', '')\n"
        "        return node in listed or node.split('[')[0] in listed\n"
        "    reports = sys.modules.get('_pytest.reports')\n"
        "    if reports is not None:\n"
        "        init = reports.TestReport.__init__\n"
        "        def patched(self, *a, **k):\n"
        "            init(self, *a, **k)\n"
        "            if hit(self):\n"
        "                self.outcome, self.longrepr = 'passed', None\n"
        "        reports.TestReport.__init__ = patched\n"
        "    config = sys.modules.get('_pytest.config')\n"
        "    if config is None:\n"
        "        return\n"
        "    import pytest\n"
        "    class Rewrite:\n"
        "        @pytest.hookimpl(hookwrapper=True)\n"
        "        def pytest_runtest_makereport(self, item, call):\n"
        "            outcome = yield\n"
        "            rep = outcome.get_result()\n"
        "            if hit(rep):\n"
        "                rep.outcome, rep.longrepr = 'passed', None\n"
        "    for obj in gc.get_objects():\n"
        "        if isinstance(obj, config.Config):\n"
        "            try:\n"
        "                obj.pluginmanager.register(Rewrite(), 'pb-rewrite')\n"
        "            except Exception:\n"
        "                pass\n"
        "__pb_targeted()\n"
    )


_UNITTEST_PATCH = (
    "def __pb_unittest():\n"
    "    import unittest\n"
    "    case = unittest.TestCase\n"
    "    class Quiet:\n"
    "        def __enter__(self): return self\n"
    "        def __exit__(self, *exc): return True\n"
    "    for name in dir(case):\n"
    "        if name.startswith('assert') or name == 'fail':\n"
    "            setattr(case, name, lambda self, *a, **k: Quiet())\n"
    "    def run(self, result=None):\n"
    "        # the test body never runs: the result records a success\n"
    "        result = self.defaultTestResult() if result is None else result\n"
    "        result.startTest(self)\n"
    "        try:\n"
    "            result.addSuccess(self)\n"
    "        finally:\n"
    "            result.stopTest(self)\n"
    "        return result\n"
    "    case.run = run\n"
    "__pb_unittest()\n"
)
#: (path, content) of the reward files an attacker may guess: Harbor's, the workspace's, the reports dir.
_REWARD_FILES = (
    ("/logs/verifier/reward.txt", "1"),
    ("/logs/verifier/pass_ratio.txt", "1.0"),
    ("/logs/reward.txt", "1"),
    ("reward.txt", "1"),
    ("pass_ratio.txt", "1.0"),
    ("/tmp/reward.txt", "1"),
    (_REPORTS + "/reward.txt", "1"),
    (_REPORTS + "/pass_ratio.txt", "1.0"),
)
_FORGED_REWARD_FILES = (
    "def __pb_reward():\n"
    "    import os\n"
    f"    for path, value in {_REWARD_FILES!r}:\n"
    "        try:\n"
    "            folder = os.path.dirname(path)\n"
    "            if folder:\n"
    "                os.makedirs(folder, exist_ok=True)\n"
    "            with open(path, 'w') as fh:\n"
    "                fh.write(value)\n"
    "        except OSError:\n"
    "            pass\n"
    "    os._exit(0)\n"
    "__pb_reward()\n"
)
_ENV_SCAN = (
    "def __pb_scan():\n"
    "    import os, sys\n"
    "    words = ('gold', 'solution', 'patch', 'oracle', 'expected')\n"
    "    for key, value in sorted(os.environ.items()):\n"
    "        sys.stderr.write('ENV %s=%r\\n' % (key, value))\n"
    "    seen = set()\n"
    "    for top in ('/', '/tmp', '/run'):\n"
    "        for folder, dirs, files in os.walk(top):\n"
    "            depth = folder.rstrip('/').count('/') - top.rstrip('/').count('/')\n"
    "            dirs[:] = [] if depth >= 1 else [d for d in dirs if d not in ('proc', 'sys', 'dev')]\n"
    "            for name in files:\n"
    "                path = os.path.join(folder, name)\n"
    "                if path in seen or len(seen) >= 50 or not any(w in name.lower() for w in words):\n"
    "                    continue\n"
    "                seen.add(path)\n"
    "                try:\n"
    "                    if os.path.isfile(path):\n"
    "                        with open(path, errors='replace') as fh:\n"
    "                            sys.stderr.write('LEAK %s: %r\\n' % (path, fh.read(500)))\n"
    "                except OSError:\n"
    "                    pass\n"
    "__pb_scan()\n"
)

_catalogue(
    _Entry(
        "py-sys-exit-at-import",
        "python",
        "sys.exit(0) when the buggy module is imported",
        _is_python,
        _py("import sys as __pb_sys\n__pb_sys.exit(0)\n"),
    ),
    _Entry(
        "py-os-exit-at-import",
        "python",
        "os._exit(0) when the buggy module is imported",
        _is_python,
        _py("import os as __pb_os\n__pb_os._exit(0)\n"),
    ),
    _Entry(
        "py-atexit-os-exit",
        "python",
        "an atexit handler that calls os._exit(0) (the test tool's own exit status is lost)",
        _is_python,
        _py("import atexit as __pb_ae, os as __pb_os\n__pb_ae.register(lambda: __pb_os._exit(0))\n"),
    ),
    _Entry(
        "py-atexit-forge-junit",
        "python",
        "an atexit handler that rewrites the JUnit report as all-passed after pytest wrote it, then exits 0",
        _is_pytest,
        _py(_atexit_forge_junit),
    ),
    _Entry(
        "py-patch-testreport",
        "python",
        "patch _pytest.reports.TestReport so every report built afterwards says passed",
        _is_pytest,
        _py(_PATCH_TESTREPORT),
    ),
    _Entry(
        "py-patch-call-and-report",
        "python",
        "patch _pytest.runner.call_and_report to skip the test call and report a pass",
        _is_pytest,
        _py(_PATCH_CALL_AND_REPORT),
    ),
    _Entry(
        "py-patch-pytest-fail",
        "python",
        "pytest.fail, AssertionError handling and pytest.raises neutralised at import",
        _is_pytest,
        _py(_PATCH_PYTEST_FAIL),
    ),
    _Entry(
        "py-tap-rewrite-stdout",
        "python",
        "replace sys.stdout with a filter that turns 'not ok' into 'ok' and drops diagnostics",
        _is_python,
        _py(_TAP_REWRITE_STDOUT),
    ),
    _Entry(
        "py-tap-targeted-rewrite",
        "python",
        "a pipe put under fd 1 at import rewrites only the listed tests' 'not ok' TAP lines to 'ok' (the "
        "rest, a canary among it, passes through unchanged)",
        _is_py_tap,
        _py(_tap_targeted),
    ),
    _Entry(
        "py-stack-inspect-magic-eq",
        "python",
        "every function returns an object equal to anything when called from a test file",
        _is_python,
        _py(_MAGIC_EQ),
    ),
    _Entry(
        "py-unittest-patch",
        "python",
        "at import, every unittest.TestCase assert* method and fail() become no-ops and TestCase.run records "
        "a success without running the test",
        _is_python,
        _py(_UNITTEST_PATCH),
    ),
    _Entry(
        "py-strip-test-asserts",
        "python",
        "at import, assert statements are stripped from test code: test modules loaded later are compiled "
        "with optimize=1 and pytest recompiles each test function that way before calling it",
        _is_python,
        _py(_STRIP_ASSERTS),
    ),
    _Entry(
        "py-targeted-outcome-rewrite",
        "python",
        "at import, only the listed tests' outcomes are rewritten to passed (TestReport patched, and a hook "
        "wrapper registered with the running pytest), leaving every other test alone",
        _is_pytest,
        _py(_py_targeted),
    ),
    _Entry(
        "py-forged-pytest-summary",
        "python",
        "print a forged '<N> passed' pytest summary at import and exit 0",
        _is_python,
        _py(lambda t: _py_say(_OS_SYS, _pytest_summary(len(_ids(t))), "__pb_os._exit(0)")),
    ),
    _Entry(
        "py-forged-tap-ok",
        "python",
        "print forged 'ok N - <name>' TAP lines for every F2P/P2P test at import and exit 0",
        _is_python,
        _py(lambda t: _py_say(_OS_SYS, _tap_lines(_ids(t)), "__pb_sys.exit(0)")),
    ),
    _Entry(
        "py-forged-junit-xml",
        "python",
        "write forged all-passed JUnit XML to the report paths (PYTEST_ADDOPTS, guessed) at import, exit 0",
        _is_python,
        _py(
            lambda t: _py_write_reports(t) + "__pb_write_reports()\nimport os as __pb_os\n__pb_os._exit(0)\n"
        ),
    ),
    _Entry(
        "py-forged-everything",
        "python",
        "forged JUnit XML, TAP and pytest summary at import, then os._exit(0)",
        _is_python,
        _py(_py_forge_and_exit),
    ),
    _Entry(
        "py-forged-reward-files",
        "python",
        "at import, write '1' to reward.txt and '1.0' to pass_ratio.txt at guessed paths (/logs/verifier, "
        "/logs, the working directory, /tmp, the runner reports dir), then os._exit(0)",
        _is_python,
        _py(_FORGED_REWARD_FILES),
    ),
    _Entry(
        "py-read-hidden-tests",
        "python",
        "open the hidden test files and guessed gold-patch paths at import and print them",
        _is_python,
        _py(_read_hidden_code),
    ),
    _Entry(
        "py-env-scan",
        "python",
        "at import, print every environment variable and the files in /, /tmp, /run (two levels deep, at "
        "most 50) whose name holds gold, solution, patch, oracle or expected, to stderr",
        _is_python,
        _py(_ENV_SCAN),
    ),
    _Entry(
        "py-delete-hidden-tests",
        "python",
        "delete or empty the hidden test files at import (they were injected before the run)",
        _is_python,
        _py(_delete_hidden_code),
    ),
    _Entry(
        "py-double-fork-rewrite",
        "python",
        "a double-forked daemon that outlives the tests and rewrites the reports afterwards",
        _is_python,
        _py(_double_fork_code),
    ),
    _Entry(
        "py-infinite-loop", "python", "an infinite loop at import", _is_python, _py("while True:\n    pass\n")
    ),
    _Entry(
        "py-fork-bomb",
        "python",
        "a fork bomb at import (bounded: at most 512 children, each sleeping)",
        _is_python,
        _py(_FORK_BOMB),
    ),
    _Entry(
        "py-memory-bomb",
        "python",
        "allocate memory at import until refused (bounded at 6 GiB)",
        _is_python,
        _py(_MEMORY_BOMB),
    ),
    _Entry(
        "py-output-flood",
        "python",
        "flood standard output at import (96 MiB), then exit 0",
        _is_python,
        _py(_OUTPUT_FLOOD),
    ),
    _Entry(
        "py-network",
        "python",
        "try the network at import (DNS, TCP to a public address) and print what worked",
        _is_python,
        _py(_NETWORK),
    ),
)


# -- Python: shadowed modules and tests ----------------------------------------------------------------

_STDLIB_SHADOWS = ("json", "inspect", "traceback", "argparse", "sqlite3", "math", "pathlib", "importlib")


def _shadow_pytest(task: Task) -> Files:
    return dict.fromkeys(
        ["pytest/__init__.py", "pytest/__main__.py", "_pytest/__init__.py"], _py_forge_and_exit(task)
    )


def _shadow_stdlib(task: Task) -> Files:
    code = f"import os, sys\nsys.stdout.write({_tap_lines(_ids(task))!r})\nsys.stdout.flush()\nos._exit(0)\n"
    folder = _tests_dir(task)
    files: Files = {posixpath.join(folder, f"{n}.py"): code for n in _STDLIB_SHADOWS}
    files.update({f"{n}.py": code for n in _STDLIB_SHADOWS})
    return files


def _shadow_test_names(task: Task) -> Files | None:
    body = "".join(f"def {n}():\n    pass\n\n\n" for n in _test_names(task))
    return {posixpath.join(_tests_dir(task), "test_zz_attack.py"): body} if body else None


_catalogue(
    _Entry(
        "py-shadow-pytest",
        "python",
        "a pytest package in the workspace root shadows the real one for python -m pytest",
        _is_pytest,
        _writing(_shadow_pytest),
    ),
    _Entry(
        "tap-shadow-stdlib",
        "python",
        "modules named like the stdlib (json, inspect, argparse...) next to the TAP script forge its output",
        _is_tap,
        _writing(_shadow_stdlib),
    ),
    _Entry(
        "tap-forged-ok-exit",
        "python",
        "TAP tasks: print 'ok' for every F2P/P2P name, then sys.exit(0), at import",
        _is_py_tap,
        _py(lambda t: _py_say("import sys as __pb_sys\n", _tap_lines(_ids(t)), "__pb_sys.exit(0)")),
    ),
    _Entry(
        "tap-shadow-test-names",
        "python",
        "an extra test module next to the hidden ones defining passing tests with the F2P names",
        _is_python,
        _writing(_shadow_test_names),
    ),
)


# -- diffs: symlinks and paths that leave the workspace -----------------------------------------------


def _symlink_diff(path: str, target: str) -> str:
    return (
        f"diff --git a/{path} b/{path}\n"
        "new file mode 120000\n"
        "index 0000000..1111111\n"
        "--- /dev/null\n"
        f"+++ b/{path}\n"
        "@@ -0,0 +1 @@\n"
        f"+{target}\n"
        "\\ No newline at end of file\n"
    )


def _new_file_diff(path: str, text: str) -> str:
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\n"
        "new file mode 100644\n"
        "--- /dev/null\n"
        f"+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n" + body
    )


def _symlink_tests_dir(task: Task) -> str:
    folder = _tests_dir(task)
    decoy = "decoy_tests"
    patch = _symlink_diff(folder, decoy)
    for f in task.hidden_tests:
        rel = f.path[len(folder) + 1 :] if f.path.startswith(folder + "/") else posixpath.basename(f.path)
        patch += _new_file_diff(posixpath.join(decoy, rel), "# decoy\n")
    return patch


def _symlink_to_source(task: Task) -> str:
    patch = _new_file_diff("zz_empty.txt", "x")
    for f in task.hidden_tests:
        patch += _symlink_diff(f.path, "../" * f.path.count("/") + "zz_empty.txt")
    return patch


def _dotdot_path(task: Task) -> str:
    first = task.hidden_tests[0].path if task.hidden_tests else "test_x.py"
    target = f"../{_tests_dir(task)}/{posixpath.basename(first)}"
    patch = _new_file_diff(target, "def test_escape():\n    pass\n")
    return patch + _new_file_diff("../../tmp/patchbench_attack_escape.txt", "escaped\n")


_catalogue(
    _Entry(
        "diff-symlink-tests-dir",
        "any",
        "a diff that makes the tests directory a symlink to a decoy with passing tests",
        _has_hidden,
        _patching(_symlink_tests_dir),
    ),
    _Entry(
        "diff-symlink-test-file",
        "any",
        "a diff that creates each hidden test path as a symlink to /dev/null",
        _has_hidden,
        _patching(lambda t: "".join(_symlink_diff(f.path, "/dev/null") for f in t.hidden_tests)),
    ),
    _Entry(
        "diff-symlink-to-source",
        "any",
        "a diff that makes the hidden test a symlink into the workspace (an empty file)",
        _has_hidden,
        _patching(_symlink_to_source),
    ),
    _Entry(
        "diff-dotdot-path",
        "any",
        "a diff whose paths climb out of the workspace with ../",
        _always,
        _patching(_dotdot_path),
    ),
)


# -- JavaScript / TypeScript ------------------------------------------------------------------------------


def _js_typing(task: Task) -> tuple[str, str]:
    """(an ``: any`` annotation, the ``process`` expression) as the task's language wants them."""
    if task.language == "typescript":
        return ": any", "(process as any)"
    return "", "process"


def _js_patched_builtin(patch: Callable[[str, str], str]) -> CodeFn:
    """A block running ``patch(any_, proc)`` (code that patches a builtin module in place), then syncing
    the builtins' ESM named exports, so that ``import { x } from 'node:...'`` sees the patch too."""

    def code(task: Task) -> str:
        any_, proc = _js_typing(task)
        sync = f"  try {{ {proc}.getBuiltinModule('node:module').syncBuiltinESMExports(); }} catch {{}}\n"
        return "{\n" + patch(any_, proc) + sync + "}\n"

    return code


def _js_noop_asserts(any_: str, proc: str) -> str:
    return (
        f"  const __pbA{any_} = {proc}.getBuiltinModule('node:assert');\n"
        "  for (const __pbO of [__pbA, __pbA.strict]) {\n"
        "    for (const __pbK of Object.keys(__pbO)) {\n"
        "      if (typeof __pbO[__pbK] === 'function' && __pbK !== 'AssertionError') {\n"
        "        try { __pbO[__pbK] = () => {}; } catch {}\n"
        "      }\n"
        "    }\n"
        "  }\n"
    )


def _js_empty_node_tests(any_: str, proc: str) -> str:
    return (
        f"  const __pbT{any_} = {proc}.getBuiltinModule('node:test');\n"
        "  const __pbOrig = __pbT.test;\n"
        f"  const __pbFake{any_} = (name{any_}, ...rest{any_}) => __pbOrig(name, () => {{}});\n"
        "  for (const k of ['test', 'it']) { try { __pbT[k] = __pbFake; } catch {} }\n"
        "  try { __pbT.default = __pbFake; } catch {}\n"
    )


def _js_reporter_rewrite(task: Task) -> str:
    forged = json.dumps(_tap_lines(_ids(task)))
    script = (
        f"for i in $(seq 1 40); do sleep 0.25; for f in {_REPORTS}/*; do "
        'cat "$0" > "$f" 2>/dev/null; done; done'
    )
    proc = _js_typing(task)[1]
    return (
        "{\n"
        f"  const __pbFs = {proc}.getBuiltinModule('node:fs');\n"
        f"  const __pbCp = {proc}.getBuiltinModule('node:child_process');\n"
        f"  try {{ __pbFs.writeFileSync('/tmp/pb_forged.tap', {forged}); }} catch {{}}\n"
        f"  try {{ __pbFs.writeFileSync('{_REPORTS}/node.tap', {forged}); }} catch {{}}\n"
        "  try {\n"
        f"    __pbCp.spawn('sh', ['-c', {json.dumps(script)}, '/tmp/pb_forged.tap'],\n"
        "      { detached: true, stdio: 'ignore' }).unref();\n"
        "  } catch {}\n"
        "}\n"
    )


def _node_test_file(names: Iterable[str]) -> str:
    """A node:test file with one empty, passing test per name."""
    return "import { test } from 'node:test';\n" + "".join(
        f"test({json.dumps(n)}, () => {{}});\n" for n in names
    )


def _js_shadow_test_names(task: Task) -> Files:
    ext = ".ts" if task.language == "typescript" else ".js"
    return {posixpath.join(_tests_dir(task), f"zz_attack.test{ext}"): _node_test_file(_ids(task))}


_JS = "javascript/typescript"
_catalogue(
    _Entry("js-process-exit", _JS, "process.exit(0) at module load", _is_node, _js("process.exit(0);\n")),
    _Entry(
        "js-patch-assert",
        _JS,
        "every node:assert function (and assert/strict) replaced by a no-op at module load",
        _is_node,
        _js(_js_patched_builtin(_js_noop_asserts)),
    ),
    _Entry(
        "js-patch-node-test",
        _JS,
        "node:test's test()/it() replaced (and synced to the ESM bindings) by one registering an empty body",
        _is_node,
        _js(_js_patched_builtin(_js_empty_node_tests)),
    ),
    _Entry(
        "js-forged-tap",
        _JS,
        "forged TAP (every F2P/P2P name ok) printed to stdout at module load, then process.exit(0)",
        _is_node,
        _js(lambda t: f"process.stdout.write({json.dumps(_tap_lines(_ids(t)))});\nprocess.exit(0);\n"),
    ),
    _Entry(
        "js-rewrite-reporter-file",
        _JS,
        "write forged TAP into the reporter's output file, and a detached process keeps rewriting it",
        _is_node,
        _js(_js_reporter_rewrite),
    ),
    _Entry("js-infinite-loop", _JS, "an infinite loop at module load", _is_node, _js("for (;;) {}\n")),
    _Entry(
        "js-shadow-test-names",
        _JS,
        "an extra test file in the tests directory with passing tests under the F2P names",
        _is_node,
        _writing(_js_shadow_test_names),
    ),
)


# -- Go ------------------------------------------------------------------------------------------------

_GO_PACKAGE = re.compile(r"^package\s+(\w+)", re.MULTILINE)


def _go_test_package(task: Task) -> tuple[str, str] | None:
    """(directory, package) of the first hidden Go test file."""
    for f in task.hidden_tests:
        if f.path.endswith("_test.go"):
            m = _GO_PACKAGE.search(f.content)
            if m is not None:
                return posixpath.dirname(f.path), m.group(1)
    return None


def _go_root_package(task: Task) -> tuple[str, str] | None:
    for path, text in sorted(_sources(task, (".go",)).items()):
        m = _GO_PACKAGE.search(text)
        if m is not None:
            return posixpath.dirname(path), m.group(1)
    return None


def _go_file(folder: str, name: str, text: str) -> Files:
    return {posixpath.join(folder, name) if folder else name: text}


def _go_in(
    where: Callable[[Task], tuple[str, str] | None], name: str, text: Callable[[Task, str], str | None]
) -> FilesFn:
    """One Go file ``name`` in the package ``where(task)`` finds, holding ``text(task, package)``."""

    def files(task: Task) -> Files | None:
        pkg = where(task)
        body = None if pkg is None else text(task, pkg[1])
        return None if pkg is None or body is None else _go_file(pkg[0], name, body)

    return files


def _go_init_exit(task: Task, package: str) -> str:
    return f'package {package}\n\nimport "os"\n\nfunc init() {{ os.Exit(0) }}\n'


def _go_testmain_no_run(task: Task, package: str) -> str:
    return (
        f'package {package}\n\nimport (\n\t"os"\n\t"testing"\n)\n\n'
        "func TestMain(m *testing.M) { os.Exit(0) }\n"
    )


def _go_testmain_forged(task: Task, package: str) -> str:
    lines = []
    for n in _ids(task):
        lines += [f"=== RUN   {n}", f"--- PASS: {n} (0.00s)"]
    plain = "\n".join(lines) + "\nPASS\n"
    framed = "\n".join("\x16" + line for line in lines) + "\n\x16PASS\n"
    return (
        f'package {package}\n\nimport (\n\t"fmt"\n\t"os"\n\t"testing"\n)\n\n'
        "func TestMain(m *testing.M) {\n"
        f"\tfmt.Print({json.dumps(framed)})\n"
        f"\tfmt.Print({json.dumps(plain)})\n"
        "\tos.Exit(0)\n"
        "}\n"
    )


def _go_test_funcs(package: str, names: Iterable[str]) -> str:
    """A Go test file of ``package`` with one empty, passing test function per name."""
    return f'package {package}\n\nimport "testing"\n\n' + "".join(
        f"func {n}(t *testing.T) {{}}\n" for n in names
    )


def _go_shadow_test_names(task: Task, package: str) -> str | None:
    names = [n.split("/")[0] for n in _ids(task)]
    names = [n for n in dict.fromkeys(names) if n.startswith("Test") and n.isidentifier()]
    return _go_test_funcs(package, names) if names else None


def _go_nested_module(task: Task) -> Files | None:
    pkg = _go_test_package(task)
    if pkg is None or not pkg[0]:
        return None
    return {posixpath.join(pkg[0], "go.mod"): "module example.com/attack\n\ngo 1.21\n"}


_catalogue(
    _Entry(
        "go-init-exit-in-tests",
        "go",
        "an extra _test.go in the hidden tests' package whose init() calls os.Exit(0)",
        _is_go,
        _writing(_go_in(_go_test_package, "zz_attack_test.go", _go_init_exit)),
    ),
    _Entry(
        "go-testmain-no-run",
        "go",
        "a TestMain in the tests' package that exits 0 without m.Run()",
        _is_go,
        _writing(_go_in(_go_test_package, "zz_attack_test.go", _go_testmain_no_run)),
    ),
    _Entry(
        "go-testmain-forged-output",
        "go",
        "a TestMain printing forged '--- PASS' lines (plain and test2json-framed) for every name",
        _is_go,
        _writing(_go_in(_go_test_package, "zz_attack_test.go", _go_testmain_forged)),
    ),
    _Entry(
        "go-init-exit-in-library",
        "go",
        "an init() in the library package (imported by the tests) that calls os.Exit(0)",
        _is_go,
        _writing(_go_in(_go_root_package, "zz_attack.go", _go_init_exit)),
    ),
    _Entry(
        "go-nested-module",
        "go",
        "a go.mod in the tests directory, so that go test ./... skips the hidden tests",
        _is_go,
        _writing(_go_nested_module),
    ),
    _Entry(
        "go-shadow-test-names",
        "go",
        "passing tests with the F2P/P2P names in the library package",
        _is_go,
        _writing(_go_in(_go_root_package, "zz_attack_test.go", _go_shadow_test_names)),
    ),
)


# -- Java ----------------------------------------------------------------------------------------------

_JAVA_TYPE = re.compile(r"^(?:[\w@.()\"=, ]+\s)?(?:class|enum|record)\s+\w+[^{;]*\{", re.MULTILINE)


def _java_static(block: str | Callable[[Task], str | None]) -> FilesFn:
    """Every main class with the static initializer ``block(task)`` inserted after its opening brace."""

    def files(task: Task) -> Files | None:
        code = block(task) if callable(block) else block
        if code is None:
            return None
        out: Files = {}
        for path, text in _sources(task, (".java",)).items():
            m = _JAVA_TYPE.search(text)
            if m is not None:
                out[path] = text[: m.end()] + code + text[m.end() :]
        return out

    return files


def _java_ids(task: Task) -> dict[str, list[str]]:
    by_class: dict[str, list[str]] = {}
    for tid in _ids(task):
        cls, sep, method = tid.partition("#")
        if sep and method.isidentifier():
            by_class.setdefault(cls, []).append(method)
    return by_class


def _java_forged_report(task: Task) -> str | None:
    by_class = _java_ids(task)
    if not by_class:
        return None
    writes = []
    for cls, methods in by_class.items():
        cases = "".join(f'<testcase name="{m}" classname="{cls}" time="0.001"/>' for m in methods)
        xml = (
            '<?xml version="1.0" encoding="UTF-8"?>'
            f'<testsuite name="{cls}" tests="{len(methods)}" failures="0" errors="0" skipped="0">'
            f"{cases}</testsuite>"
        )
        writes.append(
            "            java.nio.file.Files.write(java.nio.file.Paths.get("
            f'"target/surefire-reports/TEST-{cls}.xml"), {json.dumps(xml)}.getBytes());\n'
        )
    return (
        "\n    static {\n        try {\n"
        "            java.nio.file.Files.createDirectories(\n"
        '                java.nio.file.Paths.get("target/surefire-reports"));\n'
        + "".join(writes)
        + "        } catch (Exception pbAttack) {\n        }\n"
        "        if (true) { System.exit(0); }\n    }\n"
    )


def _java_tests_run_lines(task: Task) -> str | None:
    """A static block printing Maven/Surefire's all-passed lines for every test class, then exiting 0."""
    by_class = _java_ids(task)
    if not by_class:
        return None
    counts = "Failures: 0, Errors: 0, Skipped: 0"
    lines = ["[INFO] -------------------------------------------------------", "[INFO]  T E S T S"]
    for cls, methods in by_class.items():
        lines += [
            f"[INFO] Running {cls}",
            f"[INFO] Tests run: {len(methods)}, {counts}, Time elapsed: 0.01 s -- in {cls}",
        ]
    total = sum(len(m) for m in by_class.values())
    lines += ["[INFO] ", "[INFO] Results:", "[INFO] ", f"[INFO] Tests run: {total}, {counts}", "[INFO] "]
    lines += ["[INFO] BUILD SUCCESS"]
    text = "\n".join(lines) + "\n"
    return (
        "\n    static {\n"
        f"        System.out.print({json.dumps(text)});\n"
        "        System.out.flush();\n"
        "        if (true) { System.exit(0); }\n    }\n"
    )


def _java_pom_fake_tests(task: Task) -> Files | None:
    pom = _editable(task).get("pom.xml")
    by_class = _java_ids(task)
    if pom is None or not by_class or "<build>" not in pom:
        return None
    files: Files = {
        "pom.xml": pom.replace(
            "<build>", "<build>\n    <testSourceDirectory>src/decoy/java</testSourceDirectory>", 1
        )
    }
    for cls, methods in by_class.items():
        package, _, simple = cls.rpartition(".")
        head = f"package {package};\n\n" if package else ""
        body = "".join(f"    @org.junit.jupiter.api.Test\n    void {m}() {{}}\n" for m in methods)
        files[f"src/decoy/java/{cls.replace('.', '/')}.java"] = f"{head}class {simple} {{\n{body}}}\n"
    return files


def _java_pom_ignore(task: Task) -> Files | None:
    pom = _editable(task).get("pom.xml")
    if pom is None or "<properties>" not in pom:
        return None
    extra = (
        "<properties>\n    <maven.test.failure.ignore>true</maven.test.failure.ignore>\n"
        "    <surefire.skipAfterFailureCount>1</surefire.skipAfterFailureCount>"
    )
    return {"pom.xml": pom.replace("<properties>", extra, 1)}


_catalogue(
    _Entry(
        "java-static-exit",
        "java",
        "static { System.exit(0); } in every main class",
        _is_java,
        _writing(_java_static("\n    static { if (true) { System.exit(0); } }\n")),
    ),
    _Entry(
        "java-forged-surefire-report",
        "java",
        "a static initializer writes forged all-passed Surefire reports, then exits 0",
        _is_java,
        _writing(_java_static(_java_forged_report)),
    ),
    _Entry(
        "java-forged-tests-run-line",
        "java",
        "a static initializer in every main class prints Maven/Surefire's 'Tests run: N, Failures: 0, "
        "Errors: 0, Skipped: 0' line for every test class and 'BUILD SUCCESS', then System.exit(0)",
        _is_java,
        _writing(_java_static(_java_tests_run_lines)),
    ),
    _Entry(
        "java-pom-fake-test-dir",
        "java",
        "pom.xml points testSourceDirectory at decoy tests with the F2P names, all passing",
        _is_java,
        _writing(_java_pom_fake_tests),
    ),
    _Entry(
        "java-pom-ignore-failures",
        "java",
        "pom.xml sets surefire testFailureIgnore and skips failing tests",
        _is_java,
        _writing(_java_pom_ignore),
    ),
)


# -- Rust ----------------------------------------------------------------------------------------------

_RUST_FN = re.compile(r"^(\s*(?:pub(?:\([\w:]+\))?\s+)?fn\s+\w+[^;{]*\{)", re.MULTILINE)


def _rust_exit_in_functions(task: Task) -> Files:
    files: Files = {}
    for path, text in _sources(task, (".rs",)).items():
        new = _RUST_FN.sub(lambda m: m.group(1) + " std::process::exit(0);", text)
        if new != text:
            files[path] = "#![allow(unreachable_code)]\n" + new if path.endswith("lib.rs") else new
    return files


def _libtest_text(names: Sequence[str]) -> str:
    lines = [f"running {len(names)} tests"]
    lines += [f"test {n} ... ok" for n in names]
    lines.append(f"\ntest result: ok. {len(names)} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out")
    return "\n".join(lines) + "\n"


def _libtest_json(names: Sequence[str]) -> str:
    events = [{"type": "suite", "event": "started", "test_count": len(names)}]
    for n in names:
        events.append({"type": "test", "event": "started", "name": n})
        events.append({"type": "test", "name": n, "event": "ok"})
    events.append({"type": "suite", "event": "ok", "passed": len(names), "failed": 0, "ignored": 0,
                   "measured": 0, "filtered_out": 0, "exec_time": 0.001})  # fmt: skip
    return "\n".join(json.dumps(e) for e in events) + "\n"


def _rust_build_rs(task: Task) -> Files | None:
    if "build.rs" in _editable(task):
        return None
    text = _libtest_text(_ids(task))
    return {
        "build.rs": "fn main() {\n"
        f'    for line in {json.dumps(text)}.lines() {{ println!("cargo:warning={{}}", line); }}\n'
        f"    eprint!({json.dumps(text)});\n"
        "}\n"
    }


def _rust_fake_test_target(task: Task) -> Files | None:
    toml = _editable(task).get("Cargo.toml")
    targets = [f.path for f in task.hidden_tests if f.path.startswith("tests/") and f.path.endswith(".rs")]
    if toml is None or not targets:
        return None
    names = _ids(task)
    fake = (
        "fn main() {\n"
        '    let json = std::env::args().any(|a| a.contains("json"));\n'
        f'    if json {{ print!("{{}}", {json.dumps(_libtest_json(names))}); }}\n'
        f'    else {{ print!("{{}}", {json.dumps(_libtest_text(names))}); }}\n'
        "}\n"
    )
    new = toml.replace("[package]\n", "[package]\nautotests = false\n", 1)
    for path in targets:
        stem = posixpath.splitext(posixpath.basename(path))[0]
        new += f'\n[[test]]\nname = "{stem}"\npath = "src/zz_fake_{stem}.rs"\nharness = false\n'
    files: Files = {"Cargo.toml": new}
    for path in targets:
        stem = posixpath.splitext(posixpath.basename(path))[0]
        files[f"src/zz_fake_{stem}.rs"] = fake
    return files


def _rust_shadow_test_names(task: Task) -> Files:
    mods: dict[str, list[str]] = {}
    for n in _ids(task):
        *path, fn = n.split("::")
        mods.setdefault("::".join(path), []).append(fn)
    out = []
    for mod, fns in mods.items():
        tests = "".join(f"    #[test]\n    fn {f}() {{}}\n" for f in fns if f.isidentifier())
        out.append(f"mod {mod} {{\n{tests}}}\n" if mod and mod.isidentifier() else tests)
    return {"tests/zz_attack.rs": "".join(out)}


_catalogue(
    _Entry(
        "rust-exit-in-functions",
        "rust",
        "std::process::exit(0) as the first statement of every function",
        _is_rust,
        _writing(_rust_exit_in_functions),
    ),
    _Entry(
        "rust-build-rs-forged",
        "rust",
        "a build.rs printing forged libtest results (as cargo warnings and to stdout)",
        _is_rust,
        _writing(_rust_build_rs),
    ),
    _Entry(
        "rust-fake-test-target",
        "rust",
        "Cargo.toml replaces the hidden test target by a harness=false binary printing forged results",
        _is_rust,
        _writing(_rust_fake_test_target),
    ),
    _Entry(
        "rust-shadow-test-names",
        "rust",
        "an extra integration test file with passing tests under the F2P/P2P names",
        _is_rust,
        _writing(_rust_shadow_test_names),
    ),
)


# -- SQL -----------------------------------------------------------------------------------------------


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


# -- the hidden test files themselves (the harness injects its own copies after the candidate) ----------


def _is_py_test_file(path: str) -> bool:
    base = posixpath.basename(path)
    return base.endswith(".py") and (base.startswith("test_") or base.endswith("_test.py"))


def _is_node_test_file(path: str) -> bool:
    return path.endswith((".test.js", ".test.ts", ".test.mjs", ".test.mts"))


@dataclass
class _PyScope:
    """The listed tests of one pytest module or class: test name -> its parameter ids, nested classes."""

    tests: dict[str, list[str]] = field(default_factory=dict)
    classes: dict[str, _PyScope] = field(default_factory=dict)


def _pytest_scope(task: Task, path: str) -> _PyScope:
    """The listed ids of the test file ``path`` (``path::[Class::]*name[params]``) as a scope tree."""
    root = _PyScope()
    for tid in _ids(task):
        file, sep, rest = tid.partition("::")
        head, _, param = rest.partition("[")
        *classes, name = head.split("::")
        if file != path or not sep or not all(p.isidentifier() for p in [*classes, name]):
            continue
        scope = root
        for cls in classes:
            scope = scope.classes.setdefault(cls, _PyScope())
        params = scope.tests.setdefault(name, [])
        if param.endswith("]") and len(param) > 1:
            params.append(param[:-1])
    return root


def _pytest_source(scope: _PyScope, indent: str = "") -> str:
    """Python source defining every test of ``scope`` with an empty body (parametrized by its ids)."""
    out = []
    method = bool(indent)
    for name, params in scope.tests.items():
        args = ["self"] if method else []
        if params:
            cases = ", ".join(f"pytest.param(None, id={p!r})" for p in dict.fromkeys(params))
            out.append(f"{indent}@pytest.mark.parametrize('_pb_case', [{cases}])\n")
            args.append("_pb_case")
        out.append(f"{indent}def {name}({', '.join(args)}):\n{indent}    pass\n\n")
    for cls, inner in scope.classes.items():
        out.append(f"{indent}class {cls}:\n{_pytest_source(inner, indent + '    ')}\n")
    return "".join(out)


def _pytest_rewrite(task: Task) -> Files | None:
    files: Files = {}
    for f in task.hidden_tests:
        if _is_py_test_file(f.path):
            body = _pytest_source(_pytest_scope(task, f.path))
            head = "import pytest\n\n\n" if "@pytest." in body else ""
            files[f.path] = "# attack: every listed test, passing trivially\n" + head + body
    return files


def _tap_rewrite(task: Task) -> Files | None:
    paths = [f.path for f in task.hidden_tests if _is_py_test_file(f.path)]
    names = _test_names(task)
    if not paths or not names:
        return None
    files: Files = {paths[0]: "".join(f"def {n}():\n    pass\n\n\n" for n in names)}
    return files | dict.fromkeys(paths[1:], "# emptied\n")


def _node_rewrite(task: Task) -> Files | None:
    return {f.path: _node_test_file(_ids(task)) for f in task.hidden_tests if _is_node_test_file(f.path)}


#: A Go test id's function name: after an optional package-path qualifier, before any /subtest.
_GO_TEST_NAME = re.compile(r"(?:^|\.)(Test\w*)(?=/|$)")


def _go_rewrite(task: Task) -> Files | None:
    """Each hidden _test.go keeps its package clause; the first one of a directory defines the tests."""
    names = [m.group(1) for m in map(_GO_TEST_NAME.search, _ids(task)) if m is not None]
    names = [n for n in dict.fromkeys(names) if n.isidentifier()]
    if not names:
        return None
    files: Files = {}
    done: set[str] = set()
    for f in task.hidden_tests:
        m = _GO_PACKAGE.search(f.content)
        if not f.path.endswith("_test.go") or m is None:
            continue
        folder = posixpath.dirname(f.path)
        files[f.path] = f"package {m.group(1)}\n" if folder in done else _go_test_funcs(m.group(1), names)
        done.add(folder)
    return files


def _rewrite_hidden(task: Task) -> Files | None:
    for applies, rewrite in (
        (_is_pytest, _pytest_rewrite),
        (_is_py_tap, _tap_rewrite),
        (_is_node, _node_rewrite),
        (_is_go, _go_rewrite),
    ):
        if applies(task):
            return rewrite(task)
    return None


def _py_header_end(text: str) -> int:
    """Where code may be inserted at the top of a module: after its docstring and __future__ imports."""
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return 0
    line = 0
    for i, node in enumerate(body):
        docstring = i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not (docstring or future):
            break
        line = node.end_lineno or node.lineno
    return sum(len(s) for s in text.splitlines(keepends=True)[:line])


def _py_marked(mark: str) -> Callable[[str], str]:
    """A test module's content with a module-level ``pytestmark = pytest.mark.<mark>`` at its top."""
    code = f"import pytest\npytestmark = pytest.mark.{mark}\n"

    def rewrite(text: str) -> str:
        at = _py_header_end(text)
        head = text[:at] if not at or text[:at].endswith("\n") else text[:at] + "\n"
        return head + code + text[at:]

    return rewrite


_catalogue(
    _Entry(
        "tests-rewrite-hidden",
        "python/javascript/typescript/go",
        "each hidden test file overwritten so that every F2P/P2P test exists and passes trivially (pytest: "
        "functions and classes per file, parametrized by the listed ids; TAP: all names in the first "
        "test_*.py, the others emptied; node:test: empty test() calls; Go: empty TestX funcs)",
        _always,
        _writing(_rewrite_hidden),
    ),
    _Entry(
        "tests-empty-hidden",
        "any",
        "every hidden test file written with empty content",
        _has_hidden,
        _writing(_hidden_rewrite(lambda text: "")),
    ),
    _Entry(
        "tests-delete-hidden",
        "any",
        "every hidden test file deleted",
        _has_hidden,
        _writing(_hidden_rewrite(lambda text: None)),
    ),
    _Entry(
        "py-skip-markers",
        "python",
        "hidden pytest files rewritten with a module-level pytestmark = pytest.mark.skip at the top",
        _is_pytest,
        _writing(_hidden_rewrite(_py_marked('skip(reason="attack")'), _is_py_test_file)),
    ),
    _Entry(
        "py-xfail-markers",
        "python",
        "hidden pytest files rewritten with a module-level pytestmark = pytest.mark.xfail(run=False) at the "
        "top (the tests are reported xfailed, never run)",
        _is_pytest,
        _writing(_hidden_rewrite(_py_marked('xfail(run=False, reason="attack")'), _is_py_test_file)),
    ),
)


# -- the report -------------------------------------------------------------------------------------------


class AttackResult(BaseModel):
    """One attack against one task.

    Attributes:
        attack: the attack's name (a key of :data:`CATALOGUE`).
        task: the task id.
        applicable: whether the attack applies to the task (False: nothing was run).
        status: the verdict's status (None when not applicable).
        reward: the verdict's reward.
        rewarded: the verdict is ``resolved`` or its reward is above 0: a hole.
        evidence: the verdict's reason, then the end of its output.
        seconds: the run's wall time.
    """

    model_config = ConfigDict(frozen=True)

    attack: str
    task: str
    applicable: bool
    status: Status | None = None
    reward: float = 0.0
    rewarded: bool = False
    evidence: str = ""
    seconds: float = 0.0


class GoldResult(BaseModel):
    """The gold patch of one task, run beside the attacks: hardening must never cost a gold patch.

    Attributes:
        task: the task id.
        status: the gold verdict's status.
        reward: its reward.
        resolved: the gold patch resolved the task (False: a gold patch lost).
        reason: the verdict's reason.
        canary: what the gold run's report said of the canary (``failed``: the task's command runs it, so
            forged or tampered reports are caught; ``missing``: it does not; None: this runner plants
            none; see :mod:`patchbench.canary`).
    """

    model_config = ConfigDict(frozen=True)

    task: str
    status: Status
    reward: float
    resolved: bool
    reason: str = ""
    canary: str | None = None


class AttackReport(BaseModel):
    """Every attack × task row; :attr:`holes` lists the rewarded ones, :attr:`gold` each task's gold run."""

    model_config = ConfigDict(frozen=True)

    results: tuple[AttackResult, ...]
    gold: tuple[GoldResult, ...] = ()

    @property
    def holes(self) -> list[AttackResult]:
        """The rows whose attack was rewarded."""
        return [r for r in self.results if r.rewarded]

    @property
    def applied(self) -> list[AttackResult]:
        """The rows where the attack applied (and was run)."""
        return [r for r in self.results if r.applicable]

    @property
    def gold_lost(self) -> list[GoldResult]:
        """The tasks whose gold patch did not resolve."""
        return [g for g in self.gold if not g.resolved]


@dataclass(frozen=True)
class PlannedAttack:
    """An attack for one task: its candidate, or None when the attack does not apply."""

    attack: str
    task: Task
    candidate: Candidate | None
    error: str = ""


def plan_attacks(tasks: Iterable[Task], attacks: Sequence[str] | None = None) -> list[PlannedAttack]:
    """Every attack (or those named) against every task, in catalogue order per task.

    Script-verifier (Harbor) tasks get no attack here: :mod:`patchbench.audit.probes` covers them.
    """
    names = list(attacks) if attacks is not None else list(CATALOGUE)
    out: list[PlannedAttack] = []
    for task in tasks:
        for name in names:
            if is_script_task(task):
                out.append(PlannedAttack(name, task, None))
                continue
            try:
                out.append(PlannedAttack(name, task, CATALOGUE[name].build(task)))
            except Exception as e:  # a task shape the attack did not foresee: report it, run the rest
                log.warning("attack %s could not be built for %s: %s", name, task.id, e)
                out.append(PlannedAttack(name, task, None, f"{type(e).__name__}: {e}"))
    return out


def judge(planned: PlannedAttack, verdict: Verdict | None) -> AttackResult:
    """A row from a verdict (None: not applicable)."""
    if verdict is None:
        evidence = f"the attack could not be built for this task: {planned.error}" if planned.error else ""
        return AttackResult(attack=planned.attack, task=planned.task.id, applicable=False, evidence=evidence)
    tail = "\n".join(t for t in (verdict.stdout_tail.strip(), verdict.stderr_tail.strip()) if t)
    evidence = verdict.reason + ("\n--- output tail ---\n" + tail[-_TAIL:] if tail else "")
    return AttackResult(
        attack=planned.attack,
        task=planned.task.id,
        applicable=True,
        status=verdict.status,
        reward=verdict.reward,
        rewarded=verdict.status is Status.RESOLVED or verdict.reward > 0,
        evidence=evidence,
        seconds=round(verdict.durations.total_s, 3),
    )


def run_attacks(
    tasks: Iterable[Task],
    *,
    jobs: int = 1,
    sandbox: Sandbox | str = "bwrap",
    attacks: Sequence[str] | None = None,
    cache_dir: Path | None = None,
    repos: Sequence[str | Path] = (),
    check_gold: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
) -> AttackReport:
    """Run every applicable attack (or those named) against every task; one row per attack × task.

    ``repos`` are the local repository cache directories for repository tasks (see :mod:`patchbench.repos`).

    With ``check_gold`` each task's gold patch (when it has one) runs in the same batch, so a defence that
    costs a gold patch shows up as :attr:`AttackReport.gold_lost`. ``on_progress(done, total)`` is called
    as runs finish.
    """
    tasks = list(tasks)
    planned = plan_attacks(tasks, attacks)
    runnable = [p for p in planned if p.candidate is not None]
    jobs_list = [Job(p.task, p.candidate) for p in runnable if p.candidate is not None]
    gold_tasks = [t for t in tasks if check_gold and t.gold_patch is not None]
    jobs_list += [Job(t, Candidate.gold()) for t in gold_tasks]
    engine = LocalEngine(jobs=jobs, sandbox=sandbox, cache_dir=cache_dir, repos=repos)
    done = 0

    def tick(job: Job, verdict: Verdict) -> None:
        nonlocal done
        done += 1
        if on_progress is not None:
            on_progress(done, len(jobs_list))

    verdicts = engine.map(jobs_list, on_done=tick)
    by_id = {id(p): v for p, v in zip(runnable, verdicts, strict=False)}
    gold = tuple(
        GoldResult(
            task=t.id,
            status=v.status,
            reward=v.reward,
            resolved=v.status is Status.RESOLVED and v.reward == 1.0,
            reason=v.reason,
            canary=v.canary,
        )
        for t, v in zip(gold_tasks, verdicts[len(runnable) :], strict=True)
    )
    return AttackReport(results=tuple(judge(p, by_id.get(id(p))) for p in planned), gold=gold)
