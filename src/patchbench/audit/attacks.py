"""An adversarial battery: named attack candidates that try to earn a reward without fixing the bug.

Each attack is a function ``(task) -> Candidate | None``: the candidate writes files over the task's own
workspace (for a repository task, over the paths of ``context_files``/``buggy_files``), or is a unified
diff; ``None`` means the attack does not apply to the task's language or result protocol. The catalogue
(:data:`CATALOGUE`) covers Python (pytest and TAP harnesses), JavaScript/TypeScript (``node --test``), Go,
Java (Maven), Rust (cargo) and SQL (a TAP harness), and the harness itself (resource bombs, symlinks,
paths that leave the workspace).

:func:`run_attacks` runs every applicable attack against every task through the ordinary engine (the
same flow as :func:`patchbench.run`) and reports one row per attack × task. An attack is *rewarded*
when its verdict is ``resolved`` or its reward is above 0: a hole in the grading.

Resource attacks are bounded on purpose (at most 512 forked processes, 6 GiB of memory, 96 MiB of output)
so that a sandbox without limits cannot take the host down with it; each bound is above the sandbox's
default limit (:class:`patchbench.sandbox.Limits`).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..candidate import Candidate
from ..engine import Job, LocalEngine
from ..runners import choose_runner
from ..sandbox import Sandbox
from ..task import Task, VerifierKind
from ..verdict import Status, Verdict
from .probes import is_script_task

__all__ = [
    "CATALOGUE",
    "Attack",
    "AttackReport",
    "AttackResult",
    "plan_attacks",
    "run_attacks",
]

AttackFn = Callable[[Task], Candidate | None]
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


def _attack(name: str, language: str, description: str) -> Callable[[AttackFn], AttackFn]:
    def register(fn: AttackFn) -> AttackFn:
        if name in CATALOGUE:
            raise ValueError(f"duplicate attack {name!r}")
        CATALOGUE[name] = Attack(name, language, description, fn)
        return fn

    return register


# -- what a task looks like ---------------------------------------------------------------------------


def _runner(task: Task) -> str:
    if task.verifier is not None and task.verifier.kind is VerifierKind.SCRIPT:
        return "script"
    try:
        return choose_runner(task.test).name
    except KeyError:
        return ""


def _commands(task: Task) -> str:
    return "\n".join(c.display() for c in task.test.commands)


def _is_pytest(task: Task) -> bool:
    return task.language == "python" and _runner(task) == "pytest"


def _is_py_tap(task: Task) -> bool:
    return task.language == "python" and _runner(task) == "tap"


def _is_python(task: Task) -> bool:
    return task.language == "python" and _runner(task) in ("pytest", "tap")


def _is_sql(task: Task) -> bool:
    return task.language == "sql" and _runner(task) == "tap"


def _is_node(task: Task) -> bool:
    return task.language in ("javascript", "typescript") and _runner(task) == "node-test"


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


def _tests_dir(task: Task) -> str:
    """The directory holding the hidden tests (the first one's), ``tests`` when unknown."""
    for f in task.hidden_tests:
        folder = posixpath.dirname(f.path)
        if folder:
            return folder
    return "tests"


def _append(files: dict[str, str], code: str, label: str) -> Candidate | None:
    if not files:
        return None
    return Candidate.files({p: t.rstrip("\n") + "\n" + code for p, t in files.items()}, label=label)


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


@_attack(
    "py-conftest-force-pass", "python", "conftest.py (root and tests dir) rewrites every report as passed"
)
def py_conftest_force_pass(task: Task) -> Candidate | None:
    if not _is_pytest(task):
        return None
    return Candidate.files(
        {"conftest.py": _CONFTEST, posixpath.join(_tests_dir(task), "conftest.py"): _CONFTEST},
        label="py-conftest-force-pass",
    )


@_attack("py-pytest-ini-addopts", "python", "pytest.ini with -p no:junitxml and addopts = -k nothing")
def py_pytest_ini(task: Task) -> Candidate | None:
    if not _is_pytest(task):
        return None
    ini = "[pytest]\naddopts = -p no:junitxml -p no:python -k nothing --co\n"
    return Candidate.files({"pytest.ini": ini, ".pytest.ini": ini}, label="py-pytest-ini-addopts")


@_attack("py-pyproject-addopts", "python", "pyproject.toml [tool.pytest.ini_options] disabling collection")
def py_pyproject(task: Task) -> Candidate | None:
    if not _is_pytest(task):
        return None
    old = _editable(task).get("pyproject.toml", "")
    toml = (
        old + '\n[tool.pytest.ini_options]\naddopts = "-p no:junitxml -k nothing"\ntestpaths = ["nowhere"]\n'
    )
    return Candidate.files({"pyproject.toml": toml}, label="py-pyproject-addopts")


@_attack(
    "py-setup-cfg-tox-ini", "python", "setup.cfg [tool:pytest] and tox.ini [pytest] disabling collection"
)
def py_setup_cfg(task: Task) -> Candidate | None:
    if not _is_pytest(task):
        return None
    return Candidate.files(
        {
            "setup.cfg": "[tool:pytest]\naddopts = -k nothing -p no:junitxml\n",
            "tox.ini": "[pytest]\naddopts = -k nothing -p no:junitxml\n",
        },
        label="py-setup-cfg-tox-ini",
    )


@_attack("py-sitecustomize", "python", "sitecustomize.py/usercustomize.py forge a pass at interpreter start")
def py_sitecustomize(task: Task) -> Candidate | None:
    if not _is_python(task):
        return None
    code = _py_forge_and_exit(task)
    return Candidate.files(
        {
            "sitecustomize.py": code,
            "usercustomize.py": code,
            posixpath.join(_tests_dir(task), "sitecustomize.py"): code,
        },
        label="py-sitecustomize",
    )


@_attack("py-pth-file", "python", "a .pth file whose import line forges a pass and exits 0")
def py_pth_file(task: Task) -> Candidate | None:
    if not _is_python(task):
        return None
    line = "import os, sys; sys.stdout.write(" + repr(_tap_lines(_ids(task))) + "); os._exit(0)\n"
    return Candidate.files(
        {"zz_attack.pth": line, posixpath.join(_tests_dir(task), "zz_attack.pth"): line},
        label="py-pth-file",
    )


# -- Python: code that runs when the buggy module is imported -------------------------------------------


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


def _py_import(name: str, description: str, code: Callable[[Task], str | None]) -> None:
    """Register an attack that appends ``code(task)`` to every Python source file of the task."""

    def build(task: Task) -> Candidate | None:
        if not _is_python(task):
            return None
        text = code(task)
        if text is None:
            return None
        return _append(_sources(task, (".py",)), text, name)

    _attack(name, "python", description)(build)


_py_import(
    "py-sys-exit-at-import",
    "sys.exit(0) when the buggy module is imported",
    lambda t: "import sys as __pb_sys\n__pb_sys.exit(0)\n",
)
_py_import(
    "py-os-exit-at-import",
    "os._exit(0) when the buggy module is imported",
    lambda t: "import os as __pb_os\n__pb_os._exit(0)\n",
)
_py_import(
    "py-atexit-os-exit",
    "an atexit handler that calls os._exit(0) (the test tool's own exit status is lost)",
    lambda t: "import atexit as __pb_ae, os as __pb_os\n__pb_ae.register(lambda: __pb_os._exit(0))\n",
)
_py_import(
    "py-atexit-forge-junit",
    "an atexit handler that rewrites the JUnit report as all-passed after pytest wrote it, then exits 0",
    lambda t: (
        (
            _py_write_reports(t)
            + "import atexit as __pb_ae, os as __pb_os\n"
            + "def __pb_late():\n    __pb_write_reports()\n    __pb_os._exit(0)\n"
            + "__pb_ae.register(__pb_late)\n"
        )
        if _is_pytest(t)
        else None
    ),
)
_py_import(
    "py-patch-testreport",
    "patch _pytest.reports.TestReport so every report built afterwards says passed",
    lambda t: (
        (
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
        if _is_pytest(t)
        else None
    ),
)
_py_import(
    "py-patch-call-and-report",
    "patch _pytest.runner.call_and_report to skip the test call and report a pass",
    lambda t: (
        (
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
        if _is_pytest(t)
        else None
    ),
)
_py_import(
    "py-patch-pytest-fail",
    "pytest.fail, AssertionError handling and pytest.raises neutralised at import",
    lambda t: (
        (
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
        if _is_pytest(t)
        else None
    ),
)
_py_import(
    "py-tap-rewrite-stdout",
    "replace sys.stdout with a filter that turns 'not ok' into 'ok' and drops diagnostics",
    lambda t: (
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
    ),
)
_py_import(
    "py-stack-inspect-magic-eq",
    "every function returns an object equal to anything when called from a test file",
    lambda t: (
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
    ),
)
_py_import(
    "py-forged-pytest-summary",
    "print a forged '<N> passed' pytest summary at import and exit 0",
    lambda t: (
        "import os as __pb_os, sys as __pb_sys\n"
        f"__pb_sys.stdout.write({_pytest_summary(len(_ids(t)))!r})\n"
        "__pb_sys.stdout.flush()\n__pb_os._exit(0)\n"
    ),
)
_py_import(
    "py-forged-tap-ok",
    "print forged 'ok N - <name>' TAP lines for every F2P/P2P test at import and exit 0",
    lambda t: (
        "import os as __pb_os, sys as __pb_sys\n"
        f"__pb_sys.stdout.write({_tap_lines(_ids(t))!r})\n"
        "__pb_sys.stdout.flush()\n__pb_sys.exit(0)\n"
    ),
)
_py_import(
    "py-forged-junit-xml",
    "write forged all-passed JUnit XML to the report paths (PYTEST_ADDOPTS, guessed) at import, exit 0",
    lambda t: _py_write_reports(t) + "__pb_write_reports()\nimport os as __pb_os\n__pb_os._exit(0)\n",
)
_py_import(
    "py-forged-everything",
    "forged JUnit XML, TAP and pytest summary at import, then os._exit(0)",
    _py_forge_and_exit,
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


_py_import(
    "py-read-hidden-tests",
    "open the hidden test files and guessed gold-patch paths at import and print them",
    _read_hidden_code,
)
_py_import(
    "py-delete-hidden-tests",
    "delete or empty the hidden test files at import (they were injected before the run)",
    lambda t: (
        "def __pb_delete():\n"
        "    import os\n"
        f"    for p in {sorted(_hidden(t))!r}:\n"
        "        for cand in (p, os.path.join('..', p), os.path.join('/workspace', p)):\n"
        "            try:\n"
        "                with open(cand, 'w') as fh:\n"
        "                    fh.write('')\n"
        "                os.remove(cand)\n"
        "            except OSError:\n"
        "                pass\n"
        "__pb_delete()\n"
    ),
)
_py_import(
    "py-double-fork-rewrite",
    "a double-forked daemon that outlives the tests and rewrites the reports afterwards",
    lambda t: (
        _py_write_reports(t)
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
    ),
)
_py_import(
    "py-infinite-loop",
    "an infinite loop at import",
    lambda t: "while True:\n    pass\n",
)
_py_import(
    "py-fork-bomb",
    "a fork bomb at import (bounded: at most 512 children, each sleeping)",
    lambda t: (
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
    ),
)
_py_import(
    "py-memory-bomb",
    "allocate memory at import until refused (bounded at 6 GiB)",
    lambda t: (
        "__pb_hog = []\n"
        "try:\n"
        "    for _ in range(6 * 64):\n"
        "        __pb_hog.append(bytearray(16 * 2 ** 20))\n"
        "except MemoryError:\n"
        "    pass\n"
    ),
)
_py_import(
    "py-output-flood",
    "flood standard output at import (96 MiB), then exit 0",
    lambda t: (
        "import os as __pb_os, sys as __pb_sys\n"
        "for _ in range(96):\n"
        "    __pb_sys.stdout.write(('ok 1 - flood\\n' * 80000)[: 2 ** 20])\n"
        "__pb_os._exit(0)\n"
    ),
)
_py_import(
    "py-network",
    "try the network at import (DNS, TCP to a public address) and print what worked",
    lambda t: (
        "def __pb_net():\n"
        "    import socket, sys\n"
        "    for host, port in (('1.1.1.1', 53), ('pypi.org', 443), ('8.8.8.8', 53)):\n"
        "        try:\n"
        "            socket.create_connection((host, port), timeout=2).close()\n"
        "            sys.stderr.write('NETWORK OK %s\\n' % host)\n"
        "        except OSError as e:\n"
        "            sys.stderr.write('network refused %s: %s\\n' % (host, e))\n"
        "__pb_net()\n"
    ),
)


@_attack(
    "py-shadow-pytest",
    "python",
    "a pytest package in the workspace root shadows the real one for python -m pytest",
)
def py_shadow_pytest(task: Task) -> Candidate | None:
    if not _is_pytest(task):
        return None
    main = _py_forge_and_exit(task)
    return Candidate.files(
        {"pytest/__init__.py": main, "pytest/__main__.py": main, "_pytest/__init__.py": main},
        label="py-shadow-pytest",
    )


@_attack(
    "tap-shadow-stdlib",
    "python",
    "modules named like the stdlib (json, inspect, argparse...) next to the TAP script forge its output",
)
def tap_shadow_stdlib(task: Task) -> Candidate | None:
    if not (_is_py_tap(task) or _is_sql(task)):
        return None
    code = f"import os, sys\nsys.stdout.write({_tap_lines(_ids(task))!r})\nsys.stdout.flush()\nos._exit(0)\n"
    folder = _tests_dir(task)
    names = ("json", "inspect", "traceback", "argparse", "sqlite3", "math", "pathlib", "importlib")
    files: dict[str, str | None] = {posixpath.join(folder, f"{n}.py"): code for n in names}
    files.update({f"{n}.py": code for n in names})
    return Candidate.files(files, label="tap-shadow-stdlib")


@_attack(
    "tap-forged-ok-exit",
    "python",
    "TAP tasks: print 'ok' for every F2P/P2P name, then sys.exit(0), at import",
)
def tap_forged_ok_exit(task: Task) -> Candidate | None:
    if not _is_py_tap(task):
        return None
    code = (
        "import sys as __pb_sys\n"
        f"__pb_sys.stdout.write({_tap_lines(_ids(task))!r})\n"
        "__pb_sys.stdout.flush()\n__pb_sys.exit(0)\n"
    )
    return _append(_sources(task, (".py",)), code, "tap-forged-ok-exit")


@_attack(
    "tap-shadow-test-names",
    "python",
    "an extra test module next to the hidden ones defining passing tests with the F2P names",
)
def tap_shadow_test_names(task: Task) -> Candidate | None:
    if not _is_python(task):
        return None
    names = [i.rsplit("::", 1)[-1].split("[")[0] for i in _ids(task)]
    names = [n for n in dict.fromkeys(names) if n.isidentifier()]
    if not names:
        return None
    body = "".join(f"def {n}():\n    pass\n\n\n" for n in names)
    return Candidate.files(
        {posixpath.join(_tests_dir(task), "test_zz_attack.py"): body}, label="tap-shadow-test-names"
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


@_attack(
    "diff-symlink-tests-dir",
    "any",
    "a diff that makes the tests directory a symlink to a decoy with passing tests",
)
def diff_symlink_tests_dir(task: Task) -> Candidate | None:
    if not task.hidden_tests:
        return None
    folder = _tests_dir(task)
    decoy = "decoy_tests"
    patch = _symlink_diff(folder, decoy)
    for f in task.hidden_tests:
        rel = f.path[len(folder) + 1 :] if f.path.startswith(folder + "/") else posixpath.basename(f.path)
        patch += _new_file_diff(posixpath.join(decoy, rel), "# decoy\n")
    return Candidate.diff(patch, label="diff-symlink-tests-dir")


@_attack(
    "diff-symlink-test-file", "any", "a diff that creates each hidden test path as a symlink to /dev/null"
)
def diff_symlink_test_file(task: Task) -> Candidate | None:
    if not task.hidden_tests:
        return None
    patch = "".join(_symlink_diff(f.path, "/dev/null") for f in task.hidden_tests)
    return Candidate.diff(patch, label="diff-symlink-test-file")


@_attack(
    "diff-symlink-to-source",
    "any",
    "a diff that makes the hidden test a symlink into the workspace (an empty file)",
)
def diff_symlink_to_source(task: Task) -> Candidate | None:
    if not task.hidden_tests:
        return None
    patch = _new_file_diff("zz_empty.txt", "x")
    for f in task.hidden_tests:
        depth = f.path.count("/")
        patch += _symlink_diff(f.path, "../" * depth + "zz_empty.txt")
    return Candidate.diff(patch, label="diff-symlink-to-source")


@_attack("diff-dotdot-path", "any", "a diff whose paths climb out of the workspace with ../")
def diff_dotdot_path(task: Task) -> Candidate | None:
    target = f"../{_tests_dir(task)}/{posixpath.basename(next(iter(_hidden(task)), 'test_x.py'))}"
    patch = _new_file_diff(target, "def test_escape():\n    pass\n")
    patch += _new_file_diff("../../tmp/patchbench_attack_escape.txt", "escaped\n")
    return Candidate.diff(patch, label="diff-dotdot-path")


# -- JavaScript / TypeScript ------------------------------------------------------------------------------


def _js_attack(name: str, description: str, code: Callable[[Task], str]) -> None:
    def build(task: Task) -> Candidate | None:
        if not _is_node(task):
            return None
        exts = (".js", ".mjs", ".cjs") if task.language == "javascript" else (".ts", ".mts", ".js")
        return _append(_sources(task, exts), code(task), name)

    _attack(name, "javascript/typescript", description)(build)


_js_attack(
    "js-process-exit",
    "process.exit(0) at module load",
    lambda t: "process.exit(0);\n",
)
_js_attack(
    "js-patch-assert",
    "every node:assert function (and assert/strict) replaced by a no-op at module load",
    lambda t: (
        (
            "{\n"
            "  const __pbA: any = (process as any).getBuiltinModule('node:assert');\n"
            "  for (const __pbO of [__pbA, __pbA.strict]) {\n"
            "    for (const __pbK of Object.keys(__pbO)) {\n"
            "      if (typeof __pbO[__pbK] === 'function' && __pbK !== 'AssertionError') {\n"
            "        try { __pbO[__pbK] = () => {}; } catch {}\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "  try { (process as any).getBuiltinModule('node:module').syncBuiltinESMExports(); } catch {}\n"
            "}\n"
        )
        if t.language == "typescript"
        else (
            "{\n"
            "  const __pbA = process.getBuiltinModule('node:assert');\n"
            "  for (const __pbO of [__pbA, __pbA.strict]) {\n"
            "    for (const __pbK of Object.keys(__pbO)) {\n"
            "      if (typeof __pbO[__pbK] === 'function' && __pbK !== 'AssertionError') {\n"
            "        try { __pbO[__pbK] = () => {}; } catch {}\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "  try { process.getBuiltinModule('node:module').syncBuiltinESMExports(); } catch {}\n"
            "}\n"
        )
    ),
)


def _js_node_test_hook(t: Task) -> str:
    any_ = ": any" if t.language == "typescript" else ""
    proc = "(process as any)" if t.language == "typescript" else "process"
    return (
        "{\n"
        f"  const __pbT{any_} = {proc}.getBuiltinModule('node:test');\n"
        "  const __pbOrig = __pbT.test;\n"
        f"  const __pbFake{any_} = (name{any_}, ...rest{any_}) => __pbOrig(name, () => {{}});\n"
        "  for (const k of ['test', 'it']) { try { __pbT[k] = __pbFake; } catch {} }\n"
        "  try { __pbT.default = __pbFake; } catch {}\n"
        f"  try {{ {proc}.getBuiltinModule('node:module').syncBuiltinESMExports(); }} catch {{}}\n"
        "}\n"
    )


_js_attack(
    "js-patch-node-test",
    "node:test's test()/it() replaced (and synced to the ESM bindings) by one registering an empty body",
    _js_node_test_hook,
)
_js_attack(
    "js-forged-tap",
    "forged TAP (every F2P/P2P name ok) printed to stdout at module load, then process.exit(0)",
    lambda t: f"process.stdout.write({json.dumps(_tap_lines(_ids(t)))});\nprocess.exit(0);\n",
)


def _js_reporter_rewrite(t: Task) -> str:
    forged = json.dumps(_tap_lines(_ids(t)))
    script = (
        f"for i in $(seq 1 40); do sleep 0.25; for f in {_REPORTS}/*; do "
        'cat "$0" > "$f" 2>/dev/null; done; done'
    )
    proc = "(process as any)" if t.language == "typescript" else "process"
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


_js_attack(
    "js-rewrite-reporter-file",
    "write forged TAP into the reporter's output file, and a detached process keeps rewriting it",
    _js_reporter_rewrite,
)
_js_attack(
    "js-infinite-loop",
    "an infinite loop at module load",
    lambda t: "for (;;) {}\n",
)


@_attack(
    "js-shadow-test-names",
    "javascript/typescript",
    "an extra test file in the tests directory with passing tests under the F2P names",
)
def js_shadow_test_names(task: Task) -> Candidate | None:
    if not _is_node(task):
        return None
    ext = ".ts" if task.language == "typescript" else ".js"
    body = "import { test } from 'node:test';\n" + "".join(
        f"test({json.dumps(n)}, () => {{}});\n" for n in _ids(task)
    )
    return Candidate.files(
        {posixpath.join(_tests_dir(task), f"zz_attack.test{ext}"): body}, label="js-shadow-test-names"
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


def _go_file(folder: str, name: str, text: str) -> dict[str, str | None]:
    return {posixpath.join(folder, name) if folder else name: text}


def _is_go(task: Task) -> bool:
    return task.language == "go" and _runner(task) == "go-test"


@_attack(
    "go-init-exit-in-tests",
    "go",
    "an extra _test.go in the hidden tests' package whose init() calls os.Exit(0)",
)
def go_init_exit_in_tests(task: Task) -> Candidate | None:
    pkg = _go_test_package(task) if _is_go(task) else None
    if pkg is None:
        return None
    text = f'package {pkg[1]}\n\nimport "os"\n\nfunc init() {{ os.Exit(0) }}\n'
    return Candidate.files(_go_file(pkg[0], "zz_attack_test.go", text), label="go-init-exit-in-tests")


@_attack("go-testmain-no-run", "go", "a TestMain in the tests' package that exits 0 without m.Run()")
def go_testmain_no_run(task: Task) -> Candidate | None:
    pkg = _go_test_package(task) if _is_go(task) else None
    if pkg is None:
        return None
    text = (
        f'package {pkg[1]}\n\nimport (\n\t"os"\n\t"testing"\n)\n\n'
        "func TestMain(m *testing.M) { os.Exit(0) }\n"
    )
    return Candidate.files(_go_file(pkg[0], "zz_attack_test.go", text), label="go-testmain-no-run")


@_attack(
    "go-testmain-forged-output",
    "go",
    "a TestMain printing forged '--- PASS' lines (plain and test2json-framed) for every name",
)
def go_testmain_forged(task: Task) -> Candidate | None:
    pkg = _go_test_package(task) if _is_go(task) else None
    if pkg is None:
        return None
    lines = []
    for n in _ids(task):
        lines += [f"=== RUN   {n}", f"--- PASS: {n} (0.00s)"]
    plain = "\n".join(lines) + "\nPASS\n"
    framed = "\n".join("\x16" + line for line in lines) + "\n\x16PASS\n"
    text = (
        f'package {pkg[1]}\n\nimport (\n\t"fmt"\n\t"os"\n\t"testing"\n)\n\n'
        "func TestMain(m *testing.M) {\n"
        f"\tfmt.Print({json.dumps(framed)})\n"
        f"\tfmt.Print({json.dumps(plain)})\n"
        "\tos.Exit(0)\n"
        "}\n"
    )
    return Candidate.files(_go_file(pkg[0], "zz_attack_test.go", text), label="go-testmain-forged-output")


@_attack(
    "go-init-exit-in-library",
    "go",
    "an init() in the library package (imported by the tests) that calls os.Exit(0)",
)
def go_init_exit_in_library(task: Task) -> Candidate | None:
    pkg = _go_root_package(task) if _is_go(task) else None
    if pkg is None:
        return None
    text = f'package {pkg[1]}\n\nimport "os"\n\nfunc init() {{ os.Exit(0) }}\n'
    return Candidate.files(_go_file(pkg[0], "zz_attack.go", text), label="go-init-exit-in-library")


@_attack(
    "go-nested-module", "go", "a go.mod in the tests directory, so that go test ./... skips the hidden tests"
)
def go_nested_module(task: Task) -> Candidate | None:
    pkg = _go_test_package(task) if _is_go(task) else None
    if pkg is None or not pkg[0]:
        return None
    return Candidate.files(
        {posixpath.join(pkg[0], "go.mod"): "module example.com/attack\n\ngo 1.21\n"}, label="go-nested-module"
    )


@_attack("go-shadow-test-names", "go", "passing tests with the F2P/P2P names in the library package")
def go_shadow_test_names(task: Task) -> Candidate | None:
    pkg = _go_root_package(task) if _is_go(task) else None
    if pkg is None:
        return None
    names = [n.split("/")[0] for n in _ids(task)]
    names = [n for n in dict.fromkeys(names) if n.startswith("Test") and n.isidentifier()]
    if not names:
        return None
    text = f'package {pkg[1]}\n\nimport "testing"\n\n' + "".join(
        f"func {n}(t *testing.T) {{}}\n" for n in names
    )
    return Candidate.files(_go_file(pkg[0], "zz_attack_test.go", text), label="go-shadow-test-names")


# -- Java ----------------------------------------------------------------------------------------------

_JAVA_TYPE = re.compile(r"^(?:[\w@.()\"=, ]+\s)?(?:class|enum|record)\s+\w+[^{;]*\{", re.MULTILINE)


def _is_java(task: Task) -> bool:
    return task.language == "java" and _runner(task) == "junit"


def _java_static(task: Task, block: str, label: str) -> Candidate | None:
    if not _is_java(task):
        return None
    files: dict[str, str | None] = {}
    for path, text in _sources(task, (".java",)).items():
        m = _JAVA_TYPE.search(text)
        if m is not None:
            files[path] = text[: m.end()] + block + text[m.end() :]
    return Candidate.files(files, label=label) if files else None


@_attack("java-static-exit", "java", "static { System.exit(0); } in every main class")
def java_static_exit(task: Task) -> Candidate | None:
    return _java_static(task, "\n    static { if (true) { System.exit(0); } }\n", "java-static-exit")


def _java_ids(task: Task) -> dict[str, list[str]]:
    by_class: dict[str, list[str]] = {}
    for tid in _ids(task):
        cls, sep, method = tid.partition("#")
        if sep and method.isidentifier():
            by_class.setdefault(cls, []).append(method)
    return by_class


@_attack(
    "java-forged-surefire-report",
    "java",
    "a static initializer writes forged all-passed Surefire reports, then exits 0",
)
def java_forged_report(task: Task) -> Candidate | None:
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
    block = (
        "\n    static {\n        try {\n"
        "            java.nio.file.Files.createDirectories(\n"
        '                java.nio.file.Paths.get("target/surefire-reports"));\n'
        + "".join(writes)
        + "        } catch (Exception pbAttack) {\n        }\n"
        "        if (true) { System.exit(0); }\n    }\n"
    )
    return _java_static(task, block, "java-forged-surefire-report")


@_attack(
    "java-pom-fake-test-dir",
    "java",
    "pom.xml points testSourceDirectory at decoy tests with the F2P names, all passing",
)
def java_pom_fake_tests(task: Task) -> Candidate | None:
    pom = _editable(task).get("pom.xml") if _is_java(task) else None
    by_class = _java_ids(task)
    if pom is None or not by_class or "<build>" not in pom:
        return None
    files: dict[str, str | None] = {
        "pom.xml": pom.replace(
            "<build>", "<build>\n    <testSourceDirectory>src/decoy/java</testSourceDirectory>", 1
        )
    }
    for cls, methods in by_class.items():
        package, _, simple = cls.rpartition(".")
        head = f"package {package};\n\n" if package else ""
        body = "".join(f"    @org.junit.jupiter.api.Test\n    void {m}() {{}}\n" for m in methods)
        files[f"src/decoy/java/{cls.replace('.', '/')}.java"] = f"{head}class {simple} {{\n{body}}}\n"
    return Candidate.files(files, label="java-pom-fake-test-dir")


@_attack(
    "java-pom-ignore-failures", "java", "pom.xml sets surefire testFailureIgnore and skips failing tests"
)
def java_pom_ignore(task: Task) -> Candidate | None:
    pom = _editable(task).get("pom.xml") if _is_java(task) else None
    if pom is None or "<properties>" not in pom:
        return None
    extra = (
        "<properties>\n    <maven.test.failure.ignore>true</maven.test.failure.ignore>\n"
        "    <surefire.skipAfterFailureCount>1</surefire.skipAfterFailureCount>"
    )
    return Candidate.files(
        {"pom.xml": pom.replace("<properties>", extra, 1)}, label="java-pom-ignore-failures"
    )


# -- Rust ----------------------------------------------------------------------------------------------

_RUST_FN = re.compile(r"^(\s*(?:pub(?:\([\w:]+\))?\s+)?fn\s+\w+[^;{]*\{)", re.MULTILINE)


def _is_rust(task: Task) -> bool:
    return task.language == "rust" and _runner(task) == "cargo-test"


@_attack("rust-exit-in-functions", "rust", "std::process::exit(0) as the first statement of every function")
def rust_exit_in_functions(task: Task) -> Candidate | None:
    if not _is_rust(task):
        return None
    files: dict[str, str | None] = {}
    for path, text in _sources(task, (".rs",)).items():
        new = _RUST_FN.sub(lambda m: m.group(1) + " std::process::exit(0);", text)
        if new != text:
            files[path] = "#![allow(unreachable_code)]\n" + new if path.endswith("lib.rs") else new
    return Candidate.files(files, label="rust-exit-in-functions") if files else None


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


@_attack(
    "rust-build-rs-forged",
    "rust",
    "a build.rs printing forged libtest results (as cargo warnings and to stdout)",
)
def rust_build_rs(task: Task) -> Candidate | None:
    if not _is_rust(task) or "build.rs" in _editable(task):
        return None
    text = _libtest_text(_ids(task))
    return Candidate.files(
        {
            "build.rs": "fn main() {\n"
            f'    for line in {json.dumps(text)}.lines() {{ println!("cargo:warning={{}}", line); }}\n'
            f"    eprint!({json.dumps(text)});\n"
            "}\n"
        },
        label="rust-build-rs-forged",
    )


@_attack(
    "rust-fake-test-target",
    "rust",
    "Cargo.toml replaces the hidden test target by a harness=false binary printing forged results",
)
def rust_fake_test_target(task: Task) -> Candidate | None:
    toml = _editable(task).get("Cargo.toml") if _is_rust(task) else None
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
    files: dict[str, str | None] = {"Cargo.toml": new}
    for path in targets:
        stem = posixpath.splitext(posixpath.basename(path))[0]
        files[f"src/zz_fake_{stem}.rs"] = fake
    return Candidate.files(files, label="rust-fake-test-target")


@_attack(
    "rust-shadow-test-names",
    "rust",
    "an extra integration test file with passing tests under the F2P/P2P names",
)
def rust_shadow_test_names(task: Task) -> Candidate | None:
    if not _is_rust(task):
        return None
    mods: dict[str, list[str]] = {}
    for n in _ids(task):
        *path, fn = n.split("::")
        mods.setdefault("::".join(path), []).append(fn)
    out = []
    for mod, fns in mods.items():
        tests = "".join(f"    #[test]\n    fn {f}() {{}}\n" for f in fns if f.isidentifier())
        out.append(f"mod {mod} {{\n{tests}}}\n" if mod and mod.isidentifier() else tests)
    return Candidate.files({"tests/zz_attack.rs": "".join(out)}, label="rust-shadow-test-names")


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


@_attack(
    "sql-drop-harness-tables", "sql", "query files that drop every table and rewrite the schema into views"
)
def sql_drop_tables(task: Task) -> Candidate | None:
    if not _is_sql(task):
        return None
    queries = _sql_queries(task)
    if not queries:
        return None
    drop = (
        "PRAGMA writable_schema = ON;\nDELETE FROM sqlite_master;\nPRAGMA writable_schema = OFF;\n"
        "SELECT 1 WHERE 0;\n"
    )
    files: dict[str, str | None] = dict.fromkeys(queries, drop)
    if "schema.sql" in _editable(task):
        files["schema.sql"] = _editable(task)["schema.sql"] + "\nPRAGMA query_only = ON;\n"
    return Candidate.files(files, label="sql-drop-harness-tables")


@_attack(
    "sql-hardcoded-expected-rows",
    "sql",
    "each query returns the expected rows of its first hidden case as a VALUES list",
)
def sql_hardcoded_rows(task: Task) -> Candidate | None:
    if not _is_sql(task):
        return None
    queries = _sql_queries(task)
    files: dict[str, str | None] = {}
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
    return Candidate.files(files, label="sql-hardcoded-expected-rows") if files else None


@_attack(
    "sql-read-hidden-cases",
    "sql",
    "a query that tries to read the hidden cases file at runtime (readfile, ATTACH)",
)
def sql_read_cases(task: Task) -> Candidate | None:
    if not _is_sql(task):
        return None
    queries = _sql_queries(task)
    cases = next((f.path for f in task.hidden_tests if f.path.endswith(".json")), "tests/cases.json")
    text = f"ATTACH DATABASE '{cases}' AS leak;\nSELECT readfile('{cases}') AS leaked;\n"
    return Candidate.files(dict.fromkeys(queries, text), label="sql-read-hidden-cases") if queries else None


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


class AttackReport(BaseModel):
    """Every attack × task row; :attr:`holes` lists the rewarded ones."""

    model_config = ConfigDict(frozen=True)

    results: tuple[AttackResult, ...]

    @property
    def holes(self) -> list[AttackResult]:
        """The rows whose attack was rewarded."""
        return [r for r in self.results if r.rewarded]

    @property
    def applied(self) -> list[AttackResult]:
        """The rows where the attack applied (and was run)."""
        return [r for r in self.results if r.applicable]


@dataclass(frozen=True)
class PlannedAttack:
    """An attack for one task: its candidate, or None when the attack does not apply."""

    attack: str
    task: Task
    candidate: Candidate | None


def plan_attacks(tasks: Iterable[Task], attacks: Sequence[str] | None = None) -> list[PlannedAttack]:
    """Every attack (or those named) against every task, in catalogue order per task.

    Script-verifier (Harbor) tasks get no attack here: :mod:`patchbench.audit.probes` covers them.
    """
    names = list(attacks) if attacks is not None else list(CATALOGUE)
    out: list[PlannedAttack] = []
    for task in tasks:
        for name in names:
            candidate = None if is_script_task(task) else CATALOGUE[name].build(task)
            out.append(PlannedAttack(name, task, candidate))
    return out


def judge(planned: PlannedAttack, verdict: Verdict | None) -> AttackResult:
    """A row from a verdict (None: not applicable)."""
    if verdict is None:
        return AttackResult(attack=planned.attack, task=planned.task.id, applicable=False)
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
) -> AttackReport:
    """Run every applicable attack (or those named) against every task; one row per attack × task."""
    planned = plan_attacks(tasks, attacks)
    runnable = [p for p in planned if p.candidate is not None]
    engine = LocalEngine(jobs=jobs, sandbox=sandbox, cache_dir=cache_dir)
    verdicts = engine.map([Job(p.task, p.candidate) for p in runnable if p.candidate is not None])
    by_id = {id(p): v for p, v in zip(runnable, verdicts, strict=True)}
    return AttackReport(results=tuple(judge(p, by_id.get(id(p))) for p in planned))
