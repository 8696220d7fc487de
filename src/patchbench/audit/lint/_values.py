"""The analyzer's abstract values: exit statuses, variables and what they may hold, reward writes."""

from __future__ import annotations

import json
import math
import posixpath
from dataclasses import dataclass

from ..shell import (
    Cmd,
    Node,
    Seq,
    all_cmds,
    effective,
)
from ._vocabulary import (
    _TEXT_TOOLS,
    _Runner,
)


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


def _head(c: Cmd) -> str:
    eff = effective(c.words)
    return posixpath.basename(eff[0]) if eff else ""


def _head_is(seq: Seq, names: tuple[str, ...]) -> bool:
    return any(_head(c) in names for c in all_cmds(seq))


def _text_tool(node: Node) -> bool:
    return isinstance(node, Cmd) and not node.subs and _head(node) in _TEXT_TOOLS
