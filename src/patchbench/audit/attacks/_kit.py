"""The kit: the Attack type, the catalogue, what a task looks like, candidate builders and forged reports."""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from ...candidate import Candidate
from ...runners import choose_runner
from ...task import Task, VerifierKind

log = logging.getLogger("patchbench.audit.attacks")

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
    """One named attack: its language, what it tries, and the function that builds its candidate.

    ``holds_fix``: the candidate carries the gold patch's fix, switched on by a gate (only inside the
    listed tests, only under a test tool...). Such a candidate does not earn its reward *without fixing
    the bug*; it tests whether the verifier can tell code fixed for the listed tests or under test only
    from fixed code. When one is accepted the report counts it apart from the holes.
    """

    name: str
    language: str
    description: str
    build: AttackFn
    holds_fix: bool = False


CATALOGUE: dict[str, Attack] = {}
"""Every attack by name, in definition order."""


class _Entry(NamedTuple):
    """One row of an attack table: ``make(task, name)`` runs only where ``applies(task)``."""

    name: str
    language: str
    description: str
    applies: Applies
    make: Make
    holds_fix: bool = False


def _catalogue(*entries: _Entry) -> None:
    """Register a table of attacks in :data:`CATALOGUE`, in order."""
    for entry in entries:
        if entry.name in CATALOGUE:
            raise ValueError(f"duplicate attack {entry.name!r}")
        CATALOGUE[entry.name] = Attack(
            entry.name, entry.language, entry.description, _bind(entry), holds_fix=entry.holds_fix
        )


def _holding_fix(*names: str) -> None:
    """Mark registered attacks whose candidate carries the gold fix behind a gate (see :class:`Attack`)."""
    for name in names:
        CATALOGUE[name] = replace(CATALOGUE[name], holds_fix=True)


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


def _chars(text: str) -> str:
    """``text`` as a Python ``chr`` join expression: the name never appears in the candidate's source."""
    return "''.join(map(chr, (" + ", ".join(str(ord(c)) for c in text) + ",)))"
