"""JavaScript/TypeScript runners: node's built-in test runner, Jest, Vitest and Mocha.

node's test runner (``node --test``)
------------------------------------

:class:`NodeTestRunner` asks node for two reporters at once: ``tap`` written to ``node.tap`` in the
report directory (what is parsed) and ``spec`` on standard output (what a human reads in the verdict's
output tail). The TAP report, not node 20's ``junit`` reporter, is what is read, because:

* it is parsed by :func:`patchbench.runners.tap.parse_tap`, so ids are exactly those the TAP runner
  gives node's TAP on standard output (``Suite > test`` for nested tests, the plain name at the top
  level, suites and parent tests with their own result): an F2P list works with either protocol;
* it keeps what the junit reporter drops: a failing ``before`` hook (the suite's own failure), the
  result of a ``describe`` or of a test with subtests, and the standard error of a test file that could
  not even load (a syntax error, a missing module), which node writes as TAP comments before the
  file's own failure;
* a test file runs in its own process whose output node serialises, so what the code under test prints
  becomes TAP *comments* in the report: it cannot forge a result line.

Reporter flags are put on the command line right after ``--test`` when the command is an argv that runs
``node --test`` (or ``tsx --test``); any reporter the task asked for is dropped, since node requires as
many destinations as reporters. Other commands (a shell string, ``npm test``) get the same flags
through ``NODE_OPTIONS``, which node's test runner honours and a plain ``node`` ignores; a shell string
that already names a reporter is left alone and its standard output is read as TAP instead.

A test file that fails as a whole (it does not parse, a module is missing, the process exits) is a
failed test named after the file (made relative to the workspace when it lies in ``/workspace``), with
node's standard error as its message. When nothing else ran at all, its message is also the run's
``build_error``: the candidate did not load.

Known limits (node 20): node numbers each file's top-level tests from 1, so the TAP runner's notes about
duplicate or out-of-sequence numbers are dropped here; tests of different files with the same name share
an id (the worst outcome wins when matching); a file that calls ``process.exit`` loses the results of its
tests that had already run.

Jest, Vitest, Mocha
-------------------

Each reads its framework's own JSON report, which needs no extra package: ``jest --json
--outputFile=<report_dir>/jest.json``, ``vitest run --reporter=default --reporter=json
--outputFile.json=<report_dir>/vitest.json``, ``mocha --reporter=json --reporter-option
output=<report_dir>/mocha.json``. Ids join the ``describe`` titles and the test title with `` > `` like
node's; since these frameworks' usual full names join them with a space, :meth:`JestRunner.normalise_id`
compares ids with both separators read as one space, so ``"Cart totals rounds"`` and ``"Cart > totals >
rounds"`` name the same test.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

from ..errors import ResultParseError
from ..results import Outcome, TestResult, TestResults
from ..task import TestCommand
from ..untrusted import read_untrusted, read_untrusted_text
from ._base import Invocation, Runner, RunOutput
from ._commands import program_words
from .tap import ID_SEPARATOR, MAX_MESSAGE_CHARS, parse_tap, with_run_signals

#: The TAP report node writes in the report directory.
REPORT_FILE = "node.tap"

#: Where the harness mounts the workspace; file-level ids below it are made relative to it.
WORKSPACE_ROOT = "/workspace/"

#: Programs that run node's test runner when given ``--test`` among their own options.
NODE_PROGRAMS = frozenset({"node", "nodejs", "tsx"})

#: node options that take their value as the next word (``--import x``); ``--opt=value`` needs no entry.
_NODE_OPTIONS_WITH_VALUE = frozenset(
    {
        "-r",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "-C",
        "--conditions",
        "--input-type",
        "--test-name-pattern",
        "--test-reporter",
        "--test-reporter-destination",
        "--test-concurrency",
        "--test-shard",
        "--test-timeout",
        "--title",
        "--env-file",
        "--inspect-port",
        "--redirect-warnings",
        "--tsconfig",  # tsx
    }
)
_EVAL_OPTIONS = frozenset({"-e", "--eval", "-p", "--print", "-c", "--check", "-i", "--interactive"})
_REPORTER_OPTIONS = ("--test-reporter", "--test-reporter-destination")

# Notes parse_tap makes that are normal for node's multi-file TAP (each file numbers from 1).
_NODE_NUMBERING_NOTES = ("duplicate test numbers", "test numbers out of sequence")
# The YAML keys node gives a test file that failed as a whole (its process exited non-zero).
_FILE_FAILURE = re.compile(r"^exitCode:", re.MULTILINE)
_SUMMARY_COMMENT = re.compile(r"^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms)\s+\S+$")
_SUBTEST_COMMENT = re.compile(r"^#\s*Subtest:\s*(?P<name>.*)$")
_MISMATCH = "must match the number of specified '--test-reporter-destination'"


def reporter_flags(report_dir: str) -> list[str]:
    """node's flags for a TAP report in ``report_dir`` plus the human ``spec`` reporter on stdout."""
    return [
        "--test-reporter=tap",
        f"--test-reporter-destination={report_dir.rstrip('/')}/{REPORT_FILE}",
        "--test-reporter=spec",
        "--test-reporter-destination=stdout",
    ]


def node_test_flag(words: list[str]) -> int | None:
    """The index of ``--test`` in a simple command that runs node's test runner, else None.

    ``words`` starts at the program (``node``, ``nodejs`` or ``tsx``, base name). ``--test`` counts only
    among node's own options, before the first file argument: ``node script.js --test`` passes it to
    the script. ``-e``/``-p`` (evaluate code) rule the command out.
    """
    if not words or words[0] not in NODE_PROGRAMS:
        return None
    i = 1
    while i < len(words):
        word = words[i]
        if word == "--test":
            return i
        if word == "--" or not word.startswith("-") or word in _EVAL_OPTIONS:
            return None
        i += 2 if word in _NODE_OPTIONS_WITH_VALUE else 1
    return None


def _is_reporter_option(word: str) -> tuple[bool, bool]:
    """(is a reporter option, its value is the next word)."""
    for opt in _REPORTER_OPTIONS:
        if word == opt:
            return True, True
        if word.startswith(opt + "="):
            return True, False
    return False, False


def _options_end(words: list[str], start: int) -> int:
    """The index just past node's own options in ``words``, scanning from ``start``."""
    i = start
    while i < len(words):
        word = words[i]
        if word == "--" or not word.startswith("-"):
            return i
        i += 2 if word in _NODE_OPTIONS_WITH_VALUE else 1
    return min(i, len(words))


def _rewrite_argv(argv: list[str], report_dir: str) -> list[str] | None:
    """``argv`` with our reporter flags right after ``--test`` and the task's own reporter options
    removed, or None when ``argv`` does not run ``node --test`` directly."""
    words = program_words(argv)
    flag = node_test_flag(words)
    if flag is None:
        return None
    offset = len(argv) - len(words)
    end = offset + _options_end(words, 1)
    kept: list[str] = []
    i = offset + 1
    while i < end:
        word = argv[i]
        is_rep, takes_next = _is_reporter_option(word)
        if is_rep:
            i += 2 if takes_next else 1
            continue
        kept.append(word)
        if word == "--test":
            kept.extend(reporter_flags(report_dir))
        i += 1
    return [*argv[: offset + 1], *kept, *argv[end:]]


def _node_options(report_dir: str) -> str:
    return " ".join(f'"{f}"' if " " in f else f for f in reporter_flags(report_dir))


def _unescape_comment(text: str) -> str:
    return text.replace("\\#", "#")


def _top_level_comments(tap: str) -> dict[str, str]:
    """The top-level TAP comments node wrote just before each top-level ``# Subtest: name``.

    For a test file that failed as a whole they are the file's standard error (the syntax error, the
    missing module...): node passes it on as comments.
    """
    found: dict[str, str] = {}
    pending: list[str] = []
    in_yaml = False
    for line in tap.splitlines():
        if not line.strip():
            continue
        if line[0] in " \t":
            stripped = line.strip()
            if stripped == "---":
                in_yaml = True
            elif stripped == "...":
                in_yaml = False
            pending = [] if not in_yaml else pending
            continue
        if not line.startswith("#"):
            pending = []
            continue
        m = _SUBTEST_COMMENT.match(line)
        if m:
            if pending:
                found[_unescape_comment(m.group("name")).strip()] = "\n".join(pending)
            pending = []
            continue
        body = line[1:]
        if body.startswith(" "):
            body = body[1:]
        if _SUMMARY_COMMENT.match(body.strip()):
            continue
        pending.append(_unescape_comment(body))
    return found


def _trim(text: str) -> str:
    if len(text) > MAX_MESSAGE_CHARS:
        return text[: MAX_MESSAGE_CHARS - 1] + "…"
    return text


def _relative_file_id(test_id: str) -> str:
    path = test_id[len("file://") :] if test_id.startswith("file://") else test_id
    if path.startswith(WORKSPACE_ROOT):
        return path[len(WORKSPACE_ROOT) :]
    return test_id


def parse_node_tap(text: str, *, exit_code: int | None) -> TestResults:
    """Read node's TAP report (see the module docstring for what is added to :func:`parse_tap`).

    Args:
        text: the TAP node wrote.
        exit_code: node's exit code, None when it was killed.

    Returns:
        The results; ``build_error`` is set when the only results are test files that failed to run.
    """
    parsed = parse_tap(text, node_escapes=True)
    comments = _top_level_comments(text)
    tests: list[TestResult] = []
    file_failures: list[TestResult] = []
    real_tests = 0
    for t in parsed.tests:
        msg = t.message or ""
        is_file = (
            ID_SEPARATOR not in t.id
            and t.outcome is Outcome.FAILED
            and t.id.startswith(("/", "file://"))
            and bool(_FILE_FAILURE.search(msg))
        )
        if is_file:
            stderr = comments.get(t.id, "").strip("\n")
            message = _trim("\n".join(p for p in (stderr, msg) if p)) or None
            t = TestResult(
                id=_relative_file_id(t.id), outcome=t.outcome, duration_s=t.duration_s, message=message
            )
            file_failures.append(t)
        else:
            real_tests += 1
        tests.append(t)
    notes = [n for n in parsed.notes if not n.startswith(_NODE_NUMBERING_NOTES)]
    complete = parsed.complete
    if exit_code is None:
        notes.append("node was killed (no exit code): the report may be partial")
        complete = False
    elif exit_code == 0 and any(t.outcome in (Outcome.FAILED, Outcome.ERROR) for t in tests):
        notes.append("node exited 0 but the report has failures")
    build_error: str | None = None
    if file_failures and real_tests == 0:
        build_error = "\n\n".join(f"{t.id}: {t.message or 'failed to run'}" for t in file_failures)
        build_error = _trim(build_error)
    elif file_failures:
        notes.append("test files that failed to run: " + ", ".join(t.id for t in file_failures))
    return TestResults(
        runner=NodeTestRunner.name,
        tests=tuple(tests),
        complete=complete,
        notes=tuple(notes),
        build_error=build_error,
    )


_CONTROL_ESCAPES = {"\b": "\\b", "\f": "\\f", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\v": "\\v"}


def _escape_controls(name: str) -> str:
    return "".join(_CONTROL_ESCAPES.get(ch, ch) for ch in name)


def _looks_like_tap(text: str) -> bool:
    return bool(re.search(r"^(TAP version \d+|(not )?ok\b|1\.\.\d+)", text, re.MULTILINE))


class NodeTestRunner(Runner):
    """node's built-in test runner (``node --test``), read through a TAP report file."""

    name = "node-test"
    #: node's "invalid argument" (a bad command-line option): the command is at fault, not the code.
    infra_exit_codes: ClassVar[tuple[int, ...]] = (9,)

    def claims(self, words: list[str]) -> bool:
        """``node --test ...``, ``nodejs --test``, ``tsx --test`` (``--test`` among node's own options)."""
        return node_test_flag(words) is not None

    def invoke(self, command: TestCommand, report_dir: str) -> Invocation:
        """Reporter flags after ``--test`` in an argv, otherwise through ``NODE_OPTIONS``."""
        argv = command.to_argv()
        if command.argv is not None:
            rewritten = _rewrite_argv(argv, report_dir)
            if rewritten is not None:
                return Invocation(argv=rewritten)
        text = command.display()
        if "--test-reporter" in text:
            # node would refuse our reporters next to the task's own: read its stdout instead.
            return Invocation(argv=argv)
        return Invocation(argv=argv, env={"NODE_OPTIONS": _node_options(report_dir)})

    def parse(self, out: RunOutput) -> TestResults:
        """Read ``node.tap`` from the report directory, else TAP on standard output.

        Raises:
            ResultParseError: neither holds any TAP (node did not start, or found no test file).
        """
        path = out.report_dir / REPORT_FILE
        try:
            text = read_untrusted_text(path, root=out.report_dir, owner=out.owner, entries=b"ok ")
        except FileNotFoundError:
            text = ""
        except OSError as exc:
            raise ResultParseError(f"{path}: cannot read node's TAP report ({exc.strerror})") from None
        note: str | None = None
        if not text.strip():
            if not _looks_like_tap(out.stdout):
                tail = " ".join(out.stderr.split())[-500:]
                if _MISMATCH in out.stderr:
                    raise ResultParseError(
                        "node refused the reporter flags: the test command names its own --test-reporter "
                        "inside a script; give it as an argv or drop the reporter"
                    )
                raise ResultParseError(
                    f"node wrote no TAP report and no TAP on stdout (exit {out.exit_code})"
                    + (f": {tail}" if tail else "")
                )
            text, note = out.stdout, "no TAP report file: read TAP from standard output"
        results = parse_node_tap(text, exit_code=out.exit_code)
        if note:
            results = results.model_copy(update={"notes": (note, *results.notes)})
            if out.stdout_truncated:
                # TAP read from the sandbox's capture, which lost its middle.
                results = with_run_signals(results, out, channel_truncated=True)
        return results

    def match_keys(self, result_id: str) -> tuple[str, ...]:
        """The id (node's own test name), and also the name with its control characters written as
        node's TAP reporter writes them (``\\t``): node escapes a tab and a backslash followed by ``t``
        alike, so a listed ``C:\\temp`` must still find the test node reported."""
        normal = self.normalise_id(result_id)
        escaped = self.normalise_id(_escape_controls(result_id))
        return (normal,) if escaped == normal else (normal, escaped)


# -- Jest, Vitest, Mocha ----------------------------------------------------------------------------

_JS_SEPARATOR = re.compile(r"\s+>\s+|\s+")


def _js_normalise(test_id: str) -> str:
    """Ids compared with `` > `` and runs of whitespace read as one space."""
    return " ".join(_JS_SEPARATOR.split(test_id.strip()))


def _load_json_report(path: Path, tool: str, owner: int | None = None) -> Any:
    try:
        data = read_untrusted(path, root=path.parent, owner=owner, entries=b'"title"')
    except FileNotFoundError:
        raise ResultParseError(f"{path}: {tool} wrote no JSON report") from None
    except OSError as exc:
        raise ResultParseError(f"{path}: cannot read the {tool} report ({exc.strerror})") from None
    if not data.strip():
        raise ResultParseError(f"{path}: the {tool} report is empty")
    try:
        return json.loads(data)
    except ValueError as exc:
        raise ResultParseError(f"{path}: the {tool} report is not JSON ({exc})") from None


def _js_id(ancestors: Iterable[Any], title: Any) -> str:
    parts = [str(a) for a in ancestors if str(a).strip()]
    return ID_SEPARATOR.join([*parts, str(title)])


_JEST_STATUS = {
    "passed": Outcome.PASSED,
    "failed": Outcome.FAILED,
    "pending": Outcome.SKIPPED,
    "skipped": Outcome.SKIPPED,
    "disabled": Outcome.SKIPPED,
    "todo": Outcome.SKIPPED,
    "focused": Outcome.PASSED,
}


def _failure_text(messages: Any) -> str | None:
    if not messages:
        return None
    text = "\n".join(str(m) for m in messages) if isinstance(messages, list) else str(messages)
    text = re.sub(r"\x1b\[[0-9;]*m", "", text).strip()
    return _trim(text) or None


def _relative(path: str, root: str | None) -> str:
    if root and path.startswith(root.rstrip("/") + "/"):
        return path[len(root.rstrip("/")) + 1 :]
    if path.startswith(WORKSPACE_ROOT):
        return path[len(WORKSPACE_ROOT) :]
    return path


def parse_jest_json(data: Any, *, runner: str, exit_code: int | None) -> TestResults:
    """Read Jest's ``--json`` report, or Vitest's ``json`` reporter (the same shape).

    A test file that failed as a whole (it does not compile, a module is missing) has no assertion
    results but a ``failureMessage``: it becomes a failed test named after the file, and when no test
    ran anywhere its message is the ``build_error``.
    """
    if not isinstance(data, dict) or not isinstance(data.get("testResults"), list):
        raise ResultParseError(f"the {runner} report has no testResults list")
    root = data.get("rootDir") if isinstance(data.get("rootDir"), str) else None
    tests: list[TestResult] = []
    file_failures: list[TestResult] = []
    real = 0
    for suite in data["testResults"]:
        if not isinstance(suite, dict):
            continue
        file = _relative(str(suite.get("name") or suite.get("testFilePath") or "?"), root)
        assertions = suite.get("assertionResults") or suite.get("testResults") or []
        for a in assertions:
            if not isinstance(a, dict):
                continue
            outcome = _JEST_STATUS.get(str(a.get("status")), Outcome.ERROR)
            duration = a.get("duration")
            tests.append(
                TestResult(
                    id=_js_id(a.get("ancestorTitles") or (), a.get("title", "")),
                    outcome=outcome,
                    duration_s=float(duration) / 1000.0 if isinstance(duration, (int, float)) else None,
                    message=_failure_text(a.get("failureMessages")),
                )
            )
            real += 1
        suite_failed = suite.get("status") == "failed"
        message = _failure_text(suite.get("message") or suite.get("failureMessage"))
        if (
            suite_failed
            and message
            and not any(isinstance(a, dict) and a.get("status") == "failed" for a in assertions)
        ):
            failure = TestResult(id=file, outcome=Outcome.FAILED, message=message)
            file_failures.append(failure)
            tests.append(failure)
    notes: list[str] = []
    complete = True
    if exit_code is None:
        notes.append(f"{runner} was killed (no exit code): the report may be partial")
        complete = False
    if data.get("wasInterrupted"):
        notes.append(f"{runner} reports it was interrupted")
        complete = False
    build_error = None
    if file_failures and real == 0:
        build_error = _trim("\n\n".join(f"{t.id}: {t.message}" for t in file_failures))
    elif file_failures:
        notes.append("test files that failed to run: " + ", ".join(t.id for t in file_failures))
    return TestResults(
        runner=runner, tests=tuple(tests), complete=complete, notes=tuple(notes), build_error=build_error
    )


def parse_mocha_json(data: Any, *, exit_code: int | None) -> TestResults:
    """Read Mocha's ``json`` reporter: ids are ``fullTitle`` (suite titles and the test, space-joined).

    A failing ``before``/``after`` hook is reported by Mocha as a failed pseudo-test titled
    ``"before all" hook ...``: it is kept, as a failure, under that title.
    """
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise ResultParseError("the mocha report has no tests list")
    pending = {str(t.get("fullTitle")) for t in data.get("pending") or [] if isinstance(t, dict)}
    tests: list[TestResult] = []
    seen: set[str] = set()

    def add(t: dict[str, Any], default: Outcome) -> None:
        title = str(t.get("fullTitle") or t.get("title") or "")
        err = t.get("err") or {}
        has_err = isinstance(err, dict) and bool(err)
        if title in pending and not has_err:
            outcome = Outcome.SKIPPED
        else:
            outcome = Outcome.FAILED if has_err else default
        message = None
        if has_err:
            message = _failure_text("\n".join(str(err.get(k)) for k in ("message", "stack") if err.get(k)))
        duration = t.get("duration")
        key = f"{t.get('file')}::{title}"
        if key in seen:
            return
        seen.add(key)
        tests.append(
            TestResult(
                id=title,
                outcome=outcome,
                duration_s=float(duration) / 1000.0 if isinstance(duration, (int, float)) else None,
                message=message,
            )
        )

    for t in data["tests"]:
        if isinstance(t, dict):
            add(t, Outcome.PASSED)
    # Hook failures appear only in "failures".
    for t in data.get("failures") or []:
        if isinstance(t, dict):
            add(t, Outcome.FAILED)
    notes: list[str] = []
    complete = True
    if exit_code is None:
        notes.append("mocha was killed (no exit code): the report may be partial")
        complete = False
    failed = sum(1 for t in data.get("failures") or [] if isinstance(t, dict))
    if exit_code is not None and failed < exit_code < 255:
        # Mocha exits with its failure count (at most 255; a wrapper such as npm with 1): a report with
        # fewer failures than that was rewritten after Mocha wrote it (see console_check)
        notes.append(
            f"the mocha report disagrees with mocha's exit code: {failed} failure(s) in the report, exit "
            f"code {exit_code} (the report was rewritten)"
        )
        complete = False
    return TestResults(runner=MochaRunner.name, tests=tuple(tests), complete=complete, notes=tuple(notes))


def _js_tool_words(words: list[str], tool: str) -> list[str] | None:
    """The words from ``tool`` on when ``words`` runs it (``jest``, ``npx jest``, ``node .../jest``)."""
    if not words:
        return None
    if words[0] == tool:
        return words
    if words[0] in ("npx", "pnpx", "bunx") or words[:2] in (["pnpm", "exec"], ["yarn", "exec"]):
        rest = words[2:] if words[0] in ("pnpm", "yarn") else words[1:]
        i = 0
        while i < len(rest) and rest[i].startswith("-"):
            i += 1
        return rest[i:] if i < len(rest) and rest[i] == tool else None
    if words[:1] == ["yarn"] and words[1:2] == [tool]:
        return words[1:]
    if words[0] in ("node", "nodejs") and len(words) > 1:
        for j, w in enumerate(words[1:], start=1):
            if w.startswith("-"):
                continue
            parts = w.replace("\\", "/").split("/")
            if parts[-1] == tool or (tool in parts and parts[-1] in (f"{tool}.js", f"{tool}.mjs", "cli.js")):
                return [tool, *words[j + 1 :]]
            return None
    return None


class _JsonReportRunner(Runner):
    """A JS test framework read through its own JSON report; subclasses give the tool and its flags."""

    tool: ClassVar[str] = ""
    report_file: ClassVar[str] = ""

    def claims(self, words: list[str]) -> bool:
        return _js_tool_words(words, self.tool) is not None

    def flags(self, report: str) -> list[str]:
        raise NotImplementedError

    def invoke(self, command: TestCommand, report_dir: str) -> Invocation:
        """The report flags appended to the command (an argv, or the end of a shell string)."""
        report = f"{report_dir.rstrip('/')}/{self.report_file}"
        flags = self.flags(report)
        if command.argv is not None:
            argv = list(command.argv)
            if _js_tool_words(program_words(argv), self.tool) is not None:
                return Invocation(argv=[*argv, *flags])
        # A shell string (or npm test): append where the shell sees the last command.
        text = command.display() if command.shell is not None else shlex.join(command.to_argv())
        return Invocation(argv=["bash", "-c", f"{text} {shlex.join(flags)}"])

    def normalise_id(self, test_id: str) -> str:
        """Whitespace runs and `` > `` separators read as one space (see the module docstring)."""
        return _js_normalise(test_id)


#: The test-count summary each framework prints to its console at the end of a run (ANSI colours off):
#: Vitest ``      Tests  11 failed | 14 passed (25)`` on stdout, Jest ``Tests:       2 failed, 1 skipped,
#: 3 passed, 6 total`` on stderr.
_SUMMARY = {
    "vitest": re.compile(r"^[ \t]*Tests[ \t]+([^\n]*?)[ \t]*\(\d+\)[ \t]*$", re.M),
    "jest": re.compile(r"^Tests:[ \t]+([^\n]*?\d+ total)[ \t]*$", re.M),
}
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _failed_in_report(data: Any) -> int:
    return sum(
        1
        for suite in data.get("testResults") or []
        if isinstance(suite, dict)
        for a in suite.get("assertionResults") or suite.get("testResults") or []
        if isinstance(a, dict) and a.get("status") == "failed"
    )


def console_check(runner: str, data: Any, out: RunOutput, results: TestResults) -> TestResults:
    """The report checked against the tool's own console summary, which its main process writes straight
    to the harness while the JSON report is a file the run can rewrite (round twenty-five's session: a
    process detached from the code under test turned the listed failures into passes in ``vitest.json``
    after Vitest wrote it, its console still counting them failed). A report with fewer failed tests than
    the console counts, or a console with more than one summary, is never complete; a summary lost to a
    truncated console is not either. No summary on a whole console (another output format) is a note."""
    stream, truncated = (
        (out.stderr, out.stderr_truncated) if runner == "jest" else (out.stdout, out.stdout_truncated)
    )
    found = _SUMMARY[runner].findall(_ANSI.sub("", stream))
    problem = None
    if len(found) > 1:
        problem = f"{runner} printed {len(found)} test summaries: its console was written to by the run"
    elif found:
        m = re.search(r"(\d+) failed", found[0])
        console, report = (int(m.group(1)) if m else 0), _failed_in_report(data)
        if console != report:
            problem = (
                f"the {runner} report disagrees with {runner}'s console: {report} failed test(s) in the "
                f"report, {console} on the console (the report was rewritten)"
            )
    elif results.tests and truncated:
        problem = f"{runner}'s test summary is not on its truncated console: the report cannot be checked"
    elif results.tests:
        return results.model_copy(
            update={"notes": (*results.notes, f"no {runner} test summary on the console")}
        )
    if problem is None:
        return results
    return results.model_copy(update={"complete": False, "notes": (*results.notes, problem)})


class JestRunner(_JsonReportRunner):
    """Jest, through ``--json --outputFile`` (the default reporter still prints to stderr)."""

    name = "jest"
    tool = "jest"
    report_file = "jest.json"

    def flags(self, report: str) -> list[str]:
        return ["--json", f"--outputFile={report}", "--ci", "--watchAll=false"]

    def parse(self, out: RunOutput) -> TestResults:
        data = _load_json_report(out.report_dir / self.report_file, "jest", out.owner)
        return console_check(
            "jest", data, out, parse_jest_json(data, runner=self.name, exit_code=out.exit_code)
        )


class VitestRunner(_JsonReportRunner):
    """Vitest, through its ``json`` reporter next to the default one."""

    name = "vitest"
    tool = "vitest"
    report_file = "vitest.json"

    def flags(self, report: str) -> list[str]:
        return ["--run", "--reporter=default", "--reporter=json", f"--outputFile.json={report}"]

    def parse(self, out: RunOutput) -> TestResults:
        data = _load_json_report(out.report_dir / self.report_file, "vitest", out.owner)
        results = parse_jest_json(data, runner=self.name, exit_code=out.exit_code)
        return console_check("vitest", data, out, results)


#: What mocha prints when a spec file cannot even be loaded (before any report is written).
_MOCHA_LOAD_ERROR = "Exception during run:"


class MochaRunner(_JsonReportRunner):
    """Mocha, through its ``json`` reporter written to a file (``--reporter-option output=``)."""

    name = "mocha"
    tool = "mocha"
    report_file = "mocha.json"

    def flags(self, report: str) -> list[str]:
        return ["--reporter=json", "--reporter-option", f"output={report}"]

    def parse(self, out: RunOutput) -> TestResults:
        """Read ``mocha.json``; without one, a load error on stderr is the run's build error.

        Raises:
            ResultParseError: no report and no load error either.
        """
        path = out.report_dir / self.report_file
        if not path.exists() and _MOCHA_LOAD_ERROR in out.stderr:
            message = out.stderr[out.stderr.index(_MOCHA_LOAD_ERROR) :].strip()
            return TestResults(runner=self.name, complete=False, build_error=_trim(message))
        data = _load_json_report(path, "mocha", out.owner)
        return parse_mocha_json(data, exit_code=out.exit_code)


__all__ = [
    "REPORT_FILE",
    "JestRunner",
    "MochaRunner",
    "NodeTestRunner",
    "VitestRunner",
    "node_test_flag",
    "parse_jest_json",
    "parse_mocha_json",
    "parse_node_tap",
    "reporter_flags",
]
