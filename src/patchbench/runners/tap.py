"""The Test Anything Protocol runner: TAP 12, 13 and 14 read from standard output.

One parser covers the three versions because each is a superset of the one before. It reads a stream
the way the TAP 14 specification and ``tap-parser`` (the reference implementation, node-tap's parser)
read it:

* TAP 12: a plan ``1..N`` (first, or last: "trailing"), test points ``ok``/``not ok`` with an optional
  number and description, ``# SKIP``/``# TODO`` directives, ``Bail out!``, ``#`` comments.
* TAP 13: a ``TAP version 13`` line (only valid before anything else) and YAML diagnostic blocks
  (``---`` ... ``...``, indented under the test point they describe), ``pragma +name`` lines.
* TAP 14: subtests, indented four spaces per level, announced by ``# Subtest: name`` (at the parent's
  level or at the child's) and closed by a test point one level up that carries the subtest's overall
  result; and *buffered* subtests, whose test point comes first and ends with ``{``, their block
  closed by a ``}`` line (``ok 1 - name {`` ... ``}``).

Directives follow ``tap-parser``: a ``#`` starts a directive only when it is unescaped and follows
whitespace (``testTitle#skip`` is part of the name), and the directive is ``skip``/``todo`` followed by
any non-space characters (``# Skipped``, ``# TODOs``); ``# time=12ms`` (node-tap) is a duration, not
part of the test's id. Escapes: ``\\#`` is ``#`` and ``\\\\`` is ``\\`` in names.

Plans: a plan after test points is a trailing plan, and nothing but comments may follow it: test
points after it are not read, and the run is incomplete (a ``1..15`` after 10 results and 5 more is a
stream nobody can trust). A second plan is ignored.

Node's built-in reporter (``node --test --test-reporter=tap``) is the main producer in practice: it
nests ``describe`` blocks as subtests, puts ``duration_ms`` in every YAML block and escapes ``#``,
``\\`` and control characters in names (see :func:`parse_tap`'s ``node_escapes``). Perl's Test::More is
the reference producer for plans, skips, todos and bail-outs.

The parser never raises: whatever it cannot read is skipped and summed up in ``notes``, and anything
that suggests the run did not finish sets ``complete=False``: a bail-out, a plan that does not match the
results, no plan at all, a subtest never closed, test points after a trailing plan, or a last line
without its newline (the stream was cut, and a cut ``ok 1 - x # SKIP`` reads ``ok 1 - x``).
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

_CHILD_INDENT = " " * INDENT_PER_LEVEL

# The line types, as tap-parser defines them (a line here has no newline).
_TEST_POINT = re.compile(r"^(?P<not>not )?ok(?: (?P<num>[0-9]+))?(?:(?: -)?(?P<rest> .*?))?(?P<brace>\{?)$")
_PLAN = re.compile(r"^(?P<start>[0-9]+)\.\.(?P<end>[0-9]+)(?:\s+(?:#\s*(?P<reason>.*)))?$")
_VERSION = re.compile(r"^TAP version (?P<version>[0-9]+)\s*$", re.IGNORECASE)
_BAIL = re.compile(r"^bail out!(?P<reason>.*)$", re.IGNORECASE)
_PRAGMA = re.compile(r"^pragma [+-][a-zA-Z0-9_-]+\s*$")
_SUBTEST = re.compile(r"^# Subtest(?:: (?P<name>.*))?$")
_SUBTEST_INDENTED = re.compile(r"^    # Subtest(?:: (?P<name>.*))?$")
_COMMENT = re.compile(r"^\s*#")
_MULTIPLE_INDENT = re.compile(r"^(?:    )+(?P<body>[^ ].*)$")
_OPEN_BRACE_EOL = re.compile(r"\{\s*$")
_TIME_DIRECTIVE = re.compile(r"^time=(?P<n>(?:[1-9][0-9]*|0)(?:\.[0-9]+)?)(?P<unit>ms|s)$", re.IGNORECASE)
_SKIP_TODO = re.compile(r"^(?P<kind>todo|skip)\S*\b(?P<reason>.*)$", re.IGNORECASE | re.DOTALL)
# node's escapes of control characters in names (its reporter writes a tab as \t, then doubles every
# backslash, so a tab reaches the stream as "\\t").
_NODE_CONTROL = {"b": "\b", "f": "\f", "t": "\t", "n": "\n", "r": "\r", "v": "\v"}
_NODE_UNESCAPE = re.compile(r"\\\\(?P<control>[bftnrv])|\\\\|\\#")
_UNESCAPE = re.compile(r"(?P<control>(?!))|\\\\|\\#")
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
    buffered: bool = False

    def freeze(self) -> TestResult:
        parts = [p for p in (self.reason.strip(), (self.yaml or "").strip()) if p]
        message = "\n".join(parts) or None
        if message is not None and len(message) > MAX_MESSAGE_CHARS:
            message = message[: MAX_MESSAGE_CHARS - 1] + "…"
        return TestResult(id=self.id, outcome=self.outcome, duration_s=self.duration_s, message=message)


def _unescape(text: str, node_escapes: bool) -> str:
    r"""A name as its producer meant it: ``\#`` is ``#``, ``\\`` is ``\``; with ``node_escapes`` also
    node's control-character escapes. One left-to-right pass, so an escaped backslash before a ``#``
    or a letter is never read twice."""
    pattern = _NODE_UNESCAPE if node_escapes else _UNESCAPE
    return pattern.sub(_unescape_one, text)


def _unescape_one(m: re.Match[str]) -> str:
    if m.group("control"):
        return _NODE_CONTROL[m.group("control")]
    return "\\" if m.group(0) == "\\\\" else "#"


def _split_description(rest: str) -> tuple[str, str | None]:
    """Split a test point's text at the first ``#`` that is unescaped and follows whitespace (or
    starts the text): (description, what follows the ``#``), or (text, None) when there is none."""
    # "\n" cannot occur in a line: it stands for an escaped backslash while the "#" is looked for, and
    # counts as whitespace before it, as in tap-parser.
    masked = rest.replace("\\\\", "\n")
    for i, ch in enumerate(masked):
        if ch == "#" and (i == 0 or masked[i - 1].isspace()):
            return masked[:i].replace("\n", "\\\\"), masked[i + 1 :].replace("\n", "\\\\")
    return rest, None


def _directive(text: str) -> tuple[str, str] | None:
    """(kind, reason) of a directive text (after the ``#``): ``skip``, ``todo`` or ``time`` (ms)."""
    line = _OPEN_BRACE_EOL.sub("", text).strip()
    if not line:
        return None
    line = re.sub(r"^duration_ms ([0-9.]+)$", r"time=\1ms", line)
    m = _TIME_DIRECTIVE.match(line)
    if m:
        ms = float(m.group("n")) * (1000.0 if m.group("unit").lower() == "s" else 1.0)
        return "time", str(ms)
    m = _SKIP_TODO.match(line)
    if m:
        return m.group("kind").lower(), m.group("reason").strip().lstrip(":").strip()
    return None


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


def _is_tap_line(body: str) -> bool:
    return bool(
        _TEST_POINT.match(body)
        or _PLAN.match(body)
        or _BAIL.match(body)
        or _VERSION.match(body)
        or _PRAGMA.match(body)
        or _COMMENT.match(body)
    )


class _Shared:
    """What every level of one parse adds to: notes, counters, the bail-out."""

    def __init__(self, node_escapes: bool) -> None:
        self.node_escapes = node_escapes
        self.notes: list[str] = []
        self.complete = True
        self.seen_tap = False
        self.non_tap = 0
        self.versions: list[int] = []
        self.bailed = False
        self.duplicates: list[str] = []
        self.out_of_order: list[str] = []

    def incomplete(self, note: str) -> None:
        self.notes.append(note)
        self.complete = False


@dataclass
class _Level:
    """One TAP stream: the top level (depth 0) or one subtest, fed its lines with the indent removed."""

    shared: _Shared
    depth: int
    name: str | None = None  # from "# Subtest: name" or the buffered test point
    buffered: bool = False
    results: list[_Result] = field(default_factory=list)
    plan: tuple[int, int] | None = None
    plan_reason: str = ""
    post_plan: bool = False
    after_plan: int = 0
    count: int = 0
    last_number: int = 0
    numbers: set[int] = field(default_factory=set)
    current: _Result | None = None
    child: _Level | None = None
    maybe_child: str | None = None
    yaml_indent: str | None = None
    yaml_lines: list[str] = field(default_factory=list)
    anything: bool = False  # a plan or a test point was read (a version line must come first)

    @property
    def label(self) -> str:
        return "the top level" if self.depth == 0 else f"subtest {self.name or '(unnamed)'!r}"

    # -- results and children -----------------------------------------------------------------------

    def _flush(self) -> None:
        """End the open child (if any) and record the pending test point."""
        self._end_child(None)
        self._end_yaml(terminated=False)
        if self.current is not None:
            self.results.append(self.current)
            self.count += 1
            self.current = None

    def _end_child(self, closing: _Result | None) -> None:
        """Fold the open child's results into this level, prefixed with the child's name, else (an
        anonymous subtest) the id of the test point that closes it (``closing``)."""
        child = self.child
        if child is None:
            return
        self.child = None
        child.finish()
        # The subtest's own name (its "# Subtest:" comment, or its buffered test point) as tap-parser
        # names it; an anonymous subtest takes the test point that closes it, so that two of them
        # cannot give their tests one id.
        prefix = child.name or (closing.id if closing is not None else None)
        for r in child.results:
            if prefix:
                r.id = f"{prefix}{ID_SEPARATOR}{r.id}"
            self.results.append(r)

    def _start_child(self, line: str) -> None:
        buffered = self.current is not None and self.current.buffered
        announced = self.maybe_child is not None and not buffered
        indented = None if buffered or announced else _SUBTEST_INDENTED.match(line)
        if not buffered:
            self._flush()
        if indented is not None:
            name: str | None = (indented.group("name") or "").strip()
        elif buffered:
            assert self.current is not None
            name = self.current.id
        else:
            name = (self.maybe_child or "").strip() or None
        self.maybe_child = None
        if name is not None and not buffered:
            name = _unescape(name, self.shared.node_escapes) or None
        self.child = _Level(self.shared, self.depth + 1, name=name, buffered=buffered)
        if indented is None:
            self.child.parse(line[INDENT_PER_LEVEL:])

    # -- YAML ---------------------------------------------------------------------------------------

    def _end_yaml(self, *, terminated: bool) -> None:
        if self.yaml_indent is None:
            return
        target = self.current
        if target is not None:
            if not terminated:
                self.shared.notes.append(f"unterminated YAML block after test {target.id!r}")
            _yaml_message(self.yaml_lines, len(self.yaml_indent), target)
        self.yaml_indent = None
        self.yaml_lines = []

    # -- lines --------------------------------------------------------------------------------------

    def parse(self, line: str) -> None:
        """Read one line (no newline) of this level's stream."""
        if self.shared.bailed:
            return
        if not line.strip():
            if self.child is not None:
                self.child.parse("")
            elif self.yaml_indent is not None:
                self.yaml_lines.append("")
            return
        if line[0] in " \t":
            self._indented(line)
            return
        if self.child is not None and self.child.buffered and line.rstrip() == "}":
            self._end_child(None)
            self._flush()
            return
        if (
            self.current is not None
            and line.rstrip() == "{"
            and self.current.yaml is not None
            and not self.current.buffered
            and self.child is None
        ):
            self.current.buffered = True  # a buffered subtest whose diagnostics came first
            return
        sub = _SUBTEST.match(line)
        if sub:
            self._end_yaml(terminated=False)
            self.maybe_child = sub.group("name") or ""
            return
        if _COMMENT.match(line):
            return
        if not _is_tap_line(line):
            self.shared.non_tap += 1
            return
        self._end_yaml(terminated=False)
        self.maybe_child = None
        if self.post_plan:
            # Only comments may follow a trailing plan.
            self.after_plan += 1
            return
        m = _BAIL.match(line)
        if m:
            self._bail(m.group("reason").strip())
            return
        if _PRAGMA.match(line):
            return
        m = _VERSION.match(line)
        if m:
            if self.depth == 0 and not self.anything and self.current is None:
                self.shared.seen_tap = True
                self.shared.versions.append(int(m.group("version")))
            elif self.depth == 0:
                self.shared.non_tap += 1
            return
        m = _PLAN.match(line)
        if m:
            self._plan(m)
            return
        m = _TEST_POINT.match(line)
        if m:
            self._test_point(m)

    def _indented(self, line: str) -> None:
        if self.child is not None and line.startswith(_CHILD_INDENT):
            self.child.parse(line[INDENT_PER_LEVEL:])
            return
        if self.yaml_indent is not None:
            if line.startswith(self.yaml_indent):
                if line.rstrip() == self.yaml_indent + "...":
                    self._end_yaml(terminated=True)
                else:
                    self.yaml_lines.append(line)
                return
            self._end_yaml(terminated=False)
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if self.current is not None and self.current.yaml is None and line.rstrip() == indent + "---":
            self.yaml_indent = indent
            self.yaml_lines = []
            return
        if line.startswith(_CHILD_INDENT):
            buffered = self.current is not None and self.current.buffered
            if self.maybe_child is not None or buffered or _SUBTEST_INDENTED.match(line):
                self._start_child(line)
                return
            m = _MULTIPLE_INDENT.match(line)
            if m and _is_tap_line(m.group("body")):
                if not _COMMENT.match(m.group("body")):
                    self._start_child(line)
                return
        if _COMMENT.match(line):
            return
        self.shared.non_tap += 1

    def _bail(self, reason: str) -> None:
        self.shared.seen_tap = True
        self._flush()
        self.shared.bailed = True
        self.shared.incomplete(f"Bail out!{' ' + reason if reason else ''}: the run stopped early")

    def _plan(self, m: re.Match[str]) -> None:
        self.shared.seen_tap = True
        if self.plan is not None:
            self.shared.notes.append(f"{self.label}: more than one plan line (kept the first)")
            return
        if self.child is not None:
            # A plan cannot close a subtest: it belongs to no level (the subtest stays open).
            self.shared.non_tap += 1
            return
        start, end = int(m.group("start")), int(m.group("end"))
        if end < start and end != 0 and start != 1:
            self.shared.non_tap += 1  # "100..1" is not a plan
            return
        self._flush()
        self.plan = (start, end)
        self.plan_reason = (m.group("reason") or "").strip()
        self.anything = True
        if self.count or end == 0:
            self.post_plan = True
            beyond = sorted(n for n in self.numbers if n < start or n > end)
            if beyond:
                where = "" if self.depth == 0 else f"{self.label}: "
                self.shared.incomplete(f"{where}test numbers outside the plan {start}..{end}: {beyond[:10]}")

    def _test_point(self, m: re.Match[str]) -> None:
        self.shared.seen_tap = True
        self.anything = True
        if self.child is None:
            self._flush()
        number = int(m.group("num")) if m.group("num") else self.last_number + 1
        result = self._result(m, number)
        if m.group("num"):
            if number in self.numbers:
                self.shared.duplicates.append(f"{number} ({self.label})")
            elif number != self.last_number + 1:
                self.shared.out_of_order.append(f"{number} ({self.label})")
        self.numbers.add(number)
        self.last_number = number
        if self.child is not None:
            self._end_child(result)
            self._flush()
        self.current = result

    def _result(self, m: re.Match[str], number: int) -> _Result:
        rest = m.group("rest") or ""
        brace = m.group("brace") or ""
        description, after = _split_description(rest)
        directive = _directive(after) if after is not None else None
        kind, reason = directive if directive is not None else (None, "")
        if directive is None:
            # Not a directive: the '#' and what follows stay in the name (tap-parser drops a lone '#').
            description = description + ("#" + after if after else "") + brace
        buffered = brace == "{"
        if _OPEN_BRACE_EOL.search(description):
            description = _OPEN_BRACE_EOL.sub("", description)
            buffered = True
        # Trimmed before the escapes are read: a name may end in an escaped control character.
        description = description.strip()
        name = "" if description == "-" else _unescape(description, self.shared.node_escapes)
        duration: float | None = None
        if kind == "time":
            duration = float(reason) / 1000.0
            kind, reason = None, ""
        return _Result(
            id=name or f"test {number}",
            outcome=_outcome(m.group("not") is None, kind),
            reason=_unescape(reason, self.shared.node_escapes),
            duration_s=duration,
            buffered=buffered,
        )

    # -- the end ------------------------------------------------------------------------------------

    def finish(self) -> None:
        """End of this level's stream: close what is open and check the plan."""
        if self.child is not None:
            if not self.shared.bailed:
                self.shared.incomplete(f"{self.child.label} was not closed by a test line")
            self._end_child(None)
            if self.shared.bailed and self.current is not None and self.current.buffered:
                # A buffered test point whose block bailed out: its result is not the block's.
                self.current = None
        self._flush()
        self._check_plan()

    def _check_plan(self) -> None:
        shared = self.shared
        if shared.bailed:
            return  # the bail-out note already says the run stopped early
        where = "" if self.depth == 0 else f"{self.label}: "
        if self.after_plan:
            shared.incomplete(
                f"{where}{self.after_plan} TAP line(s) after the trailing plan were not read "
                "(only comments may follow it)"
            )
        if self.plan is None:
            if self.depth == 0:
                if self.count:
                    shared.incomplete(f"no plan line: cannot tell whether all {self.count} tests ran")
                elif shared.seen_tap:
                    shared.incomplete("no plan line and no test lines")
                else:
                    shared.complete = False
            elif self.count:
                # TAP 14 wants a plan in each subtest, but the closing test line shows it finished.
                shared.notes.append(f"{self.label} has no plan")
            return
        start, end = self.plan
        if end == 0:
            if self.count == 0:
                if self.plan_reason:
                    shared.notes.append(f"{where}no tests run ({self.plan_reason})")
                return
            shared.incomplete(f"{where}plan 1..0 (no tests) but {self.count} test lines")
            return
        planned = end - start + 1
        if self.count != planned:
            what = "fewer" if self.count < planned else "more"
            shared.incomplete(f"{where}plan announced {planned} tests but {self.count} reported ({what})")


def parse_tap(text: str, *, node_escapes: bool = False) -> TestResults:
    r"""Parse TAP 12/13/14 output into per-test results.

    Subtests get ids ``"parent > child"`` (deeper levels add more `` > ``), where ``parent`` is the id
    of the test point that closes the subtest (its ``# Subtest:`` name when none does); the parent
    keeps its own result under its own id. A test point without a description gets the id
    ``"test N"``.

    Args:
        text: the producer's standard output; lines that are not TAP are ignored and counted.
        node_escapes: read node's escapes of control characters in names (``\\t`` in the stream is a
            tab in the test's name), so that ids are node's own test names.

    Returns:
        The results in report order (subtests before the line that closes them). ``complete`` is
        False after ``Bail out!``, when the plan and the number of results disagree, when there is no
        plan at all, when a subtest is never closed, when test points follow a trailing plan, or when
        the last line has no newline (the stream was cut inside it).
    """
    shared = _Shared(node_escapes)
    top = _Level(shared, 0)
    lines = text.split("\n")
    cut_line = lines.pop()  # "" when the text ends with a newline
    for line in lines:
        top.parse(line.removesuffix("\r"))
    if cut_line.strip():
        top.parse(cut_line.removesuffix("\r"))
        stripped = cut_line.strip()
        if cut_line[0] in " \t" or (
            not _COMMENT.match(cut_line) and (_is_tap_line(stripped) or stripped in ("{", "}"))
        ):
            shared.incomplete("the output ends inside a line (no newline): its last line may be cut")
    top.finish()
    return _results(shared, top)


def _results(shared: _Shared, top: _Level) -> TestResults:
    notes = list(shared.notes)
    complete = shared.complete
    if not shared.seen_tap:
        notes = ["no TAP output found"]
        complete = False
    for v in shared.versions:
        if v not in (13, 14):
            notes.append(f"unknown TAP version {v}, read as TAP 14")
    if shared.duplicates:
        notes.append("duplicate test numbers: " + ", ".join(shared.duplicates[:10]))
    if shared.out_of_order:
        notes.append("test numbers out of sequence: " + ", ".join(shared.out_of_order[:10]))
    if shared.non_tap:
        notes.append(f"{shared.non_tap} non-TAP line{'s' if shared.non_tap != 1 else ''} ignored")
    return TestResults(
        runner=TapRunner.name,
        tests=tuple(r.freeze() for r in top.results),
        complete=complete,
        notes=tuple(notes),
    )


def with_run_signals(results: TestResults, out: RunOutput, *, channel_truncated: bool) -> TestResults:
    """``results`` made incomplete when the run says its channel was cut or the command was killed.

    Args:
        results: what the parser read.
        out: the run (its exit code).
        channel_truncated: the channel ``results`` were read from lost its middle (the sandbox's capture
            keeps a head and a tail): a test line in the kept tail may be the end of a cut line, and
            whole results are missing.
    """
    notes = list(results.notes)
    complete = results.complete
    if channel_truncated:
        complete = False
        notes.append("the output was truncated by the sandbox (its middle was dropped): results are partial")
    if out.exit_code is None:
        complete = False
        notes.append("the test command was killed (no exit code): its output may be partial")
    if complete == results.complete and len(notes) == len(results.notes):
        return results
    return results.model_copy(update={"complete": complete, "notes": tuple(notes)})


class TapRunner(Runner):
    """Reads TAP from a test command's standard output (no report file, no extra switches)."""

    name = "tap"

    def parse(self, out: RunOutput) -> TestResults:
        """Parse ``out.stdout`` as TAP; never raises (no TAP at all gives zero tests and a note).

        Standard output cut by the sandbox, or a killed command, makes the result incomplete.
        """
        return with_run_signals(parse_tap(out.stdout), out, channel_truncated=out.stdout_truncated)
