"""The analysis: one walk of the script model in execution order, and :func:`lint_script`."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..shell import (
    AndOr,
    Builder,
    Case,
    Cmd,
    Func,
    Group,
    If,
    Loop,
    Node,
    Pipe,
    Seq,
    ShellParseError,
    all_cmds,
    cmds,
    effective,
    first_cmd,
    func_defs,
    is_true,
    last_cmds,
    line_of,
    parse,
)
from ._findings import Finding, Severity
from ._values import (
    _NONE,
    _head,
    _head_is,
    _number_value,
    _RunnerUse,
    _State,
    _Status,
    _text_tool,
    _Value,
    _Var,
    _Write,
)
from ._vocabulary import (
    _COUNT,
    _NOT_COUNT,
    _PY,
    _READS_ONLY,
    _REWARD,
    _VAR,
    _evidence,
    _is_test_command,
    _network,
    _runner,
    _vars_in,
)


@dataclass
class _Analyzer:
    text: str
    findings: list[Finding] = field(default_factory=list)
    state: _State = field(default_factory=_State)
    vars: dict[str, _Var] = field(default_factory=dict)
    funcs: dict[str, Node] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    guards: list[_Status] = field(default_factory=list)
    cond_depth: int = 0
    prev: _Status = _NONE
    order: int = 0
    writes: list[_Write] = field(default_factory=list)
    tests: list[int] = field(default_factory=list)
    uses: list[_RunnerUse] = field(default_factory=list)
    traps: list[tuple[Cmd, str]] = field(default_factory=list)
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
                line=line_of(self.text, start),
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

    def cmd_refs(self, cmd: Cmd) -> _Status:
        """:meth:`refs` of a command's words, assignments and the commands of its substitutions."""
        st = self.refs(cmd.words + [v for _, v in cmd.assigns])
        for sub in cmd.subs:
            for inner in all_cmds(sub):
                st = st | _Status(count=self.refs(inner.words).count)
        return st

    def expand(self, words: Sequence[str]) -> list[str]:
        """The words with variables of a known literal value substituted."""

        def one(m: re.Match[str]) -> str:
            var = self.vars.get(m.group(2) or m.group(3) or "")
            return var.literal if var is not None and var.literal is not None else m.group(0)

        return [_VAR.sub(one, w) if "$" in w else w for w in words]

    def reads_status(self, stmt: AndOr | None) -> tuple[bool, bool]:
        """Whether the statement reads ``$?`` / ``PIPESTATUS`` first thing."""
        cmd = first_cmd(stmt) if stmt is not None else None
        if cmd is None:
            return False, False
        words = cmd.words + [v for _, v in cmd.assigns]
        q = any("?" in _vars_in(w) for w in words)
        ps = any("PIPESTATUS" in w for w in words)
        return q or ps, ps

    # -- walking
    def seq(self, s: Seq, consumed_tail: bool, pipestatus_tail: bool = False) -> _Status:
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

    def early_exit(self, stmt: AndOr) -> _Status | None:
        """A guard for what follows: ``X || exit``, ``if X; then exit; fi``, or ``set -e``."""
        items = stmt.items
        if len(items) > 1 and self.exits(items[-1]):
            g = _NONE
            for p in items[:-1]:
                g = g | self.cond_status(p)
            return g
        if len(items) == 1 and len(items[0].parts) == 1:
            node = items[0].parts[0]
            if isinstance(node, If) and (
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

    def exits(self, p: Pipe, depth: int = 0) -> bool:
        """Whether a pipeline surely ends the script: exit/return, or a group or function that does."""
        if len(p.parts) != 1 or depth > 5:
            return False
        node = p.parts[0]
        if isinstance(node, Cmd):
            name = node.words[0] if node.words else ""
            if name in ("exit", "return"):
                return True
            body = self.funcs.get(name)
            return isinstance(body, Group) and not body.subshell and self.seq_exits(body.body, depth + 1)
        if isinstance(node, Group):  # exit in a ( subshell ) ends only the subshell
            return not node.subshell and self.seq_exits(node.body, depth + 1)
        return False

    def seq_exits(self, s: Seq, depth: int = 0) -> bool:
        return any(len(st.items) == 1 and self.exits(st.items[0], depth) for st in s.stmts)

    def cond_status(self, p: Pipe) -> _Status:
        """What a pipeline used as a condition depends on (runners, counts), without walking it again."""
        st = _NONE
        parts = p.parts if self.state.pipefail else p.parts[-1:]
        for node in p.parts:
            for cmd in cmds(node):
                st = st | _Status(count=self.cmd_refs(cmd).count)
        for node in parts:
            st = st | self.static_status(node)
        return st

    def static_status(self, node: Node) -> _Status:
        st = _NONE
        for cmd in cmds(node, status_only=True):
            r = _runner(self.expand(cmd.words))
            if r is not None:
                st = st | _Status(frozenset({r}))
            st = st | self.refs(cmd.words + [v for _, v in cmd.assigns])
            if not cmd.words:
                for sub in cmd.subs:
                    for inner in last_cmds(sub):
                        ri = _runner(self.expand(inner.words))
                        if ri is not None:
                            st = st | _Status(frozenset({ri}))
            name = cmd.words[0] if cmd.words else ""
            if name in self.funcs and name not in self.calls:
                self.calls.append(name)
                st = st | self.static_status(self.funcs[name])
                self.calls.pop()
        return st

    def andor(self, stmt: AndOr, consumed: bool) -> _Status:
        st = _NONE
        pushed = 0
        pipestatus = self.next_pipestatus
        # "X || true" throws X's status away: X is not checked
        swallowed = len(stmt.items) - 2 if stmt.ops[-1:] == ["||"] and is_true(stmt.items[-1]) else -1
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

    def pipe(self, p: Pipe, consumed: bool, pipestatus: bool) -> _Status:
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

    def check_pipe(self, p: Pipe, consumed: bool, pipefail: bool, uses_before: int) -> None:
        if pipefail:
            return
        upstream = p.parts[:-1]
        if all(_text_tool(n) for n in p.parts):
            return  # text tools only: an upstream failure leaves empty text, which the last one sees
        last = p.parts[-1]
        is_tee = isinstance(last, Cmd) and _head(last) == "tee"
        found = [
            r for n in upstream for c in cmds(n, status_only=True) if (r := _runner(self.expand(c.words)))
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
        self, node: Node, consumed: bool, *, in_pipe: bool = False, pipe: Pipe | None = None, index: int = 0
    ) -> _Status:
        if isinstance(node, Cmd):
            return self.cmd(node, consumed, in_pipe=in_pipe, pipe=pipe, index=index)
        if isinstance(node, Func):
            self.funcs[node.name] = node.body
            return _NONE
        if isinstance(node, If):
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
        if isinstance(node, Loop):
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
        if isinstance(node, Group):
            for sub in node.subs:
                self.seq(sub, False)
            saved = _State(self.state.errexit, self.state.pipefail)
            st = self.seq(node.body, consumed)
            if node.subshell:
                self.state = saved
            return st
        if isinstance(node, Case):
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
        self, c: Cmd, consumed: bool, *, in_pipe: bool = False, pipe: Pipe | None = None, index: int = 0
    ) -> _Status:
        # command substitutions run first; an assignment-only command has the last one's status
        sub_status = _NONE
        only_assign = not c.words
        for sub in c.subs:
            sub_status = self.seq(sub, consumed and only_assign)
        words = c.words
        head = posixpath.basename(words[0]) if words else ""
        expanded = self.expand(words)
        eff = effective(expanded)
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
            and any(isinstance(n, Cmd) and _head(n) in ("curl", "wget") for n in pipe.parts[:index])
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

    def assign(self, name: str, value: str, c: Cmd, sub_status: _Status) -> None:
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
                for cmd in all_cmds(sub):
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

    def trap(self, c: Cmd) -> None:
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

    def reward_writes(self, c: Cmd, pipe: Pipe | None, index: int) -> None:
        targets = [r for r in c.redirs if r.op in (">", ">>", ">|", "&>", "&>>") and r.fd in (None, 1)]
        value: _Value | None = None
        for r in targets:
            if self.reward_path(r.target):
                value = self.value_of(c)
                self.record_write(value, r.start, r.end, c)
        eff = effective(c.words)
        head = posixpath.basename(eff[0]) if eff else ""
        if head == "tee" and any(self.reward_path(a) for a in eff[1:] if not a.startswith("-")):
            src = pipe.parts[index - 1] if pipe is not None and index > 0 else None
            value = self.value_of(src) if isinstance(src, Cmd) else _Value("unknown")
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

    def record_write(self, value: _Value, start: int, end: int, c: Cmd) -> None:
        guards = tuple(self.guards)
        if value.kind in ("status", "choice"):
            guards = (*guards, value.status)
        call = self.call_sites[0] if self.call_sites else None
        self.writes.append(
            _Write(self.tick(), value, guards, bool(self.cond_depth), self.in_trap, c.start, c.end, call)
        )

    def value_of(self, c: Cmd) -> _Value:
        eff = effective(c.words)
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
    def finish(self, top: Seq) -> None:
        # a trap that reads $? consumes the script's exit status, hence the last statement's
        funcs = {f.name: f.body for f in func_defs(top)}

        def reads_q(text: str, depth: int = 0) -> bool:
            if "?" in _vars_in(text):
                return True
            body = funcs.get(text.strip().split(" ", 1)[0]) if depth < 5 else None
            return body is not None and any(
                reads_q(w, depth + 1) for c in cmds(body) for w in c.words + [v for _, v in c.assigns]
            )

        trap_reads = any(_head(c) == "trap" and reads_q(" ".join(c.words[1:2])) for c in all_cmds(top))
        final = self.seq(top, trap_reads)
        self.exit_status = self.exit_status | final
        main_writes = [w for w in self.writes if not w.in_trap]
        # traps, with $? = the script's exit status
        self.in_trap = True
        for tcmd, body in self.traps:
            try:
                seq = Builder(body, tcmd.start, (tcmd.start, tcmd.end), 1).build()
            except ShellParseError:
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
        return f" (in a function called at line {line_of(self.text, w.call)})" if w.call is not None else ""

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


# ================================================================================================ 5. API


def lint_script(text: str) -> list[Finding]:
    """Lint one verifier script; findings come back in line order.

    Never raises for the script's content: a script bashlex cannot parse gives one ``unparseable`` finding
    carrying the parser's message.
    """
    try:
        top = parse(text)
    except ShellParseError as e:
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
    return line_of(text, int(m.group(1))) if m else 1
