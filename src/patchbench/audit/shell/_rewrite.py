"""Same-length rewrite of a bash script into text bashlex can parse (see the package docstring)."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Characters that open an escape, a quote, an expansion or a command substitution.
_QUOTING = "\\'\"$`"


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
