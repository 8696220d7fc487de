"""The ``go test`` runner: per-test results from the ``go test -json`` event stream.

Invocation. ``-json`` is added right after ``test`` in every ``go test`` of the command (an argv, or the
words of a shell string) unless it is already there; nothing else of the command changes (no ``-count=1``,
no ``-vet=off``: the task's flags are the task's). The whole command's standard output is piped into
``go-test.jsonl`` in the report directory, because the sandbox keeps only the head and tail of standard
output (256 KiB) and a few hundred tests already fill that with events; the file keeps all of them, up
to 64 MiB (a test flooding its output is cut off there and the run is incomplete). The
command's exit status is kept (``pipefail``). No test result cache is involved: each run starts from the
environment's warmed build cache, in which no test ever ran.
``GOFLAGS=-json`` was not used: it would also switch ``go vet``, ``go build`` and ``go list`` run by the
same command to JSON.

The stream (see ``go doc cmd/test2json``) mixes test events (``Action`` start/run/pause/cont/output/pass/
fail/skip/bench with ``Package``, ``Test``, ``Elapsed``, ``FailedBuild``) and, since Go 1.24, build events
(``ImportPath`` with build-output/build-fail). Lines that are not JSON (other commands of a shell script)
are skipped and counted.

Test ids. A result's id is ``<import path>.<test>`` where ``<test>`` is the name Go prints: ``TestX``,
``TestX/sub_case`` (Go rewrites spaces in subtest names to ``_`` and numbers duplicates ``#01``),
``ExampleX``, ``FuzzX/seed#0``. F2P/P2P lists may name a test either way, ``TestX/sub_case`` or
``example.com/mod/pkg.TestX/sub_case``: :meth:`GoTestRunner.normalise_id` reduces both to the bare test name
and turns whitespace into ``_`` as Go does. The consequence, with the registry's ``match_ids`` as it is:
when two packages of one run hold a test of the same name, a listed id matches both and the worse outcome
counts, whichever form the list uses. That can only turn a pass into a fail, never the reverse. An id is
read as qualified when it does not start with a top-level test name (``Test``/``Example``/``Fuzz``/
``Benchmark`` + identifier, then ``/`` or the end) and has ``.`` + such a name after a package path; a
module path whose first element itself starts with ``Test`` and holds a ``/`` is misread (never seen).

Package-level outcomes:

* A package that does not build (compiler errors, ``go vet`` findings, a missing import: ``[build failed]``
  or ``[setup failed]``) sets ``build_error`` to the compiler's messages, even when other packages built and
  ran: their tests are still reported and a note names the broken packages. The grader turns any
  ``build_error`` into ``unresolved``: a candidate that breaks the build of any package it is tested with
  does not pass, and listed tests of that package could not be graded anyway. ``complete`` is False.
* A test that panics is failed with the panic text; the tests of that package that had not run yet are
  absent, so ``complete`` is False. A test killed by ``-timeout`` (``panic: test timed out``) or by an
  ``os.Exit`` in the code under test has a ``run`` event and no result: it is failed, with its output and a
  note saying why. A stream cut short (the command was killed) fails the tests that were running, notes
  the packages that never finished, and is incomplete.
* A package that failed although none of its tests failed (``TestMain`` exiting non-zero, flags the test
  binary rejected) is noted and makes the run incomplete.
* A package with no test files is reported by go as skipped and yields no test.

No JSON at all (``go`` stopped before testing anything): when standard error holds the go command's or
the compiler's own errors (``go: errors parsing go.mod``, ``file.go:3:1: ...``) they become
``build_error``; otherwise :class:`~patchbench.errors.ResultParseError` (a usage error, exit 2, says so).
Exit 2 is not declared an infrastructure code although plain ``go test`` uses it only for usage errors:
``make test`` exits 2 for a compile error too, and the harness checks infrastructure codes before it looks
at ``build_error``, so a candidate's compile error would be excused.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import ResultParseError
from ..results import SEVERITY, Outcome, TestResult, TestResults
from ..task import TestCommand
from ..untrusted import read_untrusted
from ._base import Invocation, Runner, RunOutput
from ._commands import program_words

#: The file, in the report directory, that receives the command's standard output.
REPORT_FILE = "go-test.jsonl"

#: The most of the stream kept (and read): a test that floods its output is cut off there.
MAX_REPORT_BYTES = 64 * 2**20
# Standard output of the whole command into the report file, at most MAX_REPORT_BYTES of it (the
# file-size limit applies to cat alone, which copies without buffering, so a killed run loses nothing
# already written); the command's own exit status is kept (pipefail).
_WRAPPER = f'set -o pipefail; "$@" | {{ ulimit -f {MAX_REPORT_BYTES // 1024} && exec cat > "$0"; }}'

#: Longest message kept for one test.
MAX_MESSAGE_CHARS = 2000
#: Longest build error kept (all failing packages together).
MAX_BUILD_ERROR_CHARS = 6000

_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh"})
_TOP_LEVEL = r"(?:Test|Benchmark|Example|Fuzz)[^\s/.]*"
_BARE_ID = re.compile(rf"^{_TOP_LEVEL}(?:/|$)")
_QUALIFIED_ID = re.compile(rf"^(?P<pkg>\S+?)\.(?P<test>{_TOP_LEVEL}(?:/.*)?)$", re.DOTALL)
# Framing lines test2json attributes to a test; they say nothing the event itself does not.
_FRAMING = re.compile(r"^\s*(?:=== (?:RUN|PAUSE|CONT|NAME)\b|--- (?:PASS|FAIL|SKIP|BENCH): )")
_PANIC = re.compile(r"^panic: ", re.MULTILINE)
_TIMEOUT = re.compile(r"^panic: test timed out after (?P<after>\S+)", re.MULTILINE)
_USAGE = re.compile(r"^usage: go |flag provided but not defined|^invalid value .* for flag ", re.MULTILINE)
_GO_ERROR = re.compile(r"^(?:go: |\S+\.go:\d+(?::\d+)?: |# \S)", re.MULTILINE)
# Before Go 1.24 a package that does not build is reported on standard error only: a "# pkg" header
# (" [pkg.test]" for the test variant) and the compiler's (or vet's) "file.go:line:col: msg" lines.
_STDERR_BLOCK_HEADER = re.compile(r"^# (?P<pkg>\S+)(?: \[[^\]]*\])?\s*$")
_GO_FILE_ERROR = re.compile(r"^\S+\.go:\d+(?::\d+)?: ")
# Go before 1.20 printed this as text, not as an event, for a package that did not build.
_BUILD_FAILED_OUTPUT = re.compile(r"^FAIL\s+\S+\s+\[(?:build|setup) failed\]", re.MULTILINE)
_TEXT_BUILD_FAILED = re.compile(r"^FAIL\s+(?P<pkg>\S+)\s+\[(?:build|setup) failed\]\s*$")
# `go test` at a command position of a shell string: after the start, an operator, or a wrapper word.
_GO_TEST_IN_SHELL = re.compile(
    r"(?P<go>(?:^|(?<=[\s;&|(`]))(?:[\w./-]*/)?go)(?P<flags>(?:\s+-C(?:=|\s+)\S+)?)\s+test(?=\s|$|[;&|)`])"
)
_OPERATOR = re.compile(r"[;&|\n)`]")


# -- invocation -------------------------------------------------------------------------------------


def _go_test_index(words: list[str]) -> int | None:
    """Index of ``test`` in a ``go [-C dir] test ...`` argv (program already at 0), else None."""
    if not words or posixpath.basename(words[0]) != "go":
        return None
    i = 1
    while i < len(words) and words[i].startswith("-C"):
        i += 1 if words[i] != "-C" else 2
    return i if i < len(words) and words[i] == "test" else None


def _has_json(words: list[str]) -> bool:
    for w in words:
        if w == "-args":
            return False  # what follows goes to the test binary
        if w in ("-json", "--json", "-json=true", "--json=true"):
            return True
    return False


def add_json_to_argv(argv: list[str]) -> list[str]:
    """``argv`` with ``-json`` after ``test`` when it runs ``go test`` (after wrappers) without it."""
    words = program_words(argv)
    offset = len(argv) - len(words)
    at = _go_test_index(words)
    if at is None or _has_json(words[at + 1 :]):
        return list(argv)
    cut = offset + at + 1
    return [*argv[:cut], "-json", *argv[cut:]]


def add_json_to_script(script: str) -> str:
    """A shell string with ``-json`` after each ``go test`` that lacks it (text edit, quoting kept).

    The edit is textual: a ``go test`` inside an ``echo`` gets the flag too, which changes only what is
    echoed.
    """
    out: list[str] = []
    pos = 0
    for m in _GO_TEST_IN_SHELL.finditer(script):
        end = m.end()
        stop = _OPERATOR.search(script, end)
        rest = script[end : stop.start() if stop else len(script)]
        try:
            rest_words = shlex.split(rest)
        except ValueError:
            rest_words = rest.split()
        if _has_json(rest_words):
            continue
        out.append(script[pos:end])
        out.append(" -json")
        pos = end
    out.append(script[pos:])
    return "".join(out)


def with_json(command: TestCommand) -> list[str]:
    """The argv of ``command`` with ``-json`` added to its ``go test`` runs."""
    if command.shell is not None:
        return ["bash", "-c", add_json_to_script(command.shell)]
    argv = list(command.argv or ())
    if argv and posixpath.basename(argv[0]) in _SHELLS:
        for j, arg in enumerate(argv[1:-1], start=1):
            if arg.startswith("-") and not arg.startswith("--") and "c" in arg:
                return [*argv[: j + 1], add_json_to_script(argv[j + 1]), *argv[j + 2 :]]
    return add_json_to_argv(argv)


# -- parsing ----------------------------------------------------------------------------------------


@dataclass
class _Test:
    package: str
    name: str
    outcome: Outcome | None = None
    elapsed: float | None = None
    output: list[str] = field(default_factory=list)


@dataclass
class _Package:
    name: str
    action: str | None = None  # pass, fail, skip
    started: bool = False  # a "start" event (Go 1.20+) opened it
    failed_build: str | None = None
    output: list[str] = field(default_factory=list)
    tests: list[_Test] = field(default_factory=list)


_TERMINAL = {"pass": Outcome.PASSED, "fail": Outcome.FAILED, "skip": Outcome.SKIPPED, "bench": Outcome.PASSED}


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dedent_lines(lines: list[str]) -> str:
    kept = [ln.rstrip() for ln in lines if not _FRAMING.match(ln)]
    while kept and not kept[0].strip():
        kept.pop(0)
    while kept and not kept[-1].strip():
        kept.pop()
    # t.Log/t.Error lines carry a 4-space indent (8 for subtests); drop the common part.
    indents = [len(ln) - len(ln.lstrip(" ")) for ln in kept if ln.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(ln[cut:] for ln in kept)


def _panic_text(text: str) -> str | None:
    m = _PANIC.search(text)
    return text[m.start() :] if m else None


class _Stream:
    """Accumulates the events of one or more ``go test -json`` runs."""

    def __init__(self) -> None:
        self.packages: dict[str, _Package] = {}
        self.open: dict[tuple[str, str], _Test] = {}
        self.build_output: dict[str, list[str]] = {}
        self.build_failed: list[str] = []
        self.events = 0
        self.non_json = 0
        self.bad_json = 0
        self.text_build_failed: list[str] = []

    def package(self, name: str) -> _Package:
        pkg = self.packages.get(name)
        if pkg is None:
            pkg = self.packages[name] = _Package(name)
        return pkg

    def test(self, pkg: _Package, name: str) -> _Test:
        key = (pkg.name, name)
        t = self.open.get(key)
        if t is None:
            t = self.open[key] = _Test(pkg.name, name)
            pkg.tests.append(t)
        return t

    def feed(self, text: str) -> None:
        for line in text.splitlines():
            s = line.strip()
            if not s:
                continue
            if not s.startswith("{"):
                m = _TEXT_BUILD_FAILED.match(s)
                if m:
                    self.text_build_failed.append(m.group("pkg"))
                self.non_json += 1
                continue
            try:
                event = json.loads(s)
            except ValueError:
                self.bad_json += 1
                continue
            if isinstance(event, dict) and isinstance(event.get("Action"), str):
                self.events += 1
                self.event(event)
            else:
                self.non_json += 1

    def event(self, e: dict[str, Any]) -> None:
        action = e["Action"]
        output = e.get("Output")
        if action in ("build-output", "build-fail"):
            path = str(e.get("ImportPath") or "")
            if action == "build-output" and isinstance(output, str):
                self.build_output.setdefault(path, []).append(output)
            elif action == "build-fail" and path not in self.build_failed:
                self.build_failed.append(path)
            return
        pkg = self.package(str(e.get("Package") or ""))
        if action == "start":
            pkg.started = True
            return
        name = e.get("Test")
        if not isinstance(name, str) or not name:
            if action == "output" and isinstance(output, str):
                pkg.output.append(output)
            elif action in ("pass", "fail", "skip"):
                pkg.action = action
                if e.get("FailedBuild"):
                    pkg.failed_build = str(e["FailedBuild"])
            return
        if action == "run":
            key = (pkg.name, name)
            if key in self.open and self.open[key].outcome is not None:
                del self.open[key]  # -count=N: the same test runs again
            self.test(pkg, name)
        elif action == "output" and isinstance(output, str):
            self.test(pkg, name).output.append(output)
        elif action in _TERMINAL:
            t = self.test(pkg, name)
            t.outcome = _TERMINAL[action]
            elapsed = e.get("Elapsed")
            if isinstance(elapsed, (int, float)) and elapsed >= 0:
                t.elapsed = float(elapsed)


def _build_message(stream: _Stream, pkg: _Package | None, path: str) -> str:
    text = "".join(stream.build_output.get(path, ()))
    if not text.strip() and pkg is not None:
        text = "".join(pkg.output)
    return text.strip()


def stderr_build_failures(stderr: str) -> dict[str, str]:
    """``{package: messages}`` for every ``# pkg`` block on standard error that holds a ``file.go:line:``
    error: how ``go test`` before 1.24 reports a package that does not build (or fails ``go vet``)."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in stderr.splitlines():
        m = _STDERR_BLOCK_HEADER.match(line)
        if m:
            current = found.setdefault(m.group("pkg"), [])
            current.append(line)
            continue
        if current is None:
            continue
        if _GO_FILE_ERROR.match(line) or (line[:1] in (" ", "\t") and line.strip()):
            current.append(line.rstrip())
        elif line.strip():
            current = None
    return {
        pkg: "\n".join(lines) for pkg, lines in found.items() if any(_GO_FILE_ERROR.match(ln) for ln in lines)
    }


def parse_go_test_json(stdout: str, *, stderr: str = "", exit_code: int | None = None) -> TestResults:
    """Parse a ``go test -json`` stream (several runs may be concatenated) into per-test results.

    Args:
        stdout: the event stream; non-JSON lines are skipped.
        stderr: the command's standard error, used for go command errors that never reach the stream.
        exit_code: the command's exit code, None when it was killed.

    Returns:
        The results in stream order, ids qualified with their package (``pkg/path.TestX/sub``).

    Raises:
        ResultParseError: there is no event at all and standard error holds no go or compiler error.
    """
    stream = _Stream()
    stream.feed(stdout)
    notes: list[str] = []
    complete = True

    if stream.events == 0:
        errors = [ln for ln in stderr.splitlines() if ln.strip()]
        if _GO_ERROR.search(stderr):
            return TestResults(
                runner=GoTestRunner.name,
                complete=False,
                notes=("go stopped before running any test package",),
                build_error=_clip("\n".join(errors), MAX_BUILD_ERROR_CHARS),
            )
        what = " ".join(stderr.split())[-300:] or "nothing on standard error"
        if exit_code == 2 and _USAGE.search(stderr):
            raise ResultParseError(f"go rejected the test command line (usage error, exit 2): {what}")
        raise ResultParseError(f"no go test -json events in the output (exit code {exit_code}): {what}")

    # Build failures: by package (FailedBuild), then any build-fail no package claimed.
    broken: list[str] = []
    messages: list[str] = []
    claimed: set[str] = set()
    for pkg in stream.packages.values():
        if pkg.failed_build is not None:
            claimed.add(pkg.failed_build)
            broken.append(pkg.name)
            messages.append(_build_message(stream, pkg, pkg.failed_build) or f"{pkg.name}: build failed")
    for path in stream.build_failed:
        if path not in claimed:
            broken.append(path)
            messages.append(_build_message(stream, None, path) or f"{path}: build failed")
    # Before Go 1.24: the compiler's messages are on standard error only, and the package shows up in
    # the stream (Go 1.20 to 1.23) as a failed package whose output says "[build failed]", or (before
    # 1.20) only as a text line.
    reported = {b.split(" ", 1)[0] for b in broken} | {p.split(" ", 1)[0] for p in claimed}
    from_stderr = stderr_build_failures(stderr)
    for pkg in stream.packages.values():
        if (
            pkg.failed_build is None
            and pkg.action == "fail"
            and _BUILD_FAILED_OUTPUT.search("".join(pkg.output))
        ):
            pkg.failed_build = pkg.name
            if pkg.name not in reported:
                broken.append(pkg.name)
                reported.add(pkg.name)
                messages.append(from_stderr.get(pkg.name) or f"{pkg.name}: build failed")
    for name in stream.text_build_failed:
        if name not in reported:
            broken.append(name)
            reported.add(name)
            messages.append(from_stderr.get(name) or f"{name}: build failed")
    for name, text in from_stderr.items():
        if name not in reported:
            broken.append(name)
            reported.add(name)
            messages.append(text)
    build_error: str | None = None
    if broken:
        go_errors = [ln for ln in stderr.splitlines() if ln.startswith("go: ")]
        build_error = _clip("\n".join([*go_errors, *messages]).strip(), MAX_BUILD_ERROR_CHARS)
        ran = [p for p in stream.packages.values() if p.tests]
        notes.append(
            f"{len(broken)} package(s) did not build: {', '.join(broken[:5])}"
            + (f"; the tests of {len(ran)} other package(s) are reported" if ran else "")
        )
        complete = False

    if any(p.started for p in stream.packages.values()):
        # Go 1.20+ opens every package with a start event: one without it began in a part of the
        # stream that is missing (a cut between packages).
        headless = [p.name or "(no package)" for p in stream.packages.values() if not p.started]
        if headless:
            complete = False
            notes.append(f"package(s) without a start event (the stream was cut): {', '.join(headless[:5])}")

    results: list[TestResult] = []
    for pkg in stream.packages.values():
        if pkg.failed_build is not None:
            continue
        pkg_text = "".join(pkg.output)
        all_text = pkg_text + "".join(ln for t in pkg.tests for ln in t.output)
        panic = _panic_text(all_text)
        timeout = _TIMEOUT.search(all_text)
        unfinished = [t for t in pkg.tests if t.outcome is None]
        label = pkg.name or "(no package)"
        if pkg.action is None:
            complete = False
            notes.append(f"package {label} did not finish (the run was cut short)")
            why = "did not finish: the run was cut short"
        elif timeout:
            complete = False
            running = ", ".join(t.name for t in unfinished[:5]) or "unknown tests"
            notes.append(
                f"package {label}: test binary killed by -timeout after {timeout.group('after')} "
                f"while running {running}; later tests did not run"
            )
            why = f"killed by go test -timeout after {timeout.group('after')}"
        elif panic:
            complete = False
            culprit = next((t.name for t in pkg.tests if _panic_text("".join(t.output))), None)
            notes.append(
                f"package {label}: a panic{' in ' + culprit if culprit else ''} stopped the test binary; "
                "later tests did not run"
            )
            why = "the test binary panicked"
        elif unfinished:
            complete = False
            notes.append(
                f"package {label}: the test binary exited during {unfinished[0].name} "
                "(os.Exit or a crash); later tests did not run"
            )
            why = "the test binary exited before the test finished"
        else:
            why = ""
        if (
            pkg.action == "fail"
            and not unfinished
            and not panic
            and not any(t.outcome is Outcome.FAILED for t in pkg.tests)
        ):
            complete = False
            tail = _clip(" | ".join(ln.strip() for ln in pkg_text.splitlines()[-3:] if ln.strip()), 300)
            notes.append(f"package {label} failed although none of its tests did: {tail or 'no output'}")

        for t in pkg.tests:
            outcome = t.outcome if t.outcome is not None else Outcome.FAILED
            message: str | None = None
            if outcome is not Outcome.PASSED:
                message = _dedent_lines(t.output) or None
                if t.outcome is None:
                    message = f"{why}\n{message}" if message else why
                elif outcome is Outcome.FAILED and panic and not message:
                    # A subtest that panicked: test2json puts the panic under its parent.
                    message = _dedent_lines(panic.splitlines())
                elif outcome is Outcome.FAILED and not message:
                    subs = [
                        s.name
                        for s in pkg.tests
                        if s.name.startswith(t.name + "/") and s.outcome is not Outcome.PASSED
                    ]
                    if subs:
                        message = (
                            "failed subtests: " + ", ".join(subs[:10]) + (" ..." if len(subs) > 10 else "")
                        )
                message = _clip(message, MAX_MESSAGE_CHARS) if message else None
            results.append(
                TestResult(
                    id=f"{pkg.name}.{t.name}" if pkg.name else t.name,
                    outcome=outcome,
                    duration_s=t.elapsed,
                    message=message,
                )
            )

    if exit_code is None:
        complete = False
        notes.append("go test was killed (no exit code): the stream may be partial")
    elif (
        exit_code != 0
        and build_error is None
        and not any(r.outcome is Outcome.FAILED for r in results)
        and not any(p.action == "fail" for p in stream.packages.values())
    ):
        # go test exits 0 when every package passed; a failure nobody reported means a package (or
        # its build errors) is missing from what was read.
        complete = False
        notes.append(
            f"go test exited {exit_code} although no package or test failed: a package may be missing"
        )
    if stream.non_json:
        notes.append(f"{stream.non_json} non-JSON line(s) on standard output ignored")
    if stream.bad_json:
        complete = False
        notes.append(f"{stream.bad_json} malformed JSON line(s) ignored")
    merged = _merge_repeats(results, notes)
    return TestResults(
        runner=GoTestRunner.name,
        tests=merged,
        complete=complete,
        notes=tuple(notes),
        build_error=build_error,
    )


def _merge_repeats(results: list[TestResult], notes: list[str]) -> tuple[TestResult, ...]:
    """One result per id (``-count=N`` runs a test N times): the worst outcome and its message."""
    merged: dict[str, TestResult] = {}
    repeats = 0
    for r in results:
        prev = merged.get(r.id)
        if prev is None:
            merged[r.id] = r
            continue
        repeats += 1
        if SEVERITY[r.outcome] > SEVERITY[prev.outcome]:
            merged[r.id] = r
    if repeats:
        notes.append(f"merged {repeats} repeated run(s) of the same tests (worst outcome kept)")
    return tuple(merged.values())


def normalise_go_id(test_id: str) -> str:
    """The bare test name of an id: ``pkg/path.TestX/a b`` and ``TestX/a_b`` both give ``TestX/a_b``."""
    s = test_id.strip()
    if not _BARE_ID.match(s):
        m = _QUALIFIED_ID.match(s)
        if m:
            s = m.group("test")
    return re.sub(r"\s", "_", s)


class GoTestRunner(Runner):
    """Runs ``go test`` with ``-json``, its standard output going to a report file, and reads the events."""

    name = "go-test"
    #: Empty on purpose: ``go test`` exits 2 only for usage errors, but a wrapper (``make test``) exits 2
    #: for a compile error too, and the harness would then call a candidate's compile error an
    #: infrastructure fault. A usage error reads as "no result" (see the module docstring).
    infra_exit_codes: ClassVar[tuple[int, ...]] = ()

    def claims(self, words: list[str]) -> bool:
        """``go test`` and ``go -C dir test`` (after wrappers)."""
        return _go_test_index(words) is not None

    def invoke(self, command: TestCommand, report_dir: str) -> Invocation:
        """``-json`` added to every ``go test`` of the command; standard output goes to the report file."""
        report = posixpath.join(report_dir, REPORT_FILE)
        argv = with_json(command)
        return Invocation(argv=["bash", "-c", _WRAPPER, report, *argv])

    def parse(self, out: RunOutput) -> TestResults:
        """Read the report file (standard output when there is none) as a ``go test -json`` stream.

        Raises:
            ResultParseError: no event and no go error message at all.
        """
        path = out.report_dir / REPORT_FILE
        try:
            # truncate: one byte past the cap tells the parser below the output was cut.
            data = read_untrusted(
                path,
                root=out.report_dir,
                limit=MAX_REPORT_BYTES + 1,
                owner=out.owner,
                truncate=True,
                entries=b'"Action":"run"',
            )
        except FileNotFoundError:
            data = b""
        except OSError as exc:
            raise ResultParseError(f"{path}: cannot read the go test report ({exc.strerror})") from None
        text = data[:MAX_REPORT_BYTES].decode("utf-8", errors="replace")
        if out.stdout.strip():
            text = text + "\n" + out.stdout if text else out.stdout
            if out.stdout_truncated:
                # Events read from the sandbox's capture, which lost its middle: packages may be missing.
                results = parse_go_test_json(text, stderr=out.stderr, exit_code=out.exit_code)
                notes = (*results.notes, "standard output was truncated by the sandbox: results are partial")
                return results.model_copy(update={"complete": False, "notes": notes})
        if len(data) >= MAX_REPORT_BYTES:
            results = parse_go_test_json(text, stderr=out.stderr, exit_code=out.exit_code)
            notes = (*results.notes, f"the go test output was cut at {MAX_REPORT_BYTES >> 20} MiB")
            return results.model_copy(update={"complete": False, "notes": notes})
        return parse_go_test_json(text, stderr=out.stderr, exit_code=out.exit_code)

    def normalise_id(self, test_id: str) -> str:
        """The bare test name, whitespace turned into ``_`` (see the module docstring)."""
        return normalise_go_id(test_id)
