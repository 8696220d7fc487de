"""The JUnit XML runner: per-test results from the JUnit XML report files a Java test tool writes.

One reader serves every producer of JUnit XML; this module's :class:`JunitRunner` drives the two Java ones:

* **Maven Surefire/Failsafe** (``mvn``, ``mvnw``, ``./mvnw`` test commands). Surefire 3.x has no user
  property for its report directory (``reportsDirectory`` is settable only in the pom), so the command
  is wrapped: after it exits, every ``TEST-*.xml`` under a ``surefire-reports``/``failsafe-reports``
  directory below the working directory that was written *during this run* (newer than a marker file
  made just before it) is copied into the report directory, module paths kept. Reports a candidate
  ships in ``target/`` are older than the marker and never read. The exit code is passed through. A run
  killed at its time limit loses its Maven reports (the copy never happens); its verdict is ``timeout``
  whatever they said.
* **The JUnit Platform console launcher** (``java -jar junit-platform-console-standalone*.jar ...`` or
  ``java ... org.junit.platform.console.ConsoleLauncher ...``): ``--reports-dir=<report dir>`` is added
  after the launcher (after its ``execute`` subcommand when there is one) and any ``--reports-dir``
  of the command's own is dropped. In a shell string the same edit is made to the text; a launcher jar
  named through ``$JUNIT_CONSOLE_JAR`` (what :class:`patchbench.envs.java.JavaEnv` provides) counts too.

Test ids are ``fully.qualified.Class#method`` in the report's own spelling of the method
(``param(int)[1]`` for a parameterised invocation, ``factory()[2]`` for a dynamic test), with nested
classes joined by ``$`` (``demo.CalcTest$Inner#deep``). :meth:`JunitRunner.normalise_id` makes the
common spellings of one test compare equal: ``Class.method`` and ``Class#method``; ``Outer.Inner`` and
``Outer$Inner`` (after the first capitalised segment, a ``.`` in the class part is read as nesting);
``adds`` and ``adds()`` (Surefire and the console launcher differ there). The package is never
dropped: ``CalcTest#adds`` does not match ``demo.CalcTest#adds``, because stripping packages on both
sides would merge same-named classes of different packages. A class-level failure (a ``@BeforeAll``
that throws) is reported by Surefire as a testcase with an empty name: its id is the class alone, and
the class's own tests are then absent from the report (so they count as failed by default).

Outcomes: ``<failure>`` (an assertion) is ``failed``, ``<error>`` (any other exception) is ``error``,
``<skipped>`` (``@Disabled``, a failed assumption) is ``skipped``; Surefire's ``<flakyFailure>``/
``<flakyError>`` on a testcase without ``<failure>``/``<error>`` is a pass after reruns (noted).

A command that wrote no report is read from its output: a compiler error (``maven-compiler-plugin``'s
``COMPILATION ERROR``/``file.java:[line,col]`` lines, or ``javac``'s ``file.java:N: error:`` lines) or
another build failure before the tests (unresolvable dependency offline, an unreadable pom) becomes
``build_error``; "no tests ran" is zero tests, never a pass. Maven exits 1 both for failing tests and
for a failed build: the reports tell them apart. Maven's compiler errors count even next to reports (a
multi-module build where one module does not compile); javac's only when no test result was read.

:func:`parse_junit_reports` is the format reader on its own, for other runners that read JUnit XML
(Jest/Vitest/Mocha reporters): give it the files and a function that builds an id from a testcase.
A subclass of :class:`JunitRunner` can instead override :meth:`~JunitRunner.invoke`,
:meth:`~JunitRunner.report_paths` (more files to read) and :meth:`~JunitRunner.test_id`.
"""

from __future__ import annotations

import os
import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ..errors import ResultParseError
from ..results import SEVERITY, Outcome, TestResult, TestResults
from ..task import TestCommand
from ..untrusted import read_untrusted
from ._base import Invocation, Runner, RunOutput

#: Longest message kept for one test (the ``message`` attribute plus the start of the stack trace).
MAX_MESSAGE_CHARS = 2000
#: Longest build-error message kept.
MAX_BUILD_ERROR_CHARS = 4000

#: Programs that run Maven.
MAVEN_PROGRAMS = frozenset({"mvn", "mvnw", "mvnd", "mvn.cmd", "mvnw.cmd"})
#: The console launcher's main class, and how its standalone jar is named.
CONSOLE_MAIN = "org.junit.platform.console.ConsoleLauncher"
CONSOLE_JAR = "junit-platform-console-standalone"
#: The variable :class:`patchbench.envs.java.JavaEnv` sets to the cached standalone jar.
CONSOLE_JAR_VAR = "JUNIT_CONSOLE_JAR"

# Runs the command, then copies the Surefire/Failsafe reports it wrote into the report directory.
# $1 is the report directory; the command follows. Only files newer than the marker are copied.
_COLLECT_SCRIPT = r"""report_dir=$1; shift
marker=$(mktemp "${TMPDIR:-/tmp}/patchbench-junit.XXXXXX" 2>/dev/null) || marker=
"$@"
rc=$?
if [ -n "$marker" ]; then
  find . \( -name .git -o -name node_modules \) -prune -o -type f -name 'TEST-*.xml' \
    \( -path '*/surefire-reports/*' -o -path '*/failsafe-reports/*' \) -newer "$marker" -print0 2>/dev/null |
  while IFS= read -r -d '' f; do
    f=${f#./}
    mkdir -p "$report_dir/$(dirname "$f")" && cp "$f" "$report_dir/$f"
  done
  rm -f "$marker"
fi
exit "$rc"
"""
_COLLECT_NAME = "patchbench-junit-collect"


def _one_line(text: str) -> str:
    return " ".join(text.split())


# -- the JUnit XML reader ------------------------------------------------------------------------


def default_test_id(classname: str, name: str) -> str:
    """``classname#name``; the class alone for a class-level entry (empty name); the name alone
    without a class."""
    classname, name = classname.strip(), name.strip()
    if classname and name:
        return f"{classname}#{name}"
    return classname or name


#: Builds a test id from a ``<testcase>`` element (and the ``<testsuite>`` that holds it).
IdMaker = Callable[[ET.Element, "ET.Element | None"], str]


def _id_from_case(case: ET.Element, _suite: ET.Element | None) -> str:
    return default_test_id(case.get("classname", ""), case.get("name", ""))


def _message(element: ET.Element) -> str | None:
    """The child's ``message`` attribute, then the start of its text (the exception and top frames)."""
    head = (element.get("message") or "").strip()
    body = (element.text or "").strip()
    # Surefire's body starts with "ExceptionType: message": then the body alone says it all.
    first = body.partition("\n")[0].strip()
    if head and (first == head or first.endswith(": " + head)):
        head = ""
    text = "\n".join(p for p in (head, body) if p)
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[: MAX_MESSAGE_CHARS - 1] + "…"
    return text or None


def _duration(case: ET.Element) -> float | None:
    raw = (case.get("time") or "").replace(",", "")
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if value >= 0 else None


_CHILD_OUTCOMES = {"failure": Outcome.FAILED, "error": Outcome.ERROR, "skipped": Outcome.SKIPPED}


@dataclass
class _Acc:
    outcome: Outcome
    message: str | None
    duration_s: float | None


def _case_outcome(case: ET.Element) -> tuple[Outcome, str | None, bool]:
    """(outcome, message, flaky) of one testcase: no child is a pass, else the worst child wins."""
    outcome, message, flaky = Outcome.PASSED, None, False
    for child in case:
        found = _CHILD_OUTCOMES.get(child.tag)
        if child.tag in ("flakyFailure", "flakyError"):
            flaky = True
        elif found is not None and SEVERITY[found] > SEVERITY[outcome]:
            outcome, message = found, _message(child)
    return outcome, message, flaky and outcome is Outcome.PASSED


class _UnreadableReport(ResultParseError):
    """A report file that is there but empty or not well-formed: it was cut while being written."""


def _read_report(path: Path) -> ET.Element:
    try:
        data = read_untrusted(path, root=path.parent, entries=b"<testcase")
    except OSError as exc:
        raise ResultParseError(f"{path}: cannot read ({exc.strerror})") from None
    if not data.strip():
        raise _UnreadableReport(f"{path}: the report is empty")
    # No JUnit producer writes a DTD; refusing one keeps entity tricks out of the parser.
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise ResultParseError(f"{path}: a JUnit report must not declare a DTD or entities")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise _UnreadableReport(f"{path}: not well-formed XML ({_one_line(str(exc))})") from None
    if root.tag not in ("testsuites", "testsuite"):
        raise ResultParseError(f"{path}: root element <{_one_line(root.tag)}> is not a JUnit report")
    return root


def _cases(root: ET.Element) -> Iterable[tuple[ET.Element, ET.Element | None]]:
    """Every testcase with the innermost testsuite that holds it."""

    def walk(node: ET.Element, suite: ET.Element | None) -> Iterable[tuple[ET.Element, ET.Element | None]]:
        for child in node:
            if child.tag == "testcase":
                yield child, suite
            elif child.tag in ("testsuite", "testsuites"):
                yield from walk(child, child)

    yield from walk(root, root if root.tag == "testsuite" else None)


def parse_junit_reports(
    paths: Iterable[Path],
    *,
    runner: str,
    make_id: IdMaker = _id_from_case,
) -> TestResults:
    """Read JUnit XML report files into one set of results.

    Every ``<testcase>`` of every file becomes a result (no child: passed; ``<failure>``: failed;
    ``<error>``: error; ``<skipped>``: skipped). Testcases that share an id are merged, worst outcome
    first (see :data:`patchbench.results.SEVERITY`). A file that is not a JUnit report (another XML
    file in the directory, a truncated file) is skipped with a note.

    Args:
        paths: the report files, read in the order given.
        runner: the runner name the results carry.
        make_id: builds an id from a testcase element and its innermost testsuite (default:
            ``classname#name``, see :func:`default_test_id`).

    Returns:
        The results, ``complete`` True (a caller cross-checks exit codes), with notes for skipped
        files, merged duplicates and flaky passes.

    Raises:
        ResultParseError: no file given, or none of them is a readable JUnit report.
    """
    merged: dict[str, _Acc] = {}
    notes: list[str] = []
    problems: list[str] = []
    read = duplicates = flaky = cut = 0
    for path in paths:
        try:
            root = _read_report(path)
        except ResultParseError as exc:
            problems.append(str(exc))
            cut += isinstance(exc, _UnreadableReport)
            continue
        read += 1
        for case, suite in _cases(root):
            test_id = make_id(case, suite)
            if not test_id:
                continue
            outcome, message, was_flaky = _case_outcome(case)
            flaky += was_flaky
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
    if not read:
        if problems:
            raise ResultParseError("; ".join(problems[:3]))
        raise ResultParseError("no JUnit XML report files")
    notes.extend(f"skipped a file: {p}" for p in problems[:5])
    if duplicates:
        notes.append(f"merged {duplicates} repeated testcase entries (worst outcome kept)")
    if flaky:
        notes.append(f"{flaky} test(s) passed only after a rerun (Surefire flaky result)")
    tests = tuple(
        TestResult(id=k, outcome=v.outcome, duration_s=v.duration_s, message=v.message)
        for k, v in merged.items()
    )
    if cut:
        # An empty or cut report (the JVM was killed while writing it) lost its tests.
        notes.append(f"{cut} report file(s) empty or not well-formed: their tests are missing")
    return TestResults(runner=runner, tests=tests, complete=not cut, notes=tuple(notes))


# -- build errors from the tool's output ----------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_LEVEL = re.compile(r"^\[(?:ERROR|WARNING|INFO)\]\s?")
# maven-compiler-plugin: "[ERROR] /workspace/src/main/java/demo/Calc.java:[7,16] cannot find symbol"
_MVN_COMPILER_LINE = re.compile(
    r"^\[ERROR\] (?P<file>\S.*?\.java):\[(?P<line>\d+),(?P<col>\d+)\] (?P<msg>.*)$"
)
_MVN_FAILED_GOAL = re.compile(r"^\[ERROR\] Failed to execute goal (?P<goal>\S+)?(?P<rest>.*)$")
_MVN_TEST_GOAL = re.compile(r"(?:surefire|failsafe)[^:]*:[^:]+:(?:test|integration-test|verify)\b")
_MVN_TESTS_STARTED = re.compile(r"^(?:\[\w+\] )?(?:Tests run: \d+| T E S T S$|Running \S+$)")
_MVN_PROJECT_PROBLEMS = re.compile(
    r"^\[ERROR\] (?:\[ERROR\] )?(?:Some problems were encountered while processing the POMs"
    r"|The build could not read \d+ project)"
)
# javac: "src/demo/Calc.java:7: error: cannot find symbol"
_JAVAC_LINE = re.compile(r"^(?P<file>[^\s:][^:]*\.java):(?P<line>\d+): error: (?P<msg>.*)$")
_JAVAC_COUNT = re.compile(r"^\d+ errors?$")
_WORKSPACE_PREFIX = re.compile(r"(?<![\w/])/workspace/")


def _clean_lines(text: str) -> list[str]:
    return [_ANSI.sub("", line).rstrip() for line in text.splitlines()]


def _short(text: str) -> str:
    text = _WORKSPACE_PREFIX.sub("", text.strip())
    if len(text) > MAX_BUILD_ERROR_CHARS:
        text = text[: MAX_BUILD_ERROR_CHARS - 1] + "…"
    return text


def maven_compiler_errors(stdout: str) -> str | None:
    """The compiler errors maven-compiler-plugin printed, one per ``file.java:[line,col]`` line with
    its detail lines (``symbol:``, ``location:``), each error once; None when there are none."""
    lines = _clean_lines(stdout)
    errors: list[str] = []
    seen: set[str] = set()
    i = 0
    while i < len(lines):
        m = _MVN_COMPILER_LINE.match(lines[i])
        i += 1
        if not m:
            continue
        block = [_LEVEL.sub("", lines[i - 1])]
        # Detail lines follow unprefixed ("  symbol:   method foo()") or as "[ERROR]   symbol: ...".
        while i < len(lines):
            nxt = lines[i]
            if nxt.startswith("[ERROR] "):
                bare = nxt[len("[ERROR] ") :]
            elif nxt.startswith("["):
                break
            else:
                bare = nxt
            if not bare.startswith((" ", "\t")) or not bare.strip():
                break
            block.append(bare)
            i += 1
        key = block[0]
        if key not in seen:
            seen.add(key)
            errors.append("\n".join(block))
    if not errors:
        return None
    return _short("\n".join(errors))


def javac_errors(text: str) -> str | None:
    """The errors javac printed (``file.java:N: error: ...`` with the source line, caret and detail
    lines after it, up to the next error or the ``N errors`` count); None when there are none."""
    lines = _clean_lines(text)
    blocks: list[str] = []
    i = 0
    while i < len(lines):
        if not _JAVAC_LINE.match(lines[i]):
            i += 1
            continue
        block = [lines[i]]
        i += 1
        while i < len(lines) and len(block) < 6:
            nxt = lines[i]
            if (
                _JAVAC_LINE.match(nxt)
                or _JAVAC_COUNT.match(nxt.strip())
                or re.match(r"^\S+\.java:\d+: ", nxt)
            ):
                break
            block.append(nxt)
            i += 1
        blocks.append("\n".join(block))
    if not blocks:
        return None
    return _short("\n".join(blocks))


def maven_build_failure(stdout: str, exit_code: int | None = 1) -> tuple[str | None, list[str]]:
    """Why a Maven build that wrote no test report failed.

    Returns:
        (build error, notes). The build error is the compiler's messages, or the ``[ERROR]`` lines of a
        failure before the tests (a dependency or plugin that cannot be resolved offline, a pom that
        cannot be read or is missing); None when the build did not fail, or failed in the test goal
        itself (a crashed test JVM, no test matching ``-Dtest``), which is noted instead.
    """
    compiler = maven_compiler_errors(stdout)
    if compiler is not None:
        return "compilation failed:\n" + compiler, []
    lines = _clean_lines(stdout)
    failed = [ln for ln in lines if _MVN_FAILED_GOAL.match(ln)]
    problems = any(_MVN_PROJECT_PROBLEMS.match(ln) for ln in lines)
    if failed and all(_MVN_TEST_GOAL.search(ln) for ln in failed) and not problems:
        return None, [f"the test goal failed without a report: {_one_line(_LEVEL.sub('', failed[0]))[:300]}"]
    if not failed and not problems:
        # Maven stopped before any goal ("no POM in this directory", a bad command line): only
        # when it says so, exited non-zero and never reached the tests.
        reached_tests = any(_MVN_TESTS_STARTED.search(ln) for ln in lines)
        if exit_code in (0, None) or reached_tests or not any(ln.startswith("[ERROR]") for ln in lines):
            return None, []
    # Keep the error block: "[ERROR] ..." lines up to Maven's generic help footer.
    block: list[str] = []
    for ln in lines:
        if not ln.startswith("[ERROR]"):
            continue
        body = _LEVEL.sub("", ln)
        if body.startswith(
            ("-> [Help", "To see the full stack trace", "Re-run Maven", "For more information")
        ):
            break
        body = re.sub(r"\s*-> \[Help \d+\]$", "", body)
        if body.strip():
            block.append(body)
    return _short("\n".join(block)) or "the Maven build failed", []


# -- recognising and invoking the tools ----------------------------------------------------------


def runs_maven(words: list[str]) -> bool:
    """``mvn``/``mvnw``/``./mvnw``/``mvnd`` (after wrappers), as a simple command's program."""
    return bool(words) and words[0] in MAVEN_PROGRAMS


def runs_console_launcher(words: list[str]) -> bool:
    """``java ... ConsoleLauncher`` or ``java -jar .../junit-platform-console-standalone*.jar``."""
    return _launcher_index(words) is not None


def _is_launcher_jar(word: str) -> bool:
    base = os.path.basename(word)
    return (base.startswith(CONSOLE_JAR) and base.endswith(".jar")) or word.strip("\"'{}$") == CONSOLE_JAR_VAR


def _launcher_index(words: list[str]) -> int | None:
    """Where the launcher is named in a ``java`` command: the main class, or the jar after ``-jar``."""
    if not words or os.path.basename(words[0]) not in ("java", "java.exe"):
        return None
    for i, word in enumerate(words[1:], start=1):
        if word == CONSOLE_MAIN or (words[i - 1] == "-jar" and _is_launcher_jar(word)):
            return i
        if words[i - 1] == "-jar":
            return None  # another jar is the program: what follows is its arguments
    return None


_REPORTS_DIR_OPTION = "--reports-dir"


def add_reports_dir(argv: list[str], report_dir: str) -> list[str]:
    """A console-launcher argv with ``--reports-dir=<report_dir>`` put right after the launcher (after
    an ``execute`` subcommand) and any ``--reports-dir`` of its own removed; other argvs unchanged."""
    at = _launcher_index(argv)
    if at is None:
        return argv
    head, tail = argv[: at + 1], argv[at + 1 :]
    if tail[:1] == ["execute"]:
        head, tail = [*head, "execute"], tail[1:]
    kept: list[str] = []
    skip = False
    for word in tail:
        if skip:
            skip = False
        elif word == _REPORTS_DIR_OPTION:
            skip = True
        elif not word.startswith(_REPORTS_DIR_OPTION + "="):
            kept.append(word)
    return [*head, f"{_REPORTS_DIR_OPTION}={report_dir}", *kept]


# In a shell string: the launcher (the jar after -jar: a path naming the standalone jar, possibly
# quoted, or $JUNIT_CONSOLE_JAR; or the main class), then an optional "execute" subcommand.
_JAR_WORD = (
    r'(?:"[^"\n]*junit-platform-console-standalone[^"\n]*\.jar"'
    r"""|'[^'\n]*junit-platform-console-standalone[^'\n]*\.jar'"""
    r"""|[^\s;&|()<>'"]*junit-platform-console-standalone[^\s;&|()<>'"]*\.jar"""
    r"""|"\$\{?JUNIT_CONSOLE_JAR\}?"|\$\{?JUNIT_CONSOLE_JAR\}?(?!\w))"""
)
_SHELL_LAUNCHER = re.compile(
    rf"""(?P<tok>(?<!\S)-jar\s+{_JAR_WORD}(?=\s|$|[;&|)])"""
    r"""|(?<![\w.])org\.junit\.platform\.console\.ConsoleLauncher(?![\w.]))"""
    r"""(?P<sub>\s+execute(?=\s|$))?"""
)
_SHELL_REPORTS_DIR = re.compile(r"""\s--reports-dir(?:=|\s+)(?:"[^"]*"|'[^']*'|[^\s;&|()<>]+)""")


def add_reports_dir_to_shell(script: str, report_dir: str) -> str:
    """The shell-string form of :func:`add_reports_dir`: the same edit made to every launcher in the
    text; a script without a launcher is returned unchanged."""
    if not _SHELL_LAUNCHER.search(script):
        return script
    script = _SHELL_REPORTS_DIR.sub("", script)
    option = f" {_REPORTS_DIR_OPTION}={shlex.quote(report_dir)}"
    return _SHELL_LAUNCHER.sub(lambda m: m.group(0) + option, script)


def _with_reports_dir(command: TestCommand, report_dir: str) -> list[str]:
    argv = command.to_argv()
    if command.shell is not None:
        return ["bash", "-c", add_reports_dir_to_shell(command.shell, report_dir)]
    if len(argv) >= 3 and os.path.basename(argv[0]) in ("bash", "sh") and argv[1] in ("-c", "-lc", "-ec"):
        return [*argv[:2], add_reports_dir_to_shell(argv[2], report_dir), *argv[3:]]
    return add_reports_dir(argv, report_dir)


# -- the runner ----------------------------------------------------------------------------------

_CONSOLE_FINISHED = re.compile(r"^Test run finished after \d+ ms", re.MULTILINE)
_MAVEN_MARKERS = re.compile(r"^\[(?:INFO|ERROR|WARNING)\] ", re.MULTILINE)
_FORK_CRASH = re.compile(
    r"The forked VM terminated without properly saying goodbye|There was an error in the forked process"
    r"|Crashed tests:"
)


def report_files(report_dir: Path) -> list[Path]:
    """Every ``*.xml`` file below ``report_dir``, in path order."""
    if not report_dir.is_dir():
        return []
    return sorted(p for p in report_dir.rglob("*.xml") if p.is_file())


class JunitRunner(Runner):
    """Runs Maven (Surefire) or the JUnit console launcher and reads their JUnit XML reports."""

    name = "junit"
    infra_exit_codes: ClassVar[tuple[int, ...]] = ()

    def claims(self, words: list[str]) -> bool:
        """``mvn``/``mvnw``/``mvnd`` commands and ``java`` running the console launcher."""
        return runs_maven(words) or runs_console_launcher(words)

    def invoke(self, command: TestCommand, report_dir: str) -> Invocation:
        """The command with ``--reports-dir`` added to any console launcher in it, wrapped so that the
        Surefire/Failsafe reports it writes are copied into ``report_dir`` when it ends."""
        argv = _with_reports_dir(command, report_dir)
        return Invocation(argv=["bash", "-c", _COLLECT_SCRIPT, _COLLECT_NAME, report_dir, *argv])

    def report_paths(self, out: RunOutput) -> list[Path]:
        """The report files to read: every ``*.xml`` below the report directory. Subclasses add theirs."""
        return report_files(out.report_dir)

    def test_id(self, case: ET.Element, suite: ET.Element | None) -> str:
        """A testcase's id: ``classname#name`` (see :func:`default_test_id`). Subclasses may override."""
        return default_test_id(case.get("classname", ""), case.get("name", ""))

    def parse(self, out: RunOutput) -> TestResults:
        """Read every report of :meth:`report_paths`; without one, read the build's output.

        Raises:
            ResultParseError: no report, and nothing in the output says what happened.
        """
        files = self.report_paths(out)
        parsed: TestResults | None = None
        problem: str | None = None
        if files:
            try:
                parsed = parse_junit_reports(files, runner=self.name, make_id=self.test_id)
            except ResultParseError as exc:
                problem = str(exc)
        # Report files that exist but cannot be read were cut while being written: whatever else the
        # run says (exit code 0), their tests are missing.
        cut_reports = problem is not None or (parsed is not None and not parsed.complete)
        text = out.stdout + "\n" + out.stderr
        notes: list[str] = list(parsed.notes) if parsed else []
        if problem:
            notes.append(f"no readable report ({problem})")
        tests = parsed.tests if parsed else ()
        build_error: str | None
        if tests:
            # Tests ran: only a compiler error elsewhere (another module) is a build error.
            compiler = maven_compiler_errors(out.stdout)
            build_error = "compilation failed:\n" + compiler if compiler else None
        else:
            build_error, build_notes = maven_build_failure(out.stdout, out.exit_code)
            notes.extend(build_notes)
            if build_error is None:
                javac = javac_errors(text)
                build_error = "compilation failed:\n" + javac if javac else None
        if build_error is not None:
            return TestResults(
                runner=self.name, tests=tests, complete=False, notes=tuple(notes), build_error=build_error
            )
        if parsed is None:
            readable = bool(_MAVEN_MARKERS.search(out.stdout) or _CONSOLE_FINISHED.search(out.stdout))
            if out.exit_code != 0 and not readable:
                raise ResultParseError(
                    problem
                    or f"no JUnit XML report was written (exit code {out.exit_code}) and the "
                    "output does not say why"
                )
            notes.append(f"no JUnit XML report was written (exit code {out.exit_code})")
        complete = self._cross_check(out, tests, notes) and not cut_reports
        return TestResults(runner=self.name, tests=tests, complete=complete, notes=tuple(notes))

    @staticmethod
    def _cross_check(out: RunOutput, tests: tuple[TestResult, ...], notes: list[str]) -> bool:
        bad = sum(1 for t in tests if t.outcome in (Outcome.FAILED, Outcome.ERROR))
        if out.exit_code is None:
            notes.append("the test command was killed (no exit code): the reports may be partial")
            return False
        if _FORK_CRASH.search(out.stdout):
            notes.append(
                "the forked test JVM crashed or exited early (System.exit?): the reports may be partial"
            )
            return False
        if out.exit_code != 0 and not bad:
            notes.append(f"exit code {out.exit_code} but the reports have no failure or error")
            return False
        if out.exit_code == 0 and bad:
            notes.append(f"exit code 0 but the reports have {bad} failures or errors (failures ignored?)")
        return True

    def normalise_id(self, test_id: str) -> str:
        """``pkg.Outer$Inner#method(params)[n]``, from any of the usual spellings (see the module doc)."""
        return normalise_java_id(test_id)


def normalise_java_id(test_id: str) -> str:
    """The one form in which Java test ids are compared.

    ``pkg.Class.method`` becomes ``pkg.Class#method`` when the last segment before any ``(``/``[``
    starts with a lower-case letter (a method by Java convention; a capitalised last segment is read as
    a class, the id of a class-level entry); in the class part every ``.`` after the first capitalised
    segment becomes ``$`` (nested classes); a trailing ``()`` is dropped from the method (the console
    launcher writes ``adds()``, Surefire ``adds``).
    """
    text = " ".join(test_id.split())
    if "#" in text:
        cls, _, method = text.partition("#")
    else:
        cut = len(text)
        for ch in "([":
            at = text.find(ch)
            if at != -1:
                cut = min(cut, at)
        dot = text.rfind(".", 0, cut)
        last = text[dot + 1 : cut]
        if dot > 0 and last and not last[0].isupper():
            cls, method = text[:dot], text[dot + 1 :]
        else:
            cls, method = text, ""
    cls = _nest(cls.strip())
    method = method.strip()
    if method.endswith("()"):
        method = method[:-2]
    return f"{cls}#{method}" if method else cls


def _nest(cls: str) -> str:
    parts = cls.replace("/", ".").split(".")
    for k, part in enumerate(parts):
        if part[:1].isupper():
            return ".".join(parts[: k + 1]) + "".join("$" + p for p in parts[k + 1 :])
    return cls
