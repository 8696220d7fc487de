"""bashlex parse tree -> the script model (:mod:`._model`), for one script or a fragment of one."""

from __future__ import annotations

import posixpath
import shlex
import signal
import threading
import time
from collections.abc import Sequence
from typing import Any

import bashlex  # type: ignore[import-untyped]  # bashlex ships no type information

from ._model import AndOr, Case, Cmd, Func, Group, If, Loop, Node, Pipe, Redir, Seq, ShellParseError
from ._rewrite import _CaseSpan, _rewrite, _Rewriter, _Sub, _Unbalanced

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


def effective(words: Sequence[str]) -> list[str]:
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


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, max(0, offset)) + 1


_MAX_NESTING = 30


class Builder:
    """bashlex tree → the model, for one (rewritten) text whose offsets start at ``base``."""

    def __init__(self, src: str, base: int, clamp: tuple[int, int] | None, depth: int = 0) -> None:
        self.src = src
        self.base = base
        self.clamp = clamp
        self.depth = depth
        if depth > _MAX_NESTING:
            raise ShellParseError(f"substitutions nested more than {_MAX_NESTING} deep")
        self.rw = _rewrite_or_fail(src)
        self.cases = {c.start: c for c in self.rw.cases}
        self.subs = list(self.rw.subs)
        self.claimed: set[int] = set()

    def pos(self, node: Any) -> tuple[int, int]:
        if self.clamp is not None:
            return self.clamp
        a, b = node.pos
        return self.base + a, self.base + b

    def build(self) -> Seq:
        if self.rw.words == 0:
            return Seq([])
        try:
            trees = _bashlex_parse(self.rw.text())
        except _ParserHang:
            raise ShellParseError(f"the parser did not finish within {_PARSE_SECONDS:g} s") from None
        except Exception as e:  # bashlex raises ParsingError, NotImplementedError, AttributeError...
            raise ShellParseError(_parser_message(e)) from None
        seq = Seq([])
        try:
            for t in trees:
                seq.stmts.extend(self.seq(t).stmts)
        except (AttributeError, IndexError, KeyError, TypeError) as e:  # a tree shape not modelled
            raise ShellParseError(f"parse tree not understood ({type(e).__name__}: {e})") from None
        for k, sub in enumerate(self.subs):  # substitutions no command claimed: walk them anyway
            if k not in self.claimed:
                a, b = self.sub_pos(sub)
                holder = Cmd([], [], [], [self.sub_seq(sub)], a, b)
                seq.stmts.append(AndOr([Pipe([holder], False, a, b)], [], a, b))
        return seq

    def sub_pos(self, sub: _Sub) -> tuple[int, int]:
        if self.clamp is not None:
            return self.clamp
        return self.base + sub.start, self.base + sub.end

    def sub_seq(self, sub: _Sub) -> Seq:
        if self.clamp is not None:
            clamp: tuple[int, int] | None = self.clamp
        elif sub.exact:
            clamp = None
        else:
            clamp = (self.base + sub.start, self.base + sub.end)
        return Builder(sub.inner, self.base + sub.inner_offset, clamp, self.depth + 1).build()

    def claim(self, a: int, b: int) -> list[Seq]:
        """The substitutions inside the local span [a, b), parsed; each is claimed once."""
        out = []
        for k, sub in enumerate(self.subs):
            if k not in self.claimed and a <= sub.start and sub.end <= b:
                self.claimed.add(k)
                out.append(self.sub_seq(sub))
        return out

    # -- structure
    def seq(self, node: Any) -> Seq:
        kind = node.kind
        if kind == "list":
            out = Seq([])
            items: list[Pipe] = []
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
        return Seq([self.andor([p], [], node.pos[0])])

    def andor(self, items: list[Pipe], ops: list[str], local: int) -> AndOr:
        return AndOr(items, ops[: len(items) - 1], items[0].start, items[-1].end, local)

    def pipe(self, node: Any) -> Pipe:
        start, end = self.pos(node)
        if node.kind == "pipeline":
            negated = False
            parts: list[Node] = []
            for part in node.parts:
                if part.kind == "reservedword" and part.word == "!":
                    negated = True
                elif part.kind == "pipe":
                    continue
                else:
                    parts.append(self.node(part))
            return Pipe(parts, negated, start, end)
        if node.kind == "list":  # a list where a command was expected (bashlex nesting quirk)
            seq = self.seq(node)
            return Pipe([Group(seq, False, [], start, end)], False, start, end)
        return Pipe([self.node(node)], False, start, end)

    def node(self, node: Any) -> Node:
        start, end = self.pos(node)
        kind = node.kind
        if kind == "command":
            return self.command(node)
        if kind == "function":
            return Func(node.name.word, self.node(node.body), start, end)
        if kind == "compound":
            inner = [p for p in node.list if p.kind != "reservedword"]
            opener = node.list[0].word if node.list and node.list[0].kind == "reservedword" else ""
            subs = [s for r in getattr(node, "redirects", []) or [] for s in self.claim(*r.pos)]
            if len(inner) == 1 and inner[0].kind in ("if", "for", "while", "until"):
                built = self.node(inner[0])
                if isinstance(built, Loop):
                    built.subs.extend(subs)
                return built
            body = Seq([])
            for part in inner:
                body.stmts.extend(self.seq(part).stmts)
            local_start = node.pos[0]
            if opener == "{" and local_start in self.cases:
                return self.case(self.cases[local_start], body, start, end)
            return Group(body, opener == "(", subs, start, end)
        if kind == "if":
            branches: list[tuple[Seq, Seq]] = []
            orelse: Seq | None = None
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
            return If(branches, orelse, start, end)
        if kind in ("while", "until"):
            parts = [p for p in node.parts if p.kind != "reservedword"]
            return Loop(kind, self.seq(parts[0]), self.seq(parts[1]), [], start, end)
        if kind == "for":
            words = [p for p in node.parts if p.kind == "word"]
            subs = [s for w in words for s in self.claim(*w.pos)]
            body_nodes = [p for p in node.parts if p.kind not in ("reservedword", "word")]
            body = self.seq(body_nodes[-1]) if body_nodes else Seq([])
            return Loop("for", None, body, subs, start, end)
        if kind in ("pipeline", "list"):
            return Group(self.seq(node), False, [], start, end)
        raise ShellParseError(f"unsupported construct {kind!r}")

    def case(self, span: _CaseSpan, body: Seq, start: int, end: int) -> Case:
        head: Cmd | None = None
        items: list[tuple[str, Seq]] = [(pat, Seq([])) for pat, _, _ in span.items]
        for stmt in body.stmts:
            if head is None:
                first = stmt.items[0].parts[0] if stmt.items and stmt.items[0].parts else None
                if isinstance(first, Cmd):
                    head = first
                    continue
            if _is_colon(stmt):
                continue
            for k, (_, b0, b1) in enumerate(span.items):
                if b0 <= stmt.local < b1:
                    items[k][1].stmts.append(stmt)
                    break
        return Case(head or Cmd([], [], [], [], start, start), items, start, end)

    def original(self, word: Any) -> str:
        """A word as the script wrote it, unquoted (the rewrite may have changed quoted text)."""
        a, b = word.pos
        try:
            parts = shlex.split(self.src[a:b])
        except ValueError:
            return str(word.word)
        return parts[0] if len(parts) == 1 else str(word.word)

    def command(self, node: Any) -> Cmd:
        start, end = self.pos(node)
        words: list[str] = []
        assigns: list[tuple[str, str]] = []
        redirs: list[Redir] = []
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
                    Redir(
                        op=part.type,
                        target=target.word if hasattr(target, "word") else str(target),
                        fd=part.input if isinstance(getattr(part, "input", None), int) else None,
                        heredoc=heredoc.value if heredoc is not None else None,
                        start=rs,
                        end=re_,
                    )
                )
        subs = self.claim(*node.pos)
        cmd = Cmd(words, assigns, redirs, subs, start, end, raw=raw)
        eff = effective(raw)
        if len(eff) >= 3 and posixpath.basename(eff[0]) in ("bash", "sh") and eff[1] == "-c":
            try:
                cmd.nested = Builder(eff[2], start, (start, end), self.depth + 1).build()
            except ShellParseError:
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


def _is_colon(stmt: AndOr) -> bool:
    """The ``:`` a rewritten case pattern leaves behind."""
    if len(stmt.items) != 1 or len(stmt.items[0].parts) != 1:
        return False
    c = stmt.items[0].parts[0]
    return isinstance(c, Cmd) and c.words == [":"] and not c.redirs and not c.assigns


def _rewrite_or_fail(src: str) -> _Rewriter:
    # The raw text is never handed to bashlex here: on some unterminated constructs it loops forever.
    try:
        return _rewrite(src)
    except _Unbalanced as e:
        raise ShellParseError(f"unterminated {e.what} (line {line_of(src, e.pos)})") from None
    except IndexError:
        raise ShellParseError("unterminated construct at the end of the script") from None


def _parser_message(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    if isinstance(e, NotImplementedError):
        text = f"construct not supported by the parser ({text})"
    elif not isinstance(e, bashlex.errors.ParsingError):
        text = f"parser failure ({type(e).__name__}: {text})"
    return text[:300]


def parse(text: str) -> Seq:
    return Builder(text, 0, None).build()
