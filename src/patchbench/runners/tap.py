"""The Test Anything Protocol runner: TAP 12, 13 and 14 read from standard output.

One parser covers the three versions because each is a superset of the one before:

* TAP 12: a plan ``1..N`` (first or last), test lines ``ok``/``not ok`` with an optional number and
  description, ``# SKIP``/``# TODO`` directives, ``Bail out!``, ``#`` comments.
* TAP 13: a ``TAP version 13`` line and YAML diagnostic blocks (``---`` ... ``...``, indented under
  the test line they describe).
* TAP 14: subtests, indented four spaces per level, optionally announced by ``# Subtest: name`` and
  closed by a test line one level up that carries the subtest's overall result.

Node's built-in reporter (``node --test --test-reporter=tap``) is the main producer in practice: it
nests ``describe`` blocks as subtests, puts ``duration_ms`` in every YAML block and escapes ``#`` in
test names as ``\\#``. Perl's Test::More is the reference producer for plans, skips, todos and bail-outs.

The parser never raises: whatever it cannot read is skipped and summed up in ``notes``, and anything
that suggests the run did not finish (a bail-out, a plan that does not match the results, no plan at
all) sets ``complete=False``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..results import Outcome, TestResult, TestResults
from ._base import Runner, RunOutput

#: Longest message kept for one test; YAML blocks from node carry whole stack traces.
MAX_MESSAGE_CHARS = 2000

#: TAP 14 indents each subtest level by exactly four spaces.
INDENT_PER_LEVEL = 4

#: Separator between a parent test's id and its subtests' ids.
ID_SEPARATOR = " > "

_TEST_LINE = re.compile(r"^(?P<not>not\s+)?ok(?:\s+(?P<num>\d+)(?=\s|$))?(?:\s+(?P<rest>.*))?$")
_PLAN_LINE = re.compile(r"^1\.\.(?P<count>\d+)\s*(?:#\s*(?P<reason>.*))?$")
_VERSION_LINE = re.compile(r"^TAP\s+version\s+(?P<version>\d+)\s*$", re.IGNORECASE)
_BAIL_LINE = re.compile(r"^Bail\s+out!\s*(?P<reason>.*)$", re.IGNORECASE)
_PRAGMA_LINE = re.compile(r"^pragma\s+[+-]\S+")
_SUBTEST_COMMENT = re.compile(r"^#\s*Subtest(?::\s*(?P<name>.*))?$", re.IGNORECASE)
# "skip" may be spelt "skipped" or "skipping" (TAP 12); "todo" is exact. Case never matters.
_DIRECTIVE = re.compile(r"^(?P<kind>skip\w*|todo)(?=\W|$)[\s:]*(?P<reason>.*)$", re.IGNORECASE | re.DOTALL)
_ESCAPE = re.compile(r"\\([\\#])")
# Node puts these top-level keys in every YAML block; they are bookkeeping, not a message.
_NODE_TYPE_KEY = re.compile(r"^type:\s*'?(?:test|suite)'?\s*$")
_DURATION_KEY = re.compile(r"^duration_ms:\s*['\"]?(?P<ms>[0-9.eE+-]+)['\"]?\s*$")


@dataclass
class _Result:
    """A test result still being built: its id grows parent prefixes as subtests close."""

    id: str
    outcome: Outcome
    reason: str = ""
    duration_s: float | None = None
    yaml: str | None = None

    def freeze(self) -> TestResult:
        parts = [p for p in (self.reason.strip(), (self.yaml or "").strip()) if p]
        message = "\n".join(parts) or None
        if message is not None and len(message) > MAX_MESSAGE_CHARS:
            message = message[: MAX_MESSAGE_CHARS - 1] + "…"
        return TestResult(id=self.id, outcome=self.outcome, duration_s=self.duration_s, message=message)


@dataclass
class _Frame:
    """One nesting level: the top-level stream (depth 0) or one subtest."""

    depth: int
    name: str | None = None
    results: list[_Result] = field(default_factory=list)
    plan: int | None = None
    plan_reason: str = ""
    plan_after_tests: bool = False
    count: int = 0
    last_number: int = 0
    numbers: set[int] = field(default_factory=set)

    @property
    def label(self) -> str:
        return "the top level" if self.depth == 0 else f"subtest {self.name or '(unnamed)'!r}"


def _indent_of(line: str) -> int:
    expanded = line.expandtabs(INDENT_PER_LEVEL)
    return len(expanded) - len(expanded.lstrip(" "))


def _unescape(text: str) -> str:
    return _ESCAPE.sub(r"\1", text)


def _split_directive(rest: str) -> tuple[str, str | None, str]:
    """Split a test line's text into (description, directive kind, directive reason).

    The first unescaped ``#`` followed by SKIP or TODO starts the directive. A ``#`` followed by
    anything else is kept as part of the description, so ids stay as the producer wrote them.
    """
    i = 0
    while i < len(rest):
        ch = rest[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "#":
            m = _DIRECTIVE.match(rest[i + 1 :].strip())
            if m:
                return rest[:i], m.group("kind").lower()[:4], m.group("reason").strip()
        i += 1
    return rest, None, ""


def _test_id(description: str, number: int) -> str:
    desc = _unescape(description).strip()
    if desc.startswith("- "):
        desc = desc[2:].strip()
    elif desc == "-":
        desc = ""
    return desc or f"test {number}"


def _outcome(passed: bool, directive: str | None) -> Outcome:
    if directive == "skip":
        # A skipped test did not run, whatever its ok/not ok says.
        return Outcome.SKIPPED
    if directive == "todo":
        return Outcome.XPASS if passed else Outcome.XFAIL
    return Outcome.PASSED if passed else Outcome.FAILED


def _yaml_message(lines: list[str], indent: int, target: _Result) -> None:
    """Attach a YAML block's text to ``target``; its top-level ``duration_ms`` becomes ``duration_s``."""
    kept: list[str] = []
    for raw in lines:
        line = raw.expandtabs(INDENT_PER_LEVEL)
        body = line[indent:] if line[:indent].strip() == "" else line.lstrip()
        top_level = bool(body) and not body[0].isspace()
        if top_level:
            m = _DURATION_KEY.match(body)
            if m:
                try:
                    target.duration_s = float(m.group("ms")) / 1000.0
                except ValueError:
                    kept.append(body)
                continue
            if _NODE_TYPE_KEY.match(body):
                continue
        kept.append(body.rstrip())
    text = "\n".join(kept).strip("\n")
    target.yaml = text or None


class _Parser:
    """A line-by-line TAP reader keeping a stack of open subtest levels."""

    def __init__(self) -> None:
        self.stack: list[_Frame] = [_Frame(depth=0)]
        self.pending_names: dict[int, str] = {}
        self.notes: list[str] = []
        self.complete = True
        self.seen_tap = False
        self.non_tap = 0
        self.versions: list[int] = []
        self.bailed = False
        self.duplicates: list[str] = []
        self.out_of_order: list[str] = []
        # The last test line read, for a YAML block that may follow it.
        self.yaml_target: tuple[_Result, int] | None = None

    # -- stack handling -------------------------------------------------------------------------

    def _open_to(self, depth: int) -> _Frame:
        while self.stack[-1].depth < depth:
            d = self.stack[-1].depth + 1
            self.stack.append(_Frame(depth=d, name=self.pending_names.pop(d, None)))
        return self.stack[-1]

    def _close_unfinished(self, depth: int) -> None:
        """Fold frames deeper than ``depth`` into their parents: they ended without a closing test line."""
        while self.stack[-1].depth > depth:
            frame = self.stack.pop()
            if not self.bailed:
                self.notes.append(f"{frame.label} was not closed by a test line")
                self.complete = False
            self._check_plan(frame)
            prefix = frame.name
            for r in frame.results:
                if prefix:
                    r.id = f"{prefix}{ID_SEPARATOR}{r.id}"
                self.stack[-1].results.append(r)

    def _check_plan(self, frame: _Frame) -> None:
        if self.bailed:
            return  # the bail-out note already says the run stopped early
        if frame.plan is None:
            if frame.depth == 0:
                if frame.count:
                    self.notes.append(f"no plan line: cannot tell whether all {frame.count} tests ran")
                elif self.seen_tap:
                    self.notes.append("no plan line and no test lines")
                self.complete = False
            elif frame.count:
                # TAP 14 wants a plan in each subtest, but the closing test line shows it finished.
                self.notes.append(f"{frame.label} has no plan")
            return
        if frame.plan == 0 and frame.count == 0:
            if frame.plan_reason:
                where = "" if frame.depth == 0 else f"{frame.label}: "
                self.notes.append(f"{where}no tests run ({frame.plan_reason})")
            return
        if frame.count != frame.plan:
            what = "fewer" if frame.count < frame.plan else "more"
            where = "" if frame.depth == 0 else f"{frame.label}: "
            self.notes.append(f"{where}plan announced {frame.plan} tests but {frame.count} reported ({what})")
            self.complete = False

    # -- line handlers --------------------------------------------------------------------------

    def test_line(self, m: re.Match[str], depth: int, indent: int) -> None:
        # Frames deeper than the subtest this line closes were never closed themselves.
        self._close_unfinished(depth + 1)
        children: list[_Result] = []
        if self.stack[-1].depth == depth + 1:
            sub = self.stack.pop()
            self._check_plan(sub)
            children = sub.results
        frame = self._open_to(depth)
        self.pending_names.pop(depth + 1, None)

        if frame.plan is not None and frame.plan_after_tests:
            self.notes.append(f"{frame.label}: test lines after a trailing plan")
            frame.plan_after_tests = False
        number = int(m.group("num")) if m.group("num") else frame.last_number + 1
        if number in frame.numbers:
            self.duplicates.append(f"{number} ({frame.label})")
        elif number != frame.last_number + 1:
            self.out_of_order.append(f"{number} ({frame.label})")
        frame.numbers.add(number)
        frame.last_number = number
        frame.count += 1

        description, directive, reason = _split_directive(m.group("rest") or "")
        result = _Result(
            id=_test_id(description, number),
            outcome=_outcome(m.group("not") is None, directive),
            reason=reason,
        )
        for child in children:
            child.id = f"{result.id}{ID_SEPARATOR}{child.id}"
        frame.results.extend(children)
        frame.results.append(result)
        self.yaml_target = (result, indent)

    def plan_line(self, m: re.Match[str], depth: int) -> None:
        self._close_unfinished(depth)
        frame = self._open_to(depth)
        if frame.plan is not None:
            self.notes.append(f"{frame.label}: more than one plan line (kept the first)")
            return
        frame.plan = int(m.group("count"))
        frame.plan_reason = (m.group("reason") or "").strip()
        frame.plan_after_tests = frame.count > 0

    def bail_line(self, m: re.Match[str]) -> None:
        reason = m.group("reason").strip()
        self.notes.append(f"Bail out!{' ' + reason if reason else ''}: the run stopped early")
        self.complete = False
        self.bailed = True

    # -- driver ---------------------------------------------------------------------------------

    def feed(self, text: str) -> None:
        lines = text.splitlines()
        i = 0
        while i < len(lines) and not self.bailed:
            line = lines[i]
            i += 1
            stripped = line.strip()
            if not stripped:
                continue
            indent = _indent_of(line)
            target = self.yaml_target
            self.yaml_target = None
            if stripped == "---" and target is not None and indent > target[1]:
                i = self._read_yaml(lines, i, indent, target[0])
                continue
            self._line(stripped, indent)
        # After a bail-out this keeps what ran before it, under the names its subtests announced.
        self._close_unfinished(0)
        self._check_plan(self.stack[0])

    def _read_yaml(self, lines: list[str], i: int, indent: int, target: _Result) -> int:
        body: list[str] = []
        while i < len(lines):
            line = lines[i]
            stripped = line.strip()
            if stripped == "..." and _indent_of(line) == indent:
                _yaml_message(body, indent, target)
                return i + 1
            if stripped and _indent_of(line) < indent:
                break  # a less indented line: the block was never terminated
            body.append(line)
            i += 1
        self.notes.append(f"unterminated YAML block after test {target.id!r}")
        _yaml_message(body, indent, target)
        return i

    def _line(self, stripped: str, indent: int) -> None:
        depth = indent // INDENT_PER_LEVEL
        m = _TEST_LINE.match(stripped)
        if m:
            self.seen_tap = True
            self.test_line(m, depth, indent)
            return
        m = _PLAN_LINE.match(stripped)
        if m:
            self.seen_tap = True
            self.plan_line(m, depth)
            return
        m = _BAIL_LINE.match(stripped)
        if m:
            self.seen_tap = True
            self.bail_line(m)
            return
        if stripped.startswith("#"):
            sub = _SUBTEST_COMMENT.match(stripped)
            if sub and sub.group("name"):
                # "# Subtest: name" sits one level above the block it announces.
                self.pending_names[depth + 1] = sub.group("name").strip()
            return
        m = _VERSION_LINE.match(stripped)
        if m:
            self.seen_tap = True
            self.versions.append(int(m.group("version")))
            return
        if _PRAGMA_LINE.match(stripped):
            return
        self.non_tap += 1

    def result(self) -> TestResults:
        notes = list(self.notes)
        if not self.seen_tap:
            notes = ["no TAP output found"]
            self.complete = False
        for v in self.versions:
            if v not in (13, 14):
                notes.append(f"unknown TAP version {v}, read as TAP 14")
        if self.duplicates:
            notes.append("duplicate test numbers: " + ", ".join(self.duplicates[:10]))
        if self.out_of_order:
            notes.append("test numbers out of sequence: " + ", ".join(self.out_of_order[:10]))
        if self.non_tap:
            notes.append(f"{self.non_tap} non-TAP line{'s' if self.non_tap != 1 else ''} ignored")
        return TestResults(
            runner=TapRunner.name,
            tests=tuple(r.freeze() for r in self.stack[0].results),
            complete=self.complete,
            notes=tuple(notes),
        )


def parse_tap(text: str) -> TestResults:
    """Parse TAP 12/13/14 output into per-test results.

    Subtests get ids ``"parent > child"`` (deeper levels add more `` > ``); the parent line that
    closes a subtest also keeps its own result under its own id. A test line without a description
    gets the id ``"test N"``.

    Args:
        text: the producer's standard output; lines that are not TAP are ignored and counted.

    Returns:
        The results in report order (subtests before the line that closes them). ``complete`` is
        False after ``Bail out!``, when the plan and the number of results disagree, or when there is
        no plan at all.
    """
    parser = _Parser()
    parser.feed(text)
    return parser.result()


class TapRunner(Runner):
    """Reads TAP from a test command's standard output (no report file, no extra switches)."""

    name = "tap"

    def parse(self, out: RunOutput) -> TestResults:
        """Parse ``out.stdout`` as TAP; never raises (no TAP at all gives zero tests and a note)."""
        return parse_tap(out.stdout)
