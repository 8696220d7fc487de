"""The pytest runner: per-test results from the JUnit XML report pytest writes outside the workspace.

pytest is asked, through ``PYTEST_ADDOPTS``, to write ``junit.xml`` in the xunit1 family: unlike
xunit2, xunit1 gives every ``<testcase>`` a ``file`` attribute, from which the node id
(``tests/test_x.py::TestA::test_b[1-2]``) can be rebuilt exactly. The report is read with
``xml.etree.ElementTree`` rather than ``junitparser``: we need raw attributes (``file``) and every child
of a testcase (pytest may put a ``<failure>`` and an ``<error>`` side by side), which junitparser's
object model hides or reduces to one result, and ElementTree is typed for strict mypy.

Known limitations of the report itself (not of this parser):

* a non-strict xpass (``@pytest.mark.xfail`` that passes) is written as a plain pass: it reads as
  ``PASSED``, never ``XPASS``;
* a command that runs pytest several times leaves only the last run's report.
"""

from __future__ import annotations

import posixpath
import re
import shlex
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import ClassVar

from ..errors import ResultParseError
from ..results import SEVERITY, Outcome, TestResult, TestResults
from ..task import TestCommand
from ..untrusted import read_untrusted
from ._base import Invocation, Runner, RunOutput
from ._commands import runs_pytest

#: The report file pytest writes in the report directory.
REPORT_FILE = "junit.xml"

#: Longest message kept for one test (the ``message`` attribute plus the end of the traceback).
MAX_MESSAGE_CHARS = 2000

#: What pytest's exit codes mean, for notes.
EXIT_CODES = {
    0: "all tests passed",
    1: "tests failed",
    2: "interrupted or collection errors",
    3: "internal error",
    4: "usage error",
    5: "no tests collected",
}

# pytest's text for an xpass it could only report through <skipped> (see _pytest/junitxml.py).
_XPASS_SKIP_MESSAGE = "xfail-marked test passes unexpectedly"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _message(element: ET.Element) -> str | None:
    """The child's ``message`` attribute, then the end of its text (where the error line is)."""
    head = (element.get("message") or "").strip()
    body = (element.text or "").strip()
    if body == head:
        body = ""
    budget = MAX_MESSAGE_CHARS - len(head) - 1
    if budget < 200:
        head = head[: MAX_MESSAGE_CHARS // 2 - 1] + "…"
        budget = MAX_MESSAGE_CHARS - len(head) - 1
    if len(body) > budget:
        body = "…" + body[-(budget - 1) :]
    text = "\n".join(p for p in (head, body) if p)
    return text or None


def _child_outcome(element: ET.Element) -> Outcome | None:
    if element.tag == "failure":
        return Outcome.FAILED
    if element.tag == "error":
        return Outcome.ERROR
    if element.tag == "skipped":
        if element.get("type") == "pytest.xfail":
            return Outcome.XFAIL
        if element.get("message") == _XPASS_SKIP_MESSAGE:
            return Outcome.XPASS
        return Outcome.SKIPPED
    return None  # properties, system-out, system-err


def _module_dotted(path: str) -> str:
    """pytest's dotted form of a module path in ``classname`` (``tests/test_x.py`` → ``tests.test_x``)."""
    return re.sub(r"\.py$", "", path).replace("/", ".")


def _split_classname(classname: str) -> tuple[list[str], list[str]]:
    """Split a classname into (module parts, class parts) without knowing the file.

    pytest's default ``python_classes`` is ``Test*`` and modules are conventionally lowercase, so the
    classes start at the first part that begins with a capital letter.
    """
    parts = classname.split(".")
    for k, part in enumerate(parts):
        if part[:1].isupper():
            return parts[:k], parts[k:]
    return parts, []


def node_id(file: str | None, classname: str, name: str) -> str:
    """Rebuild a pytest node id from an xunit1 testcase's ``file``, ``classname`` and ``name``.

    ``classname`` is the module's dotted path followed by any class names (``tests.test_x.TestA.TestB``);
    the module part is recognised from ``file`` and dropped, leaving the classes. Without ``file`` the
    module part is guessed (see :func:`_split_classname`).

    Args:
        file: the rootdir-relative file, as pytest wrote it; None when the attribute is missing.
        classname: the testcase's ``classname``; empty for a collection error or a module-level skip,
            where ``name`` is the module's dotted path.
        name: the test name, with its parameters (``test_a[1-2]``).

    Returns:
        ``file::Class::name`` or ``file::name``; just the file path for a collection-level entry.
    """
    path = _normalise_path(file) if file else None
    if not classname:
        # A collection report: the "test" is the module itself.
        if path:
            return path
        module, _ = _split_classname(name)
        return "/".join(module) + ".py" if module else name
    parts = classname.split(".")
    if path:
        module = _module_dotted(path).split(".")
        # Normally the module is the start of classname; after --junit-prefix it comes later.
        for i in range(len(parts) - len(module) + 1):
            if parts[i : i + len(module)] == module:
                return "::".join([path, *parts[i + len(module) :], name])
        _, classes = _split_classname(classname)
        return "::".join([path, *classes, name])
    module, classes = _split_classname(classname)
    guessed = "/".join(module) + ".py" if module else ""
    return "::".join([p for p in (guessed, *classes) if p] + [name])


def _normalise_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


@dataclass
class _Acc:
    outcome: Outcome
    message: str | None
    duration_s: float | None


def _duration(case: ET.Element) -> float | None:
    try:
        value = float(case.get("time", ""))
    except ValueError:
        return None
    return value if value >= 0 else None


def parse_junit(data: bytes, *, exit_code: int | None, source: str = REPORT_FILE) -> TestResults:
    """Parse a pytest JUnit XML report (xunit1 family) and cross-check it with pytest's exit code.

    Several testcases with the same node id (pytest writes a failure in the call and an error in the
    teardown as two testcases) are merged: the worst outcome wins, and its message is kept.

    Args:
        data: the report's bytes.
        exit_code: pytest's exit code, None when the command was killed.
        source: the report's name, for error messages.

    Returns:
        The results in report order. ``complete`` is False when the exit code shows pytest was
        interrupted or broke (2, 3, 4, killed, unknown), or disagrees with the report (0 with failures,
        1 without); a note names the exit code. Exit code 5 (no tests collected) with an empty report
        is a complete run of zero tests.

    Raises:
        ResultParseError: the report is empty, not well-formed XML, or not a JUnit report.
    """
    if not data.strip():
        raise ResultParseError(f"{source}: the JUnit report is empty")
    # pytest never writes a DTD; refusing one keeps entity tricks in a report written by the code
    # under test (it can reach the report directory through PYTEST_ADDOPTS) out of the parser.
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise ResultParseError(f"{source}: a JUnit report must not declare a DTD or entities")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise ResultParseError(f"{source}: not well-formed XML ({_one_line(str(exc))})") from None
    if root.tag not in ("testsuites", "testsuite"):
        raise ResultParseError(f"{source}: root element <{_one_line(root.tag)}> is not a JUnit report")

    merged: dict[str, _Acc] = {}
    duplicates = 0
    for case in root.iter("testcase"):
        test_id = node_id(case.get("file"), case.get("classname", ""), case.get("name", ""))
        # No child means passed; otherwise the worst child wins (a teardown <error> after a pass).
        outcome = Outcome.PASSED
        message: str | None = None
        for child in case:
            found = _child_outcome(child)
            if found is not None and SEVERITY[found] > SEVERITY[outcome]:
                outcome, message = found, _message(child)
        duration = _duration(case)
        prev = merged.get(test_id)
        if prev is None:
            merged[test_id] = _Acc(outcome, message, duration)
            continue
        duplicates += 1
        if SEVERITY[outcome] > SEVERITY[prev.outcome]:
            prev.outcome, prev.message = outcome, message
        if duration is not None:
            prev.duration_s = duration + (prev.duration_s or 0.0)

    tests = tuple(
        TestResult(id=k, outcome=v.outcome, duration_s=v.duration_s, message=v.message)
        for k, v in merged.items()
    )
    notes: list[str] = []
    if duplicates:
        notes.append(f"merged {duplicates} repeated testcase entries (worst outcome kept)")
    complete = _cross_check(exit_code, tests, notes)
    return TestResults(runner=PytestRunner.name, tests=tests, complete=complete, notes=tuple(notes))


def _cross_check(exit_code: int | None, tests: tuple[TestResult, ...], notes: list[str]) -> bool:
    """Compare the report with pytest's exit code; append a note and return False on any doubt."""
    bad = sum(1 for t in tests if t.outcome in (Outcome.FAILED, Outcome.ERROR))
    if exit_code is None:
        notes.append("pytest was killed (no exit code): the report may be partial")
        return False
    meaning = EXIT_CODES.get(exit_code)
    if meaning is None:
        notes.append(f"pytest exit code {exit_code} is not one pytest uses: the run may have been cut short")
        return False
    if exit_code == 0 and bad:
        notes.append(f"pytest exit code 0 ({meaning}) but the report has {bad} failures or errors")
        return False
    if exit_code == 1 and not bad:
        notes.append(f"pytest exit code 1 ({meaning}) but the report has no failure or error")
        return False
    if exit_code in (2, 3, 4):
        notes.append(f"pytest exit code {exit_code} ({meaning}): the run did not finish normally")
        return False
    if exit_code == 5 and tests:
        notes.append(f"pytest exit code 5 ({meaning}) but the report lists {len(tests)} entries")
    return True


class PytestRunner(Runner):
    """Runs pytest with a JUnit XML report written to the report directory, and reads it back."""

    name = "pytest"
    #: pytest's own internal error (3) and usage error (4): the tool failed, not the code under test.
    infra_exit_codes: ClassVar[tuple[int, ...]] = (3, 4)

    def claims(self, words: list[str]) -> bool:
        """``pytest``, ``py.test``, ``python -m pytest`` (after wrappers)."""
        return runs_pytest(words)

    def invoke(self, command: TestCommand, report_dir: str) -> Invocation:
        """The command unchanged, with ``PYTEST_ADDOPTS`` asking for an xunit1 report in ``report_dir``.

        ``-p no:cacheprovider`` keeps pytest from writing ``.pytest_cache`` into the workspace.
        """
        report = shlex.quote(f"--junitxml={posixpath.join(report_dir, REPORT_FILE)}")
        addopts = f"{report} -o junit_family=xunit1 -p no:cacheprovider"
        return Invocation(argv=command.to_argv(), env={"PYTEST_ADDOPTS": addopts})

    def parse(self, out: RunOutput) -> TestResults:
        """Read ``junit.xml`` from ``out.report_dir``.

        Raises:
            ResultParseError: the report is missing, unreadable, empty or not a JUnit report.
        """
        path = out.report_dir / REPORT_FILE
        try:
            data = read_untrusted(path, root=out.report_dir, owner=out.owner, entries=b"<testcase")
        except FileNotFoundError:
            raise ResultParseError(
                f"{path}: pytest wrote no JUnit report (exit code {out.exit_code})"
            ) from None
        except OSError as exc:
            raise ResultParseError(f"{path}: cannot read the JUnit report ({exc.strerror})") from None
        return parse_junit(data, exit_code=out.exit_code, source=str(path))

    def normalise_id(self, test_id: str) -> str:
        """Trim, turn backslashes into ``/`` and drop a leading ``./`` in the file part of a node id.

        Only the file part (before the first ``::``) is touched: parameters may hold backslashes.
        """
        test_id = test_id.strip()
        path, sep, rest = test_id.partition("::")
        return _normalise_path(path) + sep + rest
