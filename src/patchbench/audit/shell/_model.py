"""The script model: simple commands, pipelines, and/or lists, compound commands, and walkers over them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

# ============================================================================================ 2. the model


@dataclass
class Redir:
    op: str
    target: str
    fd: int | None
    heredoc: str | None
    start: int
    end: int


@dataclass
class Cmd:
    words: list[str]
    assigns: list[tuple[str, str]]
    redirs: list[Redir]
    subs: list[Seq]
    start: int
    end: int
    nested: Seq | None = None  # bash -c / sh -c SCRIPT
    raw: list[str] = field(default_factory=list)  # the words as written (trap and bash -c bodies)


@dataclass
class Pipe:
    parts: list[Node]
    negated: bool
    start: int
    end: int


@dataclass
class AndOr:
    items: list[Pipe]
    ops: list[str]
    start: int
    end: int
    local: int = -1  # offset in the text bashlex parsed (positions may be clamped)


@dataclass
class Seq:
    stmts: list[AndOr]


@dataclass
class If:
    branches: list[tuple[Seq, Seq]]
    orelse: Seq | None
    start: int
    end: int


@dataclass
class Loop:
    kind: str
    cond: Seq | None
    body: Seq
    subs: list[Seq]
    start: int
    end: int


@dataclass
class Group:
    body: Seq
    subshell: bool
    subs: list[Seq]
    start: int
    end: int


@dataclass
class Case:
    head: Cmd
    items: list[tuple[str, Seq]]
    start: int
    end: int


@dataclass
class Func:
    name: str
    body: Node
    start: int
    end: int


Node = Cmd | If | Loop | Group | Case | Func


class ShellParseError(Exception):
    pass


# -- walkers


def is_true(p: Pipe) -> bool:
    """``true`` or ``:`` alone (the right side of ``X || true``)."""
    if len(p.parts) != 1 or not isinstance(p.parts[0], Cmd):
        return False
    c = p.parts[0]
    return c.words in (["true"], [":"]) and not c.redirs and not c.subs


def first_cmd(stmt: AndOr) -> Cmd | None:
    for p in stmt.items:
        for node in p.parts:
            for c in cmds(node):
                return c
    return None


def cmds(node: Node, *, status_only: bool = False) -> Iterator[Cmd]:
    """The simple commands of a node, in order (``status_only``: those whose status is the node's)."""
    if isinstance(node, Cmd):
        yield node
    elif isinstance(node, If):
        for cond, body in node.branches:
            if not status_only:
                yield from seq_cmds(cond)
            yield from seq_cmds(body, status_only)
        if node.orelse is not None:
            yield from seq_cmds(node.orelse, status_only)
    elif isinstance(node, Loop):
        if node.cond is not None and not status_only:
            yield from seq_cmds(node.cond)
        yield from seq_cmds(node.body, status_only)
    elif isinstance(node, Group):
        yield from seq_cmds(node.body, status_only)
    elif isinstance(node, Case):
        if not status_only:
            yield node.head
        for _, body in node.items:
            yield from seq_cmds(body, status_only)


def seq_cmds(s: Seq, status_only: bool = False) -> Iterator[Cmd]:
    stmts = s.stmts[-1:] if status_only else s.stmts
    for st in stmts:
        for p in st.items:
            parts = p.parts[-1:] if status_only else p.parts
            for node in parts:
                yield from cmds(node, status_only=status_only)


def all_cmds(s: Seq) -> Iterator[Cmd]:
    for c in seq_cmds(s):
        yield c
        for sub in c.subs:
            yield from all_cmds(sub)


def func_defs(s: Seq) -> Iterator[Func]:
    """Every function definition in a sequence, nested ones included."""
    for st in s.stmts:
        for p in st.items:
            for node in p.parts:
                yield from _node_funcs(node)


def _node_funcs(node: Node) -> Iterator[Func]:
    if isinstance(node, Func):
        yield node
        yield from _node_funcs(node.body)
    elif isinstance(node, If):
        for cond, body in node.branches:
            yield from func_defs(cond)
            yield from func_defs(body)
        if node.orelse is not None:
            yield from func_defs(node.orelse)
    elif isinstance(node, Loop | Group):
        yield from func_defs(node.body)
    elif isinstance(node, Case):
        for _, body in node.items:
            yield from func_defs(body)


def last_cmds(s: Seq) -> Iterator[Cmd]:
    yield from seq_cmds(s, status_only=True)
