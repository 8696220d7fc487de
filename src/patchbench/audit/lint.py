"""Static lint of Harbor-style verifier scripts (``tests/test.sh``), on bashlex's parse tree.

:func:`lint_script` parses the script with `bashlex <https://github.com/idank/bashlex>`_, turns the tree
into a small model (simple commands, pipelines, ``&&``/``||`` lists, ``if``/``case``/loops, groups,
functions) and walks it once in execution order — function calls are expanded at the call site, ``trap``
bodies are walked after the script, with ``$?`` standing for the script's exit status. Detection works on
that model and on single words of it, never on raw lines.

Codes (each :class:`Finding` has a code, a one-line message, the line, the source text and a severity;
``high`` means the verifier can reward a broken or empty candidate):

``pipe-without-pipefail``
    A pipeline whose status is consumed — by ``if``/``while``, ``&&``/``||``, ``$?`` read by the next
    statement, ``set -e``, or the script's own exit when a trap reads it — while ``set -o pipefail`` is off.
    ``${PIPESTATUS[...]}`` read by the next statement counts as checking every command. Pipelines made only
    of text tools (``echo``, ``printf``, ``cat``, ``grep``, ``sed``, ``awk``, ``cut``, ``tr``, ``sort``,
    ``head``, ``tail``, ``wc``...) are ignored: a failure upstream leaves empty text, which the last tool
    sees. High when a test runner or compiler sits before the last command, medium otherwise.
``tee-masks-exit-code``
    A pipeline ending in ``tee`` without pipefail (and without ``PIPESTATUS``): the real command's status is
    lost. Reported instead of ``pipe-without-pipefail`` for such pipelines. High when the status is
    consumed or a runner/compiler feeds the tee, medium otherwise.
``trap-writes-positive-reward``
    A ``trap`` whose command (functions it calls included) writes a positive literal reward or one
    computed from ``$?`` (``echo $? > reward.txt`` writes 1 when a command failed).
``reward-before-tests``
    A reward that may be positive (a positive number, ``$?``, a variable that may hold a positive number)
    is written, in execution order and traps excluded, before the first test command: a recognised runner,
    a compiler, or an interpreter run on a file under ``/tests``. Not reported when the script runs no
    recognised test command at all.
``reward-defaults-to-one``
    The first reward write (traps excluded) is unconditional and writes a positive number, or ``$?``
    (which is 1 when the command before failed): the reward starts positive.
``exit-code-ignored``
    A runner (pytest, ``python -m pytest``/``unittest``, mvn, gradle, go test, cargo test, npm/yarn/pnpm
    test, jest/vitest/mocha, ``node --test``, java with the JUnit console launcher or JUnitCore, javac)
    whose status nothing reads (no ``if``, ``&&``/``||``, ``set -e``, ``$?``/``PIPESTATUS`` right after,
    nor an assignment ``out=$(runner)`` whose status is read; ``X || true`` throws the status away and
    does not count), while a reward other than a literal 0 is written after it. Runs after the last
    reward write (e.g. ``pytest tests/test_state.py`` that only reports) are not reported. Medium when
    every later reward write is guarded by a test-count check (the output decides).
``zero-tests-accepted``
    A positive reward write whose guards — enclosing conditions, ``|| exit`` early exits, ``set -e``
    failures, ``$?``/status variables, or for a trap the script's exit status — include a runner's exit
    status but no check that tests ran (a variable set under such a guard, ``ok=1``, carries it to the
    write ``echo $ok > reward.txt``). A check is a guard that mentions a pass/run count (a word like
    ``passed``, ``Tests run``, ``collected``, ``Ran``, ``executed``, ``total``, ``tests successful``),
    or a variable named like one or computed from output by such a word. High for runners that exit 0
    when no test runs (mvn, gradle, go test, cargo test, node --test, the JUnit console launcher and
    JUnitCore, npm test, mocha, unittest before 3.12); medium for pytest (it exits 5 when nothing is
    collected, but 0 when every test is skipped). ``--fail-if-no-tests``/``-DfailIfNoTests=true`` make a
    runner safe, as jest/vitest/``cargo nextest`` are by default.
    Limits: a count check inside another program (``python3 check.py``) is not seen (a false positive),
    and any word matching the count vocabulary counts as a check (a false negative when it checks
    something else).
``network-install-at-verify-time``
    ``curl``/``wget`` piped into a shell (or ``sh -c "$(curl ...)"``), ``pip install`` (without
    ``--no-index``), ``uv pip install``, ``uv tool install``, ``uvx``, ``npm``/``yarn``/``pnpm`` install,
    ``apt-get``/``apt``/``apk``/``yum``/``dnf`` install, ``gem``/``cargo``/``go`` install: the verifier runs
    offline. Medium.
``unparseable``
    bashlex could not parse the script (after the workarounds below); the parser's message. Medium.

bashlex gaps and the workarounds (the script is rewritten to a text of the *same length* before parsing,
so every offset, hence every line number, stays true): ``$(...)``, backticks and ``<(...)``/``>(...)`` are
cut out and parsed on their own (bashlex fails on ``$(a || b)``); ``[[ ... ]]`` and ``(( ... ))`` become
``[ ... ]``; ``$(( ... ))`` and array literals ``a=(...)`` become one word; ``case`` becomes a brace group
whose items are remembered; the ``time`` keyword is dropped; quoted here-document delimiters are unquoted
(bodies are never analysed). ``select`` and ``coproc`` remain unparseable.

Limits of the whole model: analysis follows execution order only (loops run once, both branches of an
``if`` are walked); a variable keeps the literal values it may hold, or what its value depends on;
``bash -c``/``sh -c`` strings are parsed, but ``eval``, ``source``, commands built from variables and
here-document bodies are opaque; a shebang's options are ignored on purpose, since the harness runs
``bash /tests/test.sh``. A verifier that writes 0 first and 1 on success, but never writes 0 again after
candidate code ran, is not a lint finding: the ``self-reward`` probe (:mod:`patchbench.audit.probes`)
catches candidates that write the reward file themselves.
"""

from __future__ import annotations

import json
import math
import posixpath
import re
import shlex
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import bashlex  # type: ignore[import-untyped]  # bashlex ships no type information
from pydantic import BaseModel, ConfigDict

__all__ = ["CODES", "Finding", "Severity", "lint_script"]


#: Characters that open an escape, a quote, an expansion or a command substitution.
_QUOTING = "\\'\"$`"


class Severity(str, Enum):
    """How bad a finding is."""

    HIGH = "high"
    """The verifier can reward a broken or empty candidate."""
    MEDIUM = "medium"
    """The verifier is weaker or less reliable than it should be."""
    LOW = "low"
    """Worth knowing."""


class Finding(BaseModel):
    """One lint finding.

    Attributes:
        code: a stable code (see :data:`CODES`).
        message: one line for people.
        line: the 1-based line of the offending construct.
        evidence: its source text (first line, trimmed).
        severity: see :class:`Severity`.
    """

    model_config = ConfigDict(frozen=True)

    code: str
    message: str
    line: int
    evidence: str
    severity: Severity


CODES: dict[str, str] = {
    "pipe-without-pipefail": "a pipeline's status is used while set -o pipefail is off",
    "tee-masks-exit-code": "a pipeline ending in tee hides the real command's exit code",
    "trap-writes-positive-reward": "a trap writes a positive reward (or one computed from $?)",
    "reward-before-tests": "a positive reward is written before any test runs",
    "reward-defaults-to-one": "the first reward write is unconditional and positive",
    "exit-code-ignored": "a test runner's exit status is never checked",
    "zero-tests-accepted": "the reward follows a runner's exit status without checking that tests ran",
    "network-install-at-verify-time": "the verifier downloads or installs software at verify time",
    "unparseable": "the script could not be parsed",
}
"""Every finding code and what it means."""


# ================================================================================= 1. same-length rewrite

_BLANK = " \t"
_META = " \t\n;&|()<>"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?$")
_KEEP_START = {"if", "then", "else", "elif", "do", "while", "until", "!", "{"}
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")


class _Unbalanced(Exception):
    """A construct the rewrite could not close (an unterminated quote, substitution, case...)."""

    def __init__(self, pos: int, what: str) -> None:
        super().__init__(what)
        self.pos = pos
        self.what = what


@dataclass
class _Sub:
    """A command or process substitution cut out of the text (replaced by ``_`` of the same length)."""

    start: int
    end: int
    inner: str
    inner_offset: int
    exact: bool  # inner offsets map 1:1 onto the outer text (False for backticks)


@dataclass
class _CaseSpan:
    start: int
    end: int
    items: list[tuple[str, int, int]]  # pattern, body start, body end


class _Rewriter:
    """One pass over the script: finds what bashlex cannot parse and rewrites it in place, same length."""

    def __init__(self, src: str) -> None:
        self.s = src
        self.n = len(src)
        self.buf = list(src)
        self.subs: list[_Sub] = []
        self.cases: list[_CaseSpan] = []
        self.heredocs: list[tuple[str, bool, int]] = []
        self.depth = 0
        self.words = 0

    # -- helpers
    def put(self, start: int, text: str) -> None:
        self.buf[start : start + len(text)] = list(text)

    def blank(self, start: int, end: int, fill: str = " ") -> None:
        for k in range(start, end):
            if self.buf[k] != "\n":
                self.buf[k] = fill

    def wordify(self, start: int, end: int) -> None:
        for k in range(start, end):
            if not (self.buf[k].isalnum() or self.buf[k] == "_"):
                self.buf[k] = "_"

    def text(self) -> str:
        return "".join(self.buf)

    def word_at(self, i: int, w: str) -> bool:
        end = i + len(w)
        return self.s.startswith(w, i) and (end >= self.n or self.s[end] in _META)

    # -- command lists
    def commands(self, i: int, closer: str | None, in_case: bool = False) -> int:
        """Scan commands from ``i``; return the index of ``closer`` (or of a case terminator), or EOF."""
        s, n = self.s, self.n
        start = True
        while i < n:
            c = s[i]
            if closer is not None and c == closer:
                return i
            if c in _BLANK:
                i += 1
            elif c == "\\" and i + 1 < n and s[i + 1] == "\n":
                i += 2
            elif c == "\n":
                i = self.newline(i)
                start = True
            elif c == "#":
                while i < n and s[i] != "\n":
                    i += 1
            elif c == ";":
                if in_case and s.startswith((";;", ";&"), i):
                    return i
                i += 1
                start = True
            elif c == "&" or c == "|":
                if s.startswith("&>", i):
                    i += 3 if s.startswith("&>>", i) else 2
                    continue
                i += 2 if s.startswith(("&&", "||", "|&"), i) else 1
                start = True
            elif c == "(":
                if start and s.startswith("((", i):
                    i = self.arith_command(i)
                    start = False
                else:
                    j = self.commands(i + 1, ")")
                    i = j + 1
                    start = False
            elif c == ")":
                if in_case:
                    return i
                i += 1
            elif c in "<>":
                i = self.redirect(i)
            else:
                if in_case and start and self.word_at(i, "esac"):
                    return i
                j = self.word(i)
                if j == i:  # a lone metacharacter the branches above do not handle
                    i += 1
                    continue
                self.words += 1
                w = s[i:j]
                if start and w == "[[":
                    i = self.double_bracket(i)
                    start = False
                elif start and w == "case":
                    i = self.case(i)
                    start = False
                elif start and w == "time":
                    self.blank(i, j)
                    k = j
                    while k < n and s[k] in _BLANK:
                        k += 1
                    if self.word_at(k, "-p"):
                        self.blank(k, k + 2)
                        k += 2
                    i = k
                else:
                    i = j
                    # reserved words and assignments leave the next word in command position
                    start = start and (w in _KEEP_START or bool(_ASSIGN.match(w)))
        return i

    def newline(self, i: int) -> int:
        """At a newline: skip the bodies of pending here-documents."""
        i += 1
        for delim, tabs, at in self.heredocs:
            while True:
                if i >= self.n:  # bash only warns; bashlex can loop forever on it
                    raise _Unbalanced(at, f"here-document (no {delim!r} line)")
                end = self.s.find("\n", i)
                end = self.n if end < 0 else end
                line = self.s[i:end]
                i = end + 1
                if (line.lstrip("\t") if tabs else line) == delim:
                    i = min(i, self.n)
                    break
        self.heredocs = []
        return i

    def redirect(self, i: int) -> int:
        s = self.s
        if s.startswith(("<(", ">("), i):
            return self.subst(i, i + 2)
        if s.startswith("<<<", i):
            return i + 3
        if s.startswith("<<", i):
            k = i + 2
            tabs = s.startswith("-", k)
            if tabs:
                k += 1
            while k < self.n and s[k] in _BLANK:
                k += 1
            j = k
            while j < self.n and s[j] not in _META:
                j += 1
            raw = s[k:j]
            delim = raw
            if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
                delim = raw[1:-1]
                self.blank(k, k + 1)
                self.blank(j - 1, j)
            elif raw.startswith("\\"):
                delim = raw[1:]
                self.blank(k, k + 1)
            self.heredocs.append((delim, tabs, i))
            return j
        j = i + 1
        while j < self.n and s[j] in "<>&|":
            j += 1
        return j

    # -- words
    def skip_quoted(self, i: int) -> int:
        """Past the escape, quote, ``$`` expansion or backquote at ``s[i]`` (a :data:`_QUOTING` char)."""
        c = self.s[i]
        if c == "\\":
            return i + 2
        if c == "'":
            return self.squote(i)
        if c == '"':
            return self.dquote(i)
        if c == "$":
            return self.dollar(i)
        return self.backtick(i)

    def word(self, i: int) -> int:
        s, n = self.s, self.n
        begin = i
        while i < n and s[i] not in _META:
            c = s[i]
            if c in _QUOTING:
                i = self.skip_quoted(i)
            elif c == "=" and i + 1 < n and s[i + 1] == "(" and _NAME.match(s[begin:i]):
                j = self.balanced(i + 1)
                self.wordify(i + 1, j)
                i = j
            else:
                i += 1
        return min(i, n)

    def squote(self, i: int) -> int:
        j = self.s.find("'", i + 1)
        if j < 0:
            raise _Unbalanced(i, "single quote")
        for k in range(i + 1, j):  # literal text; bashlex loops forever on e.g. '${'""
            if self.buf[k] == "$":
                self.buf[k] = "_"
        return j + 1

    def dquote(self, i: int) -> int:
        s, n = self.s, self.n
        start = i
        i += 1
        while i < n:
            c = s[i]
            if c == "\\":
                i += 2
            elif c == '"':
                return i + 1
            elif c == "$":
                i = self.dollar(i)
            elif c == "`":
                i = self.backtick(i)
            else:
                i += 1
        raise _Unbalanced(start, "double quote")

    def dollar(self, i: int) -> int:
        s, n = self.s, self.n
        nxt = s[i + 1] if i + 1 < n else ""
        if nxt == "(":
            if s.startswith("((", i + 1):
                end = self.arith_end(i + 3)
                if end is not None:
                    self.wordify(i, end)
                    return end
            return self.subst(i, i + 2)
        if nxt == "{":
            return self.braces(i + 2)
        if nxt == "'":
            k = i + 2
            while k < n and s[k] != "'":
                k += 2 if s[k] == "\\" else 1
            if k >= n:
                raise _Unbalanced(i, "$'...' quote")
            return k + 1
        if nxt == '"':
            return self.dquote(i + 1)
        return i + 1

    def braces(self, i: int) -> int:
        s, n = self.s, self.n
        start = i
        depth = 1
        while i < n:
            c = s[i]
            if c == "\\":
                i += 2
            elif c == "'":
                i = self.squote(i)
            elif c == '"':
                i = self.dquote(i)
            elif c == "$":
                if s.startswith("${", i):
                    depth += 1
                    i += 2
                else:
                    i = self.dollar(i)
            elif c == "`":
                i = self.backtick(i)
            elif c == "}":
                depth -= 1
                i += 1
                if depth == 0:
                    return i
            else:
                i += 1
        raise _Unbalanced(start - 2, "${...}")

    def backtick(self, i: int) -> int:
        s, n = self.s, self.n
        j = i + 1
        while j < n and s[j] != "`":
            j += 2 if s[j] == "\\" else 1
        if j >= n:
            raise _Unbalanced(i, "backtick substitution")
        inner = re.sub(r"\\([`\\$])", r"\1", s[i + 1 : j])
        if self.depth == 0:
            self.subs.append(_Sub(i, j + 1, inner, i + 1, exact=False))
            self.blank(i, j + 1, "_")
        return j + 1

    def subst(self, start: int, inner_start: int) -> int:
        """A ``$(...)``/``<(...)``/``>(...)`` from ``start``: cut out (at depth 0), return its end."""
        self.depth += 1
        try:
            j = self.commands(inner_start, ")")
        finally:
            self.depth -= 1
        if j >= self.n:
            raise _Unbalanced(start, "$(...) substitution")
        if self.depth == 0:
            self.subs.append(_Sub(start, j + 1, self.s[inner_start:j], inner_start, True))
            self.blank(start, j + 1, "_")
        return j + 1

    def balanced(self, i: int) -> int:
        """From an opening parenthesis to just after its match (quotes and substitutions honoured)."""
        s, n = self.s, self.n
        start = i
        depth = 0
        while i < n:
            c = s[i]
            if c in _QUOTING:
                i = self.skip_quoted(i)
            elif c == "(":
                depth += 1
                i += 1
            elif c == ")":
                depth -= 1
                i += 1
                if depth == 0:
                    return i
            else:
                i += 1
        raise _Unbalanced(start, "parenthesis")

    # -- arithmetic
    def arith_end(self, i: int) -> int | None:
        """From inside ``((`` to just after the matching ``))``; None when it is not arithmetic."""
        s, n = self.s, self.n
        depth = 0
        while i < n:
            c = s[i]
            if c in _QUOTING:
                i = self.skip_quoted(i)
            elif c == "(":
                depth += 1
                i += 1
            elif c == ")":
                if depth == 0:
                    return i + 2 if s.startswith("))", i) else None
                depth -= 1
                i += 1
            else:
                i += 1
        return None

    def arith_command(self, i: int) -> int:
        end = self.arith_end(i + 2)
        if end is None:  # ( (subshell) ): let bashlex see it as written
            j = self.commands(i + 1, ")")
            return j + 1
        self.put(i, "[ ")
        for k in range(i + 2, end - 2):
            if self.buf[k] in "<>&|();!":
                self.buf[k] = " "
        self.put(end - 2, " ]")
        return end

    def double_bracket(self, i: int) -> int:
        s, n = self.s, self.n
        start = i
        self.put(i, "[ ")
        i += 2
        while i < n:
            c = s[i]
            if c in _BLANK or c == "\n":
                i += 1
            elif c == "\\" and i + 1 < n and s[i + 1] == "\n":
                i += 2
            elif s.startswith("]]", i) and (i + 2 >= n or s[i + 2] in _META):
                self.put(i, " ]")
                return i + 2
            elif s.startswith("&&", i):
                self.put(i, "-a")
                i += 2
            elif s.startswith("||", i):
                self.put(i, "-o")
                i += 2
            elif c in "()<>;|&":
                self.buf[i] = " "
                i += 1
            else:
                j = self.word(i)
                i = self.regex(j) if s[i:j] == "=~" else max(j, i + 1)
        raise _Unbalanced(start, "[[ ... ]]")

    def regex(self, i: int) -> int:
        """The right side of ``=~``: one word up to a blank at parenthesis depth 0."""
        s, n = self.s, self.n
        while i < n and s[i] in _BLANK:
            i += 1
        depth = 0
        while i < n:
            c = s[i]
            if c in _BLANK + "\n" and depth == 0:
                break
            if c == "\\":
                i += 2
                continue
            if c == "'":
                i = self.squote(i)
                continue
            if c == '"':
                i = self.dquote(i)
                continue
            if c == "$" and s.startswith("$(", i):
                i = self.dollar(i)
                continue
            if s.startswith("]]", i) and depth == 0:
                break
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            if c in "()|&<>;":
                self.buf[i] = "_"
            i += 1
        return i

    # -- case
    def case(self, i: int) -> int:
        s, n = self.s, self.n
        start = i
        self.put(i, "{ : ")
        i += 4
        while i < n and s[i] in _BLANK:
            i += 1
        i = self.word(i)
        while i < n and (s[i] in _BLANK or s[i] == "\n"):
            i += 1
        if not self.word_at(i, "in"):
            raise _Unbalanced(start, "case (no 'in')")
        self.put(i, "; ")
        i += 2
        items: list[tuple[str, int, int]] = []
        while True:
            while i < n and (s[i] in _BLANK or s[i] == "\n" or s[i] == ";"):
                i += 1
            if i < n and s[i] == "#":
                while i < n and s[i] != "\n":
                    i += 1
                continue
            if i >= n:
                raise _Unbalanced(start, "case (no esac)")
            if self.word_at(i, "esac"):
                self.put(i, "}   ")
                if self.depth == 0:
                    self.cases.append(_CaseSpan(start, i + 4, items))
                return i + 4
            p = i
            if s[i] == "(":
                i += 1
            depth = 0
            while i < n:
                c = s[i]
                if c == "\\":
                    i += 2
                elif c == "'":
                    i = self.squote(i)
                elif c == '"':
                    i = self.dquote(i)
                elif c == "\n":
                    raise _Unbalanced(p, "case pattern")
                elif c == "(":
                    depth += 1
                    i += 1
                elif c == ")":
                    i += 1
                    if depth == 0:
                        break
                    depth -= 1
                else:
                    i += 1
            pattern = s[p:i].strip()
            if i - p < 2:
                raise _Unbalanced(p, "case pattern")
            self.blank(p, i)
            self.put(p, ":;")
            body_start = i
            j = self.commands(i, None, in_case=True)
            items.append((pattern, body_start, j))
            if s.startswith(";;&", j):
                self.put(j, "  \n")
                i = j + 3
            elif s.startswith((";;", ";&"), j):
                self.put(j, " \n")
                i = j + 2
            else:
                i = j


def _rewrite(src: str) -> _Rewriter:
    r = _Rewriter(src)
    r.commands(0, None)
    if r.heredocs:  # a here-document opened on the last line
        delim, _, at = r.heredocs[0]
        raise _Unbalanced(at, f"here-document (no {delim!r} line)")
    return r


# ============================================================================================ 2. the model


@dataclass
class _Redir:
    op: str
    target: str
    fd: int | None
    heredoc: str | None
    start: int
    end: int


@dataclass
class _Cmd:
    words: list[str]
    assigns: list[tuple[str, str]]
    redirs: list[_Redir]
    subs: list[_Seq]
    start: int
    end: int
    nested: _Seq | None = None  # bash -c / sh -c SCRIPT
    raw: list[str] = field(default_factory=list)  # the words as written (trap and bash -c bodies)


@dataclass
class _Pipe:
    parts: list[_Node]
    negated: bool
    start: int
    end: int


@dataclass
class _AndOr:
    items: list[_Pipe]
    ops: list[str]
    start: int
    end: int
    local: int = -1  # offset in the text bashlex parsed (positions may be clamped)


@dataclass
class _Seq:
    stmts: list[_AndOr]


@dataclass
class _If:
    branches: list[tuple[_Seq, _Seq]]
    orelse: _Seq | None
    start: int
    end: int


@dataclass
class _Loop:
    kind: str
    cond: _Seq | None
    body: _Seq
    subs: list[_Seq]
    start: int
    end: int


@dataclass
class _Group:
    body: _Seq
    subshell: bool
    subs: list[_Seq]
    start: int
    end: int


@dataclass
class _Case:
    head: _Cmd
    items: list[tuple[str, _Seq]]
    start: int
    end: int


@dataclass
class _Func:
    name: str
    body: _Node
    start: int
    end: int


_Node = _Cmd | _If | _Loop | _Group | _Case | _Func


class _ParseError(Exception):
    pass


_MAX_NESTING = 30


class _Builder:
    """bashlex tree → the model, for one (rewritten) text whose offsets start at ``base``."""

    def __init__(self, src: str, base: int, clamp: tuple[int, int] | None, depth: int = 0) -> None:
        self.src = src
        self.base = base
        self.clamp = clamp
        self.depth = depth
        if depth > _MAX_NESTING:
            raise _ParseError(f"substitutions nested more than {_MAX_NESTING} deep")
        self.rw = _rewrite_or_fail(src)
        self.cases = {c.start: c for c in self.rw.cases}
        self.subs = list(self.rw.subs)
        self.claimed: set[int] = set()

    def pos(self, node: Any) -> tuple[int, int]:
        if self.clamp is not None:
            return self.clamp
        a, b = node.pos
        return self.base + a, self.base + b

    def build(self) -> _Seq:
        if self.rw.words == 0:
            return _Seq([])
        try:
            trees = _bashlex_parse(self.rw.text())
        except _ParserHang:
            raise _ParseError(f"the parser did not finish within {_PARSE_SECONDS:g} s") from None
        except Exception as e:  # bashlex raises ParsingError, NotImplementedError, AttributeError...
            raise _ParseError(_parser_message(e)) from None
        seq = _Seq([])
        try:
            for t in trees:
                seq.stmts.extend(self.seq(t).stmts)
        except (AttributeError, IndexError, KeyError, TypeError) as e:  # a tree shape not modelled
            raise _ParseError(f"parse tree not understood ({type(e).__name__}: {e})") from None
        for k, sub in enumerate(self.subs):  # substitutions no command claimed: walk them anyway
            if k not in self.claimed:
                a, b = self.sub_pos(sub)
                holder = _Cmd([], [], [], [self.sub_seq(sub)], a, b)
                seq.stmts.append(_AndOr([_Pipe([holder], False, a, b)], [], a, b))
        return seq

    def sub_pos(self, sub: _Sub) -> tuple[int, int]:
        if self.clamp is not None:
            return self.clamp
        return self.base + sub.start, self.base + sub.end

    def sub_seq(self, sub: _Sub) -> _Seq:
        if self.clamp is not None:
            clamp: tuple[int, int] | None = self.clamp
        elif sub.exact:
            clamp = None
        else:
            clamp = (self.base + sub.start, self.base + sub.end)
        return _Builder(sub.inner, self.base + sub.inner_offset, clamp, self.depth + 1).build()

    def claim(self, a: int, b: int) -> list[_Seq]:
        """The substitutions inside the local span [a, b), parsed; each is claimed once."""
        out = []
        for k, sub in enumerate(self.subs):
            if k not in self.claimed and a <= sub.start and sub.end <= b:
                self.claimed.add(k)
                out.append(self.sub_seq(sub))
        return out

    # -- structure
    def seq(self, node: Any) -> _Seq:
        kind = node.kind
        if kind == "list":
            out = _Seq([])
            items: list[_Pipe] = []
            ops: list[str] = []
            local = -1
            for part in node.parts:
                if part.kind == "operator":
                    if part.op in ("&&", "||"):
                        ops.append(part.op)
                    else:
                        if items:
                            out.stmts.append(self.andor(items, ops, local))
                        items, ops = [], []
                else:
                    if not items:
                        local = part.pos[0]
                    items.append(self.pipe(part))
            if items:
                out.stmts.append(self.andor(items, ops, local))
            return out
        p = self.pipe(node)
        return _Seq([self.andor([p], [], node.pos[0])])

    def andor(self, items: list[_Pipe], ops: list[str], local: int) -> _AndOr:
        return _AndOr(items, ops[: len(items) - 1], items[0].start, items[-1].end, local)

    def pipe(self, node: Any) -> _Pipe:
        start, end = self.pos(node)
        if node.kind == "pipeline":
            negated = False
            parts: list[_Node] = []
            for part in node.parts:
                if part.kind == "reservedword" and part.word == "!":
                    negated = True
                elif part.kind == "pipe":
                    continue
                else:
                    parts.append(self.node(part))
            return _Pipe(parts, negated, start, end)
        if node.kind == "list":  # a list where a command was expected (bashlex nesting quirk)
            seq = self.seq(node)
            return _Pipe([_Group(seq, False, [], start, end)], False, start, end)
        return _Pipe([self.node(node)], False, start, end)

    def node(self, node: Any) -> _Node:
        start, end = self.pos(node)
        kind = node.kind
        if kind == "command":
            return self.command(node)
        if kind == "function":
            return _Func(node.name.word, self.node(node.body), start, end)
        if kind == "compound":
            inner = [p for p in node.list if p.kind != "reservedword"]
            opener = node.list[0].word if node.list and node.list[0].kind == "reservedword" else ""
            subs = [s for r in getattr(node, "redirects", []) or [] for s in self.claim(*r.pos)]
            if len(inner) == 1 and inner[0].kind in ("if", "for", "while", "until"):
                built = self.node(inner[0])
                if isinstance(built, _Loop):
                    built.subs.extend(subs)
                return built
            body = _Seq([])
            for part in inner:
                body.stmts.extend(self.seq(part).stmts)
            local_start = node.pos[0]
            if opener == "{" and local_start in self.cases:
                return self.case(self.cases[local_start], body, start, end)
            return _Group(body, opener == "(", subs, start, end)
        if kind == "if":
            branches: list[tuple[_Seq, _Seq]] = []
            orelse: _Seq | None = None
            parts = list(node.parts)
            k = 0
            while k < len(parts):
                p = parts[k]
                if p.kind == "reservedword" and p.word in ("if", "elif"):
                    cond = self.seq(parts[k + 1])
                    body = self.seq(parts[k + 3])
                    branches.append((cond, body))
                    k += 4
                elif p.kind == "reservedword" and p.word == "else":
                    orelse = self.seq(parts[k + 1])
                    k += 2
                else:
                    k += 1
            return _If(branches, orelse, start, end)
        if kind in ("while", "until"):
            parts = [p for p in node.parts if p.kind != "reservedword"]
            return _Loop(kind, self.seq(parts[0]), self.seq(parts[1]), [], start, end)
        if kind == "for":
            words = [p for p in node.parts if p.kind == "word"]
            subs = [s for w in words for s in self.claim(*w.pos)]
            body_nodes = [p for p in node.parts if p.kind not in ("reservedword", "word")]
            body = self.seq(body_nodes[-1]) if body_nodes else _Seq([])
            return _Loop("for", None, body, subs, start, end)
        if kind in ("pipeline", "list"):
            return _Group(self.seq(node), False, [], start, end)
        raise _ParseError(f"unsupported construct {kind!r}")

    def case(self, span: _CaseSpan, body: _Seq, start: int, end: int) -> _Case:
        head: _Cmd | None = None
        items: list[tuple[str, _Seq]] = [(pat, _Seq([])) for pat, _, _ in span.items]
        for stmt in body.stmts:
            if head is None:
                first = stmt.items[0].parts[0] if stmt.items and stmt.items[0].parts else None
                if isinstance(first, _Cmd):
                    head = first
                    continue
            if _is_colon(stmt):
                continue
            for k, (_, b0, b1) in enumerate(span.items):
                if b0 <= stmt.local < b1:
                    items[k][1].stmts.append(stmt)
                    break
        return _Case(head or _Cmd([], [], [], [], start, start), items, start, end)

    def original(self, word: Any) -> str:
        """A word as the script wrote it, unquoted (the rewrite may have changed quoted text)."""
        a, b = word.pos
        try:
            parts = shlex.split(self.src[a:b])
        except ValueError:
            return str(word.word)
        return parts[0] if len(parts) == 1 else str(word.word)

    def command(self, node: Any) -> _Cmd:
        start, end = self.pos(node)
        words: list[str] = []
        assigns: list[tuple[str, str]] = []
        redirs: list[_Redir] = []
        raw: list[str] = []
        for part in node.parts:
            if part.kind == "word":
                words.append(part.word)
                raw.append(self.original(part))
            elif part.kind == "assignment" and not words:
                name, _, value = part.word.partition("=")
                assigns.append((name.rstrip("+"), value))
            elif part.kind == "assignment":
                words.append(part.word)
                raw.append(self.original(part))
            elif part.kind == "redirect":
                target = part.output
                heredoc = getattr(part, "heredoc", None)
                rs, re_ = self.pos(part)
                redirs.append(
                    _Redir(
                        op=part.type,
                        target=target.word if hasattr(target, "word") else str(target),
                        fd=part.input if isinstance(getattr(part, "input", None), int) else None,
                        heredoc=heredoc.value if heredoc is not None else None,
                        start=rs,
                        end=re_,
                    )
                )
        subs = self.claim(*node.pos)
        cmd = _Cmd(words, assigns, redirs, subs, start, end, raw=raw)
        eff = _effective(raw)
        if len(eff) >= 3 and posixpath.basename(eff[0]) in ("bash", "sh") and eff[1] == "-c":
            try:
                cmd.nested = _Builder(eff[2], start, (start, end), self.depth + 1).build()
            except _ParseError:
                cmd.nested = None
        return cmd


_PARSE_SECONDS = 10.0


class _ParserHang(Exception):
    """bashlex ran past its deadline (it loops forever on some malformed input)."""


def _bashlex_parse(text: str) -> Any:
    """``bashlex.parse`` under a deadline, when a timer signal can be used (main thread, POSIX)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return bashlex.parse(text)

    def expired(_signum: int, _frame: Any) -> None:
        raise _ParserHang

    previous = signal.signal(signal.SIGALRM, expired)
    started = time.monotonic()
    old_delay, _ = signal.setitimer(signal.ITIMER_REAL, _PARSE_SECONDS)
    try:
        return bashlex.parse(text)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if old_delay:  # someone else's timer was running: give it back what is left of it
            left = old_delay - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(0.001, left))


def _is_colon(stmt: _AndOr) -> bool:
    """The ``:`` a rewritten case pattern leaves behind."""
    if len(stmt.items) != 1 or len(stmt.items[0].parts) != 1:
        return False
    c = stmt.items[0].parts[0]
    return isinstance(c, _Cmd) and c.words == [":"] and not c.redirs and not c.assigns


def _rewrite_or_fail(src: str) -> _Rewriter:
    # The raw text is never handed to bashlex here: on some unterminated constructs it loops forever.
    try:
        return _rewrite(src)
    except _Unbalanced as e:
        raise _ParseError(f"unterminated {e.what} (line {_line(src, e.pos)})") from None
    except IndexError:
        raise _ParseError("unterminated construct at the end of the script") from None


def _parser_message(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    if isinstance(e, NotImplementedError):
        text = f"construct not supported by the parser ({text})"
    elif not isinstance(e, bashlex.errors.ParsingError):
        text = f"parser failure ({type(e).__name__}: {text})"
    return text[:300]


def _parse(text: str) -> _Seq:
    return _Builder(text, 0, None).build()


# ========================================================================================= 3. vocabulary

_WRAPPERS = {
    "sudo",
    "nohup",
    "command",
    "exec",
    "builtin",
    "nice",
    "stdbuf",
    "xvfb-run",
    "chronic",
    "unbuffer",
}
_PY = re.compile(r"^python(?:\d(?:\.\d+)?)?$")
_COUNT = re.compile(
    r"(?i)(passed|\bpass(?:es|ing)?\b|tests?[ _-]?run|\btests_?ran\b|\bran\b|collected|executed|"
    r"num_?tests|n_?tests|test_?count|tests?_?total|\btotal\b|\btests? successful)"
)
_NOT_COUNT = re.compile(r"(?i)(fail|error|skip|broken)")
_REWARD = re.compile(r"reward\.(?:txt|json)")
_VAR = re.compile(
    r"\$(?:\{([#!]?)([A-Za-z_][A-Za-z0-9_]*|[?#@*0-9])(?:\[[^\]]*\])?[^}]*\}|([A-Za-z_][A-Za-z0-9_]*|[?#@*0-9]))"
)
_READS_ONLY = {
    *("echo", "printf", "cat", "tee", "[", "test", "rm", "mkdir", "touch", "ls", "grep", "chmod", "chown"),
    *("stat", "wc", "head", "tail", "diff", "cmp", "jq", "awk", "cut", "file", "realpath", "dirname"),
}
_TEXT_TOOLS = {
    *("echo", "printf", "true", ":", "yes", "seq", "cat", "grep", "egrep", "fgrep", "sed", "awk", "cut"),
    *("tr", "sort", "uniq", "head", "tail", "wc", "tac", "tee"),
}
_FAIL_IF_NO_TESTS = re.compile(
    r"(?i)^(--fail-if-no-tests|-DfailIfNoTests=true|-Dsurefire\.failIfNoSpecifiedTests=true)$"
)


@dataclass(frozen=True)
class _Runner:
    name: str
    zero: str  # exit status when no test runs: "fails" (safe), "partly" (pytest), "passes"
    counts: bool  # a test runner (not a compiler): its exit status may stand for "tests passed"


def _effective(words: Sequence[str]) -> list[str]:
    """The command words with wrappers (sudo, env, timeout, uv run, ...) stripped."""
    w = list(words)
    while w:
        head = posixpath.basename(w[0])
        if head in _WRAPPERS:
            w = w[1:]
            while w and w[0].startswith("-"):
                w = w[2:] if w[0] in ("-n", "-u", "-g", "-s") and head in ("sudo", "nice") else w[1:]
        elif head == "env":
            w = w[1:]
            while w and (w[0].startswith("-") or "=" in w[0]):
                w = w[1:]
        elif head == "timeout":
            w = w[1:]
            while w and w[0].startswith("-"):
                w = w[2:] if w[0] in ("-s", "-k", "--signal", "--kill-after") else w[1:]
            w = w[1:]  # the duration
        elif head in ("uv", "poetry", "pipenv", "pdm", "hatch", "rye") and len(w) > 1 and w[1] == "run":
            w = w[2:]
            while w and w[0].startswith("-"):
                w = w[2:] if w[0] in ("--with", "--python", "-p", "--env-file", "--project") else w[1:]
        elif head == "uvx":
            w = w[1:]
            while w and w[0].startswith("-"):
                w = w[2:] if w[0] in ("--with", "--from", "--python", "-p") else w[1:]
            if w:
                w = [w[0].split("@", 1)[0].split("==", 1)[0], *w[1:]]
        else:
            break
    return w


def _runner(words: Sequence[str]) -> _Runner | None:
    w = _effective(words)
    if not w:
        return None
    head = posixpath.basename(w[0])
    args = w[1:]
    unless = "fails" if any(_FAIL_IF_NO_TESTS.match(a) for a in args) else "passes"
    if head in ("pytest", "py.test"):
        return _Runner("pytest", "partly", True)
    if _PY.match(head):
        k = 0
        while k < len(args) and args[k].startswith("-") and args[k] != "-m":
            k += 1
        if k + 1 < len(args) and args[k] == "-m":
            mod = args[k + 1]
            if mod == "pytest":
                return _Runner("pytest", "partly", True)
            if mod == "unittest":
                return _Runner("unittest", unless, True)
            if mod == "py_compile" or mod == "compileall":
                return _Runner(f"python -m {mod}", "fails", False)
        return None
    if head in ("mvn", "mvnw"):
        tests = any(g in ("test", "verify", "install", "package", "integration-test") for g in args)
        return _Runner("mvn", unless, tests)
    if head in ("gradle", "gradlew"):
        tests = any(g.split(":")[-1] in ("test", "check", "build") for g in args)
        return _Runner("gradle", unless, tests)
    if head == "go" and args[:1] == ["test"]:
        return _Runner("go test", "passes", True)
    if head == "cargo" and args[:1] in (["test"], ["nextest"]):
        return _Runner("cargo " + args[0], "fails" if args[0] == "nextest" else "passes", True)
    if head in ("npm", "yarn", "pnpm") and (args[:1] in (["test"], ["t"]) or args[:2] == ["run", "test"]):
        return _Runner(f"{head} test", "passes", True)
    if head == "npx" and args and args[0] in ("jest", "vitest", "mocha"):
        head, args = args[0], args[1:]
    if head in ("jest", "vitest"):
        return _Runner(head, "passes" if "--passWithNoTests" in args else "fails", True)
    if head == "mocha":
        return _Runner("mocha", "passes", True)
    if head == "node" and "--test" in args:
        return _Runner("node --test", "passes", True)
    if head == "java":
        joined = " ".join(args)
        if (
            "ConsoleLauncher" in joined
            or "junit-platform-console" in joined
            or any(a in ("--scan-class-path", "--scan-classpath", "--select-class") for a in args)
        ):
            return _Runner("junit console launcher", unless, True)
        if "org.junit.runner.JUnitCore" in joined:
            return _Runner("JUnitCore", "passes", True)
        return None
    if head == "javac":
        return _Runner("javac", "fails", False)
    return None


def _is_test_command(words: Sequence[str]) -> bool:
    """A runner or compiler, or an interpreter run on a file under /tests."""
    if _runner(words) is not None:
        return True
    w = _effective(words)
    if not w:
        return False
    head = posixpath.basename(w[0])
    if _PY.match(head) or head in ("node", "bash", "sh", "ruby", "java", "go", "deno", "bun"):
        return any(a.startswith(("/tests/", "tests/", "$TESTS", "${TESTS")) for a in w[1:])
    return False


def _network(words: Sequence[str]) -> str | None:
    w = _effective(list(words)) if words and posixpath.basename(words[0]) != "uvx" else list(words)
    if not w:
        return None
    head = posixpath.basename(w[0])
    args = w[1:]
    if head == "uvx":
        return "runs uvx, which downloads the tool"
    if head in ("pip", "pip3") or (_PY.match(head) and args[:2] == ["-m", "pip"]):
        rest = args[2:] if _PY.match(head) else args
        if rest[:1] == ["install"] and "--no-index" not in rest:
            return "pip install"
    if head == "uv" and (
        args[:2] == ["pip", "install"] or args[:2] == ["tool", "install"] or args[:1] == ["add"]
    ):
        return "uv " + " ".join(args[:2])
    if (
        head in ("npm", "pnpm")
        and args[:1] in (["install"], ["i"], ["ci"], ["add"])
        and "--offline" not in args
    ):
        return f"{head} {args[0]}"
    if head == "yarn" and (args[:1] in (["install"], ["add"]) or not args) and "--offline" not in args:
        return "yarn install"
    if head in ("apt-get", "apt", "yum", "dnf", "microdnf") and "install" in args:
        return f"{head} install"
    if head == "apk" and args[:1] == ["add"]:
        return "apk add"
    if head in ("gem", "cargo") and args[:1] == ["install"]:
        return f"{head} install"
    if head == "go" and args[:1] in (["install"], ["get"]):
        return f"go {args[0]}"
    return None


def _vars_in(text: str) -> list[str]:
    return [m.group(2) or m.group(3) for m in _VAR.finditer(text)]


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, max(0, offset)) + 1


def _evidence(text: str, start: int, end: int) -> str:
    chunk = text[start:end].strip()
    first = chunk.split("\n", 1)[0].strip()
    if len(first) < len(chunk):
        first += " ..."
    return first[:200]


# ============================================================================================ 4. analysis


@dataclass(frozen=True)
class _Status:
    """Where a status (``$?``, a condition, a variable) comes from."""

    runners: frozenset[_Runner] = frozenset()
    count: bool = False
    # Runners upstream of a pipe without pipefail: their status is lost, but their output (zero tests
    # included) is what the rest of the pipeline saw; zero-tests-accepted still counts them.
    masked: frozenset[_Runner] = frozenset()

    def __or__(self, other: _Status) -> _Status:
        return _Status(self.runners | other.runners, self.count or other.count, self.masked | other.masked)


_NONE = _Status()


@dataclass
class _Var:
    literal: str | None = None  # the one literal value it holds, when there is exactly one
    values: frozenset[str] | None = None  # the literal values it may hold (None: not only literals)
    status: _Status = _NONE  # what its value depends on
    reward_path: bool = False


@dataclass(frozen=True)
class _Value:
    kind: str  # "num", "status" ($?), "choice" (a variable holding one of some numbers), "unknown", "empty"
    num: float = 0.0  # the number; for "choice" the largest
    status: _Status = _NONE  # for "status" and "choice": what decides the value

    @property
    def positive(self) -> bool:
        """Whether the value can be positive."""
        return (self.kind in ("num", "choice") and self.num > 0) or self.kind == "status"

    @property
    def starts_positive(self) -> bool:
        """Whether the value is positive by itself (a number), or an exit status ($? is 1 on failure)."""
        return (self.kind == "num" and self.num > 0) or self.kind == "status"

    @property
    def zero(self) -> bool:
        return self.kind in ("num", "empty") and self.num <= 0


@dataclass
class _Write:
    order: int
    value: _Value
    guards: tuple[_Status, ...]
    conditional: bool
    in_trap: bool
    start: int
    end: int
    call: int | None = None  # where the function holding the write was called from


@dataclass
class _RunnerUse:
    order: int
    runner: _Runner
    consumed: bool
    start: int
    end: int
    masked_reported: bool = False


@dataclass
class _State:
    errexit: bool = False
    pipefail: bool = False


@dataclass
class _Analyzer:
    text: str
    findings: list[Finding] = field(default_factory=list)
    state: _State = field(default_factory=_State)
    vars: dict[str, _Var] = field(default_factory=dict)
    funcs: dict[str, _Node] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    guards: list[_Status] = field(default_factory=list)
    cond_depth: int = 0
    prev: _Status = _NONE
    order: int = 0
    writes: list[_Write] = field(default_factory=list)
    tests: list[int] = field(default_factory=list)
    uses: list[_RunnerUse] = field(default_factory=list)
    traps: list[tuple[_Cmd, str]] = field(default_factory=list)
    exit_status: _Status = _NONE
    in_trap: bool = False
    next_pipestatus: bool = False
    seen: set[tuple[str, int, int]] = field(default_factory=set)
    call_sites: list[int] = field(default_factory=list)

    # -- findings
    def add(self, code: str, severity: Severity, message: str, start: int, end: int) -> None:
        key = (code, start, end)
        if key in self.seen:
            return
        self.seen.add(key)
        self.findings.append(
            Finding(
                code=code,
                message=message,
                line=_line(self.text, start),
                evidence=_evidence(self.text, start, end),
                severity=severity,
            )
        )

    def tick(self) -> int:
        self.order += 1
        return self.order

    # -- status helpers
    def refs(self, words: Sequence[str]) -> _Status:
        """What the words say about runners and counts: count vocabulary, and the variables they read."""
        st = _NONE
        for w in words:
            if _COUNT.search(w):
                st = st | _Status(count=True)
            for name in _vars_in(w):
                if name == "?":
                    st = st | self.prev
                elif name in self.vars:
                    st = st | self.vars[name].status
        return st

    def cmd_refs(self, cmd: _Cmd) -> _Status:
        """:meth:`refs` of a command's words, assignments and the commands of its substitutions."""
        st = self.refs(cmd.words + [v for _, v in cmd.assigns])
        for sub in cmd.subs:
            for inner in _all_cmds(sub):
                st = st | _Status(count=self.refs(inner.words).count)
        return st

    def expand(self, words: Sequence[str]) -> list[str]:
        """The words with variables of a known literal value substituted."""

        def one(m: re.Match[str]) -> str:
            var = self.vars.get(m.group(2) or m.group(3) or "")
            return var.literal if var is not None and var.literal is not None else m.group(0)

        return [_VAR.sub(one, w) if "$" in w else w for w in words]

    def reads_status(self, stmt: _AndOr | None) -> tuple[bool, bool]:
        """Whether the statement reads ``$?`` / ``PIPESTATUS`` first thing."""
        cmd = _first_cmd(stmt) if stmt is not None else None
        if cmd is None:
            return False, False
        words = cmd.words + [v for _, v in cmd.assigns]
        q = any("?" in _vars_in(w) for w in words)
        ps = any("PIPESTATUS" in w for w in words)
        return q or ps, ps

    # -- walking
    def seq(self, s: _Seq, consumed_tail: bool, pipestatus_tail: bool = False) -> _Status:
        pushed = 0
        st = _NONE
        for i, stmt in enumerate(s.stmts):
            if i + 1 < len(s.stmts):
                consumed, ps = self.reads_status(s.stmts[i + 1])
            else:
                consumed, ps = consumed_tail, pipestatus_tail
            self.next_pipestatus = ps
            st = self.andor(stmt, consumed)
            self.prev = st
            guard = self.early_exit(stmt)
            if guard is not None:
                self.guards.append(guard)
                pushed += 1
        if pushed:
            del self.guards[-pushed:]
        return st

    def early_exit(self, stmt: _AndOr) -> _Status | None:
        """A guard for what follows: ``X || exit``, ``if X; then exit; fi``, or ``set -e``."""
        items = stmt.items
        if len(items) > 1 and self.exits(items[-1]):
            g = _NONE
            for p in items[:-1]:
                g = g | self.cond_status(p)
            return g
        if len(items) == 1 and len(items[0].parts) == 1:
            node = items[0].parts[0]
            if isinstance(node, _If) and (
                any(self.seq_exits(body) for _, body in node.branches)
                or (node.orelse is not None and self.seq_exits(node.orelse))
            ):
                g = _NONE
                for cond, _ in node.branches:
                    for st in cond.stmts:
                        for p in st.items:
                            g = g | self.cond_status(p)
                return g
        if self.state.errexit and not items[-1].negated:
            g = self.cond_status(items[-1])
            self.exit_status = self.exit_status | g  # set -e: this failure would end the script
            return g
        return None

    def exits(self, p: _Pipe, depth: int = 0) -> bool:
        """Whether a pipeline surely ends the script: exit/return, or a group or function that does."""
        if len(p.parts) != 1 or depth > 5:
            return False
        node = p.parts[0]
        if isinstance(node, _Cmd):
            name = node.words[0] if node.words else ""
            if name in ("exit", "return"):
                return True
            body = self.funcs.get(name)
            return isinstance(body, _Group) and not body.subshell and self.seq_exits(body.body, depth + 1)
        if isinstance(node, _Group):  # exit in a ( subshell ) ends only the subshell
            return not node.subshell and self.seq_exits(node.body, depth + 1)
        return False

    def seq_exits(self, s: _Seq, depth: int = 0) -> bool:
        return any(len(st.items) == 1 and self.exits(st.items[0], depth) for st in s.stmts)

    def cond_status(self, p: _Pipe) -> _Status:
        """What a pipeline used as a condition depends on (runners, counts), without walking it again."""
        st = _NONE
        parts = p.parts if self.state.pipefail else p.parts[-1:]
        for node in p.parts:
            for cmd in _cmds(node):
                st = st | _Status(count=self.cmd_refs(cmd).count)
        for node in parts:
            st = st | self.static_status(node)
        return st

    def static_status(self, node: _Node) -> _Status:
        st = _NONE
        for cmd in _cmds(node, status_only=True):
            r = _runner(self.expand(cmd.words))
            if r is not None:
                st = st | _Status(frozenset({r}))
            st = st | self.refs(cmd.words + [v for _, v in cmd.assigns])
            if not cmd.words:
                for sub in cmd.subs:
                    for inner in _last_cmds(sub):
                        ri = _runner(self.expand(inner.words))
                        if ri is not None:
                            st = st | _Status(frozenset({ri}))
            name = cmd.words[0] if cmd.words else ""
            if name in self.funcs and name not in self.calls:
                self.calls.append(name)
                st = st | self.static_status(self.funcs[name])
                self.calls.pop()
        return st

    def andor(self, stmt: _AndOr, consumed: bool) -> _Status:
        st = _NONE
        pushed = 0
        pipestatus = self.next_pipestatus
        # "X || true" throws X's status away: X is not checked
        swallowed = len(stmt.items) - 2 if stmt.ops[-1:] == ["||"] and _is_true(stmt.items[-1]) else -1
        for k, p in enumerate(stmt.items):
            last = k == len(stmt.items) - 1
            if k > 0:
                self.cond_depth += 1
            item_consumed = (consumed or self.state.errexit) if last else k != swallowed
            ps = pipestatus if last else False
            pst = self.pipe(p, item_consumed, ps)
            st = st | pst
            self.prev = pst
            if not last:
                self.guards.append(self.cond_status(p) | pst)
                pushed += 1
        self.cond_depth -= len(stmt.items) - 1
        if pushed:
            del self.guards[-pushed:]
        return st

    def pipe(self, p: _Pipe, consumed: bool, pipestatus: bool) -> _Status:
        pipefail = self.state.pipefail or pipestatus
        statuses: list[_Status] = []
        uses_before = len(self.uses)
        for k, node in enumerate(p.parts):
            last = k == len(p.parts) - 1
            node_consumed = consumed if (last or pipefail) else False
            statuses.append(self.node(node, node_consumed, in_pipe=len(p.parts) > 1, pipe=p, index=k))
        if len(p.parts) > 1:
            self.check_pipe(p, consumed, pipefail, uses_before)
        if pipefail:
            out = _NONE
            for s in statuses:
                out = out | s
            return out
        if not statuses:
            return _NONE
        hidden = frozenset(r for s in statuses[:-1] for r in s.runners | s.masked)
        return statuses[-1] | _Status(masked=hidden)

    def check_pipe(self, p: _Pipe, consumed: bool, pipefail: bool, uses_before: int) -> None:
        if pipefail:
            return
        upstream = p.parts[:-1]
        if all(_text_tool(n) for n in p.parts):
            return  # text tools only: an upstream failure leaves empty text, which the last one sees
        last = p.parts[-1]
        is_tee = isinstance(last, _Cmd) and _head(last) == "tee"
        found = [
            r for n in upstream for c in _cmds(n, status_only=True) if (r := _runner(self.expand(c.words)))
        ]
        runner_up = bool(found)
        names = sorted({r.name for r in found})
        what = f" ({', '.join(names)})" if names else ""
        if is_tee:
            sev = Severity.HIGH if (runner_up or consumed) else Severity.MEDIUM
            self.add(
                "tee-masks-exit-code",
                sev,
                f"pipeline ends in tee without set -o pipefail: the exit status is tee's, the real "
                f"command's{what} is lost",
                p.start,
                p.end,
            )
        elif consumed:
            sev = Severity.HIGH if runner_up else Severity.MEDIUM
            self.add(
                "pipe-without-pipefail",
                sev,
                f"the status of this pipeline is used but set -o pipefail is off: only the last command's "
                f"status counts, a failure before it{what} is hidden",
                p.start,
                p.end,
            )
        else:
            return
        for use in self.uses[uses_before:]:
            if p.start <= use.start and use.end <= p.end:
                use.masked_reported = True

    def node(
        self, node: _Node, consumed: bool, *, in_pipe: bool = False, pipe: _Pipe | None = None, index: int = 0
    ) -> _Status:
        if isinstance(node, _Cmd):
            return self.cmd(node, consumed, in_pipe=in_pipe, pipe=pipe, index=index)
        if isinstance(node, _Func):
            self.funcs[node.name] = node.body
            return _NONE
        if isinstance(node, _If):
            st = _NONE
            pushed = 0
            for cond, body in node.branches:
                cst = self.seq(cond, True)
                g = _NONE
                for stmt in cond.stmts:
                    for p in stmt.items:
                        g = g | self.cond_status(p)
                self.guards.append(g | cst)
                pushed += 1
                self.cond_depth += 1
                st = st | self.seq(body, consumed)
                self.cond_depth -= 1
            if node.orelse is not None:
                self.cond_depth += 1
                st = st | self.seq(node.orelse, consumed)
                self.cond_depth -= 1
            del self.guards[-pushed:]
            return st
        if isinstance(node, _Loop):
            for sub in node.subs:
                self.seq(sub, False)
            self.cond_depth += 1
            pushed = 0
            if node.cond is not None:
                cst = self.seq(node.cond, True)
                self.guards.append(cst)
                pushed = 1
            st = self.seq(node.body, consumed)
            if pushed:
                self.guards.pop()
            self.cond_depth -= 1
            return st
        if isinstance(node, _Group):
            for sub in node.subs:
                self.seq(sub, False)
            saved = _State(self.state.errexit, self.state.pipefail)
            st = self.seq(node.body, consumed)
            if node.subshell:
                self.state = saved
            return st
        if isinstance(node, _Case):
            head = self.cmd(node.head, False)
            subject = self.refs(node.head.words[1:]) | head
            self.guards.append(subject)
            self.cond_depth += 1
            st = _NONE
            for _, body in node.items:
                st = st | self.seq(body, consumed)
            self.cond_depth -= 1
            self.guards.pop()
            return st
        raise AssertionError(f"unknown node {node!r}")  # pragma: no cover

    def cmd(
        self, c: _Cmd, consumed: bool, *, in_pipe: bool = False, pipe: _Pipe | None = None, index: int = 0
    ) -> _Status:
        # command substitutions run first; an assignment-only command has the last one's status
        sub_status = _NONE
        only_assign = not c.words
        for sub in c.subs:
            sub_status = self.seq(sub, consumed and only_assign)
        words = c.words
        head = posixpath.basename(words[0]) if words else ""
        expanded = self.expand(words)
        eff = _effective(expanded)
        ehead = posixpath.basename(eff[0]) if eff else ""
        status = _NONE
        # assignments
        if only_assign:
            status = sub_status
            for name, value in c.assigns:
                self.assign(name, value, c, sub_status)
        elif head in ("export", "local", "declare", "typeset", "readonly"):
            for w in words[1:]:
                if "=" in w and not w.startswith("-"):
                    name, _, value = w.partition("=")
                    self.assign(name.rstrip("+"), value, c, sub_status)
        # options
        if head == "set":
            self.set_options(words[1:])
        # functions
        if head in self.funcs and head not in self.calls:
            self.calls.append(head)
            self.call_sites.append(c.start)
            status = self.node(self.funcs[head], consumed)
            self.call_sites.pop()
            self.calls.pop()
        # traps
        if head == "trap":
            self.trap(c)
        # exit
        if head == "exit" and not self.in_trap:
            arg = words[1] if len(words) > 1 else "$?"
            self.exit_status = self.exit_status | self.refs([arg]) if "$" in arg else self.exit_status
        # nested bash -c
        if c.nested is not None:
            saved = _State(self.state.errexit, self.state.pipefail)
            self.state = _State()
            status = status | self.seq(c.nested, consumed)
            self.state = saved
        # test runners and test commands
        runner = _runner(expanded)
        if runner is not None:
            status = status | _Status(frozenset({runner}))
            self.uses.append(_RunnerUse(self.tick(), runner, consumed, c.start, c.end))
        if words and _is_test_command(expanded):
            self.tests.append(self.tick())
        # network
        why = _network(expanded)
        shells = ("sh", "bash", "dash", "zsh")
        if why is None and ehead in shells and any(_head_is(sub, ("curl", "wget")) for sub in c.subs):
            why = "runs a downloaded script"
        if (
            why is None
            and in_pipe
            and pipe is not None
            and (ehead in shells or _PY.match(ehead))
            and any(isinstance(n, _Cmd) and _head(n) in ("curl", "wget") for n in pipe.parts[:index])
        ):
            why = "pipes a download into a shell"
        if why is not None:
            self.add(
                "network-install-at-verify-time",
                Severity.MEDIUM,
                f"{why} at verify time: the verifier runs offline, so this fails or changes between runs",
                c.start,
                c.end,
            )
        # reward writes
        self.reward_writes(c, pipe, index)
        if words:
            status = status | self.refs(words[1:]) if head in ("[", "test") else status
        return status

    def assign(self, name: str, value: str, c: _Cmd, sub_status: _Status) -> None:
        var = _Var()
        var.reward_path = bool(_REWARD.search(self.expand([value])[0]))
        guard = _NONE
        for g in self.guards:
            guard = guard | g
        count_name = bool(_COUNT.search(name)) and not _NOT_COUNT.search(name)
        if "$" not in value and "`" not in value and not c.subs:
            if self.cond_depth:  # conditionally assigned: the old value stays possible
                old = self.vars.get(name)
                before = old.values if old is not None else frozenset({""})
                var.values = before | {value} if before is not None else None
                var.status = guard | (old.status if old is not None else _NONE)
            else:
                var.values = frozenset({value})
            if var.values is not None and len(var.values) == 1:
                var.literal = next(iter(var.values))
        else:
            var.status = self.refs([value]) | sub_status | (guard if self.cond_depth else _NONE)
            for sub in c.subs:
                for cmd in _all_cmds(sub):
                    if self.refs(cmd.words).count:
                        var.status = var.status | _Status(count=True)
        if count_name:
            var.status = var.status | _Status(count=True)
        elif _NOT_COUNT.search(name):
            var.status = _Status(var.status.runners, False)
        self.vars[name] = var

    def set_options(self, args: Sequence[str]) -> None:
        k = 0
        while k < len(args):
            a = args[k]
            if a == "--":
                break
            if a in ("-o", "+o") and k + 1 < len(args):
                self.set_named(args[k + 1], a[0] == "-")
                k += 2
                continue
            if len(a) > 1 and a[0] in "-+" and a[1:].isalpha():
                on = a[0] == "-"
                if "e" in a[1:]:
                    self.state.errexit = on
                if a.endswith("o") and k + 1 < len(args):
                    self.set_named(args[k + 1], on)
                    k += 1
            k += 1

    def set_named(self, name: str, on: bool) -> None:
        if name == "pipefail":
            self.state.pipefail = on
        elif name == "errexit":
            self.state.errexit = on

    def trap(self, c: _Cmd) -> None:
        args = (c.raw if len(c.raw) == len(c.words) else c.words)[1:]
        if args and args[0] == "--":
            args = args[1:]
        if not args or args[0].startswith("-") or len(args) < 2:
            return
        self.traps.append((c, args[0]))

    # -- reward writes
    def reward_path(self, target: str) -> bool:
        if _REWARD.search(self.expand([target])[0]):
            return True
        return any(n in self.vars and self.vars[n].reward_path for n in _vars_in(target))

    def reward_writes(self, c: _Cmd, pipe: _Pipe | None, index: int) -> None:
        targets = [r for r in c.redirs if r.op in (">", ">>", ">|", "&>", "&>>") and r.fd in (None, 1)]
        value: _Value | None = None
        for r in targets:
            if self.reward_path(r.target):
                value = self.value_of(c)
                self.record_write(value, r.start, r.end, c)
        eff = _effective(c.words)
        head = posixpath.basename(eff[0]) if eff else ""
        if head == "tee" and any(self.reward_path(a) for a in eff[1:] if not a.startswith("-")):
            src = pipe.parts[index - 1] if pipe is not None and index > 0 else None
            value = self.value_of(src) if isinstance(src, _Cmd) else _Value("unknown")
            self.record_write(value, c.start, c.end, c)
        elif (head in ("cp", "mv", "install", "ln") and eff[1:] and self.reward_path(eff[-1])) or (
            head not in _READS_ONLY
            and not targets
            and any(self.reward_path(a) for a in eff[1:])
            and head not in self.funcs
            and not (head == "sed" and not any(a.startswith("-i") for a in eff[1:]))
        ):
            self.record_write(_Value("unknown"), c.start, c.end, c)  # cp, python -c "...", sed -i ...
        elif head == "touch" and any(self.reward_path(a) for a in eff[1:]):
            self.record_write(_Value("empty"), c.start, c.end, c)
        elif head != "cat" and any(r.heredoc is not None and self.reward_path(r.heredoc) for r in c.redirs):
            self.record_write(_Value("unknown"), c.start, c.end, c)  # e.g. python3 - <<EOF ... reward.txt

    def record_write(self, value: _Value, start: int, end: int, c: _Cmd) -> None:
        guards = tuple(self.guards)
        if value.kind in ("status", "choice"):
            guards = (*guards, value.status)
        call = self.call_sites[0] if self.call_sites else None
        self.writes.append(
            _Write(self.tick(), value, guards, bool(self.cond_depth), self.in_trap, c.start, c.end, call)
        )

    def value_of(self, c: _Cmd) -> _Value:
        eff = _effective(c.words)
        head = posixpath.basename(eff[0]) if eff else ""
        if head == "echo":
            args = list(eff[1:])
            while args and re.fullmatch(r"-[neE]+", args[0]):
                args = args[1:]
            return self.parse_value(" ".join(args))
        if head == "printf":
            args = list(eff[1:])
            if args and args[0] == "--":
                args = args[1:]
            if not args:
                return _Value("empty")
            fmt = args[0]
            if "%" in fmt and len(args) > 1:
                return self.parse_value(args[1])
            return self.parse_value(fmt.replace("\\n", ""))
        if head in ("cat", "") and any(r.heredoc is not None for r in c.redirs):
            body = next(r.heredoc for r in c.redirs if r.heredoc is not None) or ""
            lines = body.split("\n")
            return self.parse_value("\n".join(lines[:-1]) if len(lines) > 1 else body)
        if head in ("true", ":", "") and not c.subs:
            return _Value("empty")
        return _Value("unknown")

    def parse_value(self, text: str) -> _Value:
        t = text.strip()
        names = _vars_in(t)
        if names:
            if len(names) == 1 and re.fullmatch(r"\$\{?[A-Za-z_?][A-Za-z0-9_]*\}?|\$\?", t):
                name = names[0]
                if name == "?":
                    return _Value("status", status=self.prev)
                var = self.vars.get(name)
                if var is None:
                    return _Value("unknown")
                if var.literal is not None:
                    return self.parse_value(var.literal)
                if var.values is not None:
                    nums = [_number_value(v) for v in var.values]
                    if all(v.kind in ("num", "empty") for v in nums):
                        top = max(v.num for v in nums)
                        return _Value("choice", top, var.status)
            return _Value("unknown")
        if not t:
            return _Value("empty")
        return _number_value(t)

    # -- the end
    def finish(self, top: _Seq) -> None:
        # a trap that reads $? consumes the script's exit status, hence the last statement's
        funcs = {f.name: f.body for f in _funcs(top)}

        def reads_q(text: str, depth: int = 0) -> bool:
            if "?" in _vars_in(text):
                return True
            body = funcs.get(text.strip().split(" ", 1)[0]) if depth < 5 else None
            return body is not None and any(
                reads_q(w, depth + 1) for c in _cmds(body) for w in c.words + [v for _, v in c.assigns]
            )

        trap_reads = any(_head(c) == "trap" and reads_q(" ".join(c.words[1:2])) for c in _all_cmds(top))
        final = self.seq(top, trap_reads)
        self.exit_status = self.exit_status | final
        main_writes = [w for w in self.writes if not w.in_trap]
        # traps, with $? = the script's exit status
        self.in_trap = True
        for tcmd, body in self.traps:
            try:
                seq = _Builder(body, tcmd.start, (tcmd.start, tcmd.end), 1).build()
            except _ParseError:
                continue
            saved_guards, saved_prev = self.guards, self.prev
            self.guards, self.prev = [], self.exit_status
            before = len(self.writes)
            self.seq(seq, False)
            self.guards, self.prev = saved_guards, saved_prev
            for w in self.writes[before:]:
                if w.value.positive:
                    what = "computed from $?" if w.value.kind == "status" else f"{w.value.num:g}"
                    self.add(
                        "trap-writes-positive-reward",
                        Severity.HIGH,
                        f"the trap writes a positive reward ({what}): whatever status the script ends with "
                        "decides the reward, not the tests",
                        tcmd.start,
                        tcmd.end,
                    )
                    break
        self.in_trap = False
        self.judge(main_writes)

    def where(self, w: _Write) -> str:
        return f" (in a function called at line {_line(self.text, w.call)})" if w.call is not None else ""

    def judge(self, main_writes: list[_Write]) -> None:
        # reward-defaults-to-one
        if main_writes:
            first = main_writes[0]
            if not first.conditional and first.value.starts_positive:
                what = "the exit status $?" if first.value.kind == "status" else f"{first.value.num:g}"
                self.add(
                    "reward-defaults-to-one",
                    Severity.HIGH,
                    f"the first write to the reward file is unconditional and writes {what}: the reward "
                    f"starts positive (default-fail writes 0 first){self.where(first)}",
                    first.start,
                    first.end,
                )
        # reward-before-tests
        if self.tests:
            first_test = min(self.tests)
            for w in main_writes:
                if w.order < first_test and w.value.positive:
                    self.add(
                        "reward-before-tests",
                        Severity.HIGH,
                        "a positive reward is written before any test runs: a crash, timeout or early exit "
                        f"leaves it in place{self.where(w)}",
                        w.start,
                        w.end,
                    )
                    break
        # exit-code-ignored
        for use in self.uses:
            if use.consumed or use.masked_reported:
                continue
            later = [w for w in self.writes if w.order > use.order and not w.value.zero]
            if not later:
                continue
            counted = all(any(g.count for g in w.guards) for w in later)
            self.add(
                "exit-code-ignored",
                Severity.MEDIUM if counted else Severity.HIGH,
                f"the exit status of {use.runner.name} is never checked (no if, &&/|| other than || true, "
                "set -e or $? after it), yet a reward is written later"
                + (" (the reward is decided from its output)" if counted else ""),
                use.start,
                use.end,
            )
        # zero-tests-accepted
        for w in self.writes:
            if not w.value.positive:
                continue
            runners = {r for g in w.guards for r in g.runners | g.masked if r.counts and r.zero != "fails"}
            if not runners or any(g.count for g in w.guards):
                continue
            unsafe = sorted({r.name for r in runners if r.zero == "passes"})
            names = sorted({r.name for r in runners})
            sev = Severity.HIGH if unsafe else Severity.MEDIUM
            note = (
                f"{', '.join(unsafe)} {'exits' if len(unsafe) == 1 else 'exit'} 0 when no test runs"
                if unsafe
                else "pytest exits 5 when it collects nothing, but 0 when every test is skipped"
            )
            self.add(
                "zero-tests-accepted",
                sev,
                f"the reward turns positive on the exit status of {', '.join(names)} alone, with no check "
                f"that any test ran ({note}){self.where(w)}",
                w.start,
                w.end,
            )


def _number_value(t: str) -> _Value:
    try:
        data = json.loads(t)
    except ValueError:
        data = None
    if isinstance(data, bool):
        return _Value("unknown")
    if isinstance(data, int | float) and math.isfinite(data):
        return _Value("num", float(data))
    if isinstance(data, dict) and data:
        v = data.get("reward")
        if isinstance(v, int | float) and not isinstance(v, bool):
            return _Value("num", float(v))
        nums = [x for x in data.values() if isinstance(x, int | float) and not isinstance(x, bool)]
        if nums and len(nums) == len(data):
            return _Value("num", float(min(nums)))
        return _Value("unknown")
    try:
        return _Value("num", float(t))
    except ValueError:
        return _Value("unknown")


# -- model helpers


def _head(c: _Cmd) -> str:
    eff = _effective(c.words)
    return posixpath.basename(eff[0]) if eff else ""


def _head_is(seq: _Seq, names: tuple[str, ...]) -> bool:
    return any(_head(c) in names for c in _all_cmds(seq))


def _is_true(p: _Pipe) -> bool:
    """``true`` or ``:`` alone (the right side of ``X || true``)."""
    if len(p.parts) != 1 or not isinstance(p.parts[0], _Cmd):
        return False
    c = p.parts[0]
    return c.words in (["true"], [":"]) and not c.redirs and not c.subs


def _text_tool(node: _Node) -> bool:
    return isinstance(node, _Cmd) and not node.subs and _head(node) in _TEXT_TOOLS


def _first_cmd(stmt: _AndOr) -> _Cmd | None:
    for p in stmt.items:
        for node in p.parts:
            for c in _cmds(node):
                return c
    return None


def _cmds(node: _Node, *, status_only: bool = False) -> Iterator[_Cmd]:
    """The simple commands of a node, in order (``status_only``: those whose status is the node's)."""
    if isinstance(node, _Cmd):
        yield node
    elif isinstance(node, _If):
        for cond, body in node.branches:
            if not status_only:
                yield from _seq_cmds(cond)
            yield from _seq_cmds(body, status_only)
        if node.orelse is not None:
            yield from _seq_cmds(node.orelse, status_only)
    elif isinstance(node, _Loop):
        if node.cond is not None and not status_only:
            yield from _seq_cmds(node.cond)
        yield from _seq_cmds(node.body, status_only)
    elif isinstance(node, _Group):
        yield from _seq_cmds(node.body, status_only)
    elif isinstance(node, _Case):
        if not status_only:
            yield node.head
        for _, body in node.items:
            yield from _seq_cmds(body, status_only)


def _seq_cmds(s: _Seq, status_only: bool = False) -> Iterator[_Cmd]:
    stmts = s.stmts[-1:] if status_only else s.stmts
    for st in stmts:
        for p in st.items:
            parts = p.parts[-1:] if status_only else p.parts
            for node in parts:
                yield from _cmds(node, status_only=status_only)


def _all_cmds(s: _Seq) -> Iterator[_Cmd]:
    for c in _seq_cmds(s):
        yield c
        for sub in c.subs:
            yield from _all_cmds(sub)


def _funcs(s: _Seq) -> Iterator[_Func]:
    """Every function definition in a sequence, nested ones included."""
    for st in s.stmts:
        for p in st.items:
            for node in p.parts:
                yield from _node_funcs(node)


def _node_funcs(node: _Node) -> Iterator[_Func]:
    if isinstance(node, _Func):
        yield node
        yield from _node_funcs(node.body)
    elif isinstance(node, _If):
        for cond, body in node.branches:
            yield from _funcs(cond)
            yield from _funcs(body)
        if node.orelse is not None:
            yield from _funcs(node.orelse)
    elif isinstance(node, _Loop | _Group):
        yield from _funcs(node.body)
    elif isinstance(node, _Case):
        for _, body in node.items:
            yield from _funcs(body)


def _last_cmds(s: _Seq) -> Iterator[_Cmd]:
    yield from _seq_cmds(s, status_only=True)


# ================================================================================================ 5. API


def lint_script(text: str) -> list[Finding]:
    """Lint one verifier script; findings come back in line order.

    Never raises for the script's content: a script bashlex cannot parse gives one ``unparseable`` finding
    carrying the parser's message.
    """
    try:
        top = _parse(text)
    except _ParseError as e:
        return [
            Finding(
                code="unparseable",
                message=f"cannot parse the script: {e}",
                line=_line_of_error(text, str(e)),
                evidence=_evidence(text, 0, len(text)) if text.strip() else "",
                severity=Severity.MEDIUM,
            )
        ]
    except RecursionError:
        return [
            Finding(
                code="unparseable",
                message="the script nests too deeply to analyse",
                line=1,
                evidence="",
                severity=Severity.MEDIUM,
            )
        ]
    an = _Analyzer(text)
    an.finish(top)
    return sorted(an.findings, key=lambda f: (f.line, f.code))


def _line_of_error(text: str, message: str) -> int:
    m = re.search(r"position (\d+)", message)
    return _line(text, int(m.group(1))) if m else 1
