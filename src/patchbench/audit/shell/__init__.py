"""A model of a bash script, built from bashlex's parse tree.

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

from ._model import (
    AndOr,
    Case,
    Cmd,
    Func,
    Group,
    If,
    Loop,
    Node,
    Pipe,
    Redir,
    Seq,
    ShellParseError,
    all_cmds,
    cmds,
    first_cmd,
    func_defs,
    is_true,
    last_cmds,
    seq_cmds,
)
from ._parse import Builder, effective, line_of, parse

__all__ = [
    "AndOr",
    "Builder",
    "Case",
    "Cmd",
    "Func",
    "Group",
    "If",
    "Loop",
    "Node",
    "Pipe",
    "Redir",
    "Seq",
    "ShellParseError",
    "all_cmds",
    "cmds",
    "effective",
    "first_cmd",
    "func_defs",
    "is_true",
    "last_cmds",
    "line_of",
    "parse",
    "seq_cmds",
]
