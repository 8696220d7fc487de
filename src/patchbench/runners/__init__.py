"""Runners: one module per result protocol, and the registry that picks one for a test spec.

* ``pytest`` (:mod:`.pytest_junit`): pytest's JUnit XML, written to a report directory outside the workspace;
* ``go-test`` (:mod:`.go`), ``cargo-test`` (:mod:`.cargo`), ``node-test``/``jest``/``vitest``/``mocha``
  (:mod:`.node`), ``junit`` (:mod:`.junit`: Maven Surefire and the JUnit console launcher), each loaded when
  its module is present;
* ``tap`` (:mod:`.tap`): TAP 12/13/14 on standard output, the fallback for any command nobody claims.
"""

from __future__ import annotations

import importlib
import itertools
import os
import re
import shlex
from collections.abc import Sequence

from ..results import SEVERITY, TestResult, TestResults
from ..task import Protocol, TestCommand, TestSpec
from ._base import Invocation, Runner, RunOutput
from .pytest_junit import PytestRunner
from .tap import TapRunner

__all__ = [
    "RUNNERS",
    "Invocation",
    "PytestRunner",
    "RunOutput",
    "Runner",
    "TapRunner",
    "choose_runner",
    "get_runner",
    "match_ids",
]

#: Runner modules for the other ecosystems, loaded when present, in claiming order (specific first).
_OPTIONAL = (
    "patchbench.runners.go:GoTestRunner",
    "patchbench.runners.cargo:CargoTestRunner",
    "patchbench.runners.node:NodeTestRunner",
    "patchbench.runners.node:JestRunner",
    "patchbench.runners.node:VitestRunner",
    "patchbench.runners.node:MochaRunner",
    "patchbench.runners.junit:JunitRunner",
)


def _load_runners() -> dict[str, Runner]:
    found: list[Runner] = [PytestRunner()]
    for spec in _OPTIONAL:
        module, _, cls = spec.partition(":")
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name != module:
                raise
            continue
        found.append(getattr(mod, cls)())
    found.append(TapRunner())
    return {r.name: r for r in found}


#: Every registered runner, by name, in the order ``choose_runner`` asks them (TAP last: the fallback).
RUNNERS: dict[str, Runner] = _load_runners()


def get_runner(name: str) -> Runner:
    """The registered runner called ``name``.

    Raises:
        KeyError: no runner has that name; the message lists the known ones.
    """
    try:
        return RUNNERS[name]
    except KeyError:
        raise KeyError(f"unknown runner {name!r} (known: {', '.join(sorted(RUNNERS))})") from None


def choose_runner(spec: TestSpec) -> Runner:
    """The runner for a test spec: its protocol, or for ``auto`` the first runner that claims a command.

    Commands are read as simple commands (a shell string is split with :mod:`shlex` at ``;``, ``&&``,
    ``|``...; wrappers such as ``env``, ``timeout`` or ``uv run`` are skipped) and each registered runner
    is asked, in registry order, whether it :meth:`~Runner.claims` one of them: pytest claims
    ``pytest``/``python -m pytest``, so ``echo pytest`` or a path like ``tests/pytest_helpers.py`` does
    not count. Anything nobody claims is read as TAP.

    Raises:
        KeyError: the spec names a protocol whose runner is not available.
    """
    if spec.protocol is not Protocol.AUTO:
        return get_runner(spec.protocol.value)
    # TAP never claims; it is the fallback.
    words = [w for c in spec.commands for w in _words_of(c)]
    for runner in RUNNERS.values():
        if any(runner.claims(w) for w in words):
            return runner
    return RUNNERS[TapRunner.name]


def match_ids(runner: Runner, wanted: Sequence[str], results: TestResults) -> dict[str, TestResult | None]:
    """Look up each wanted test id (an F2P/P2P entry) in a run's results.

    Ids are compared exactly after ``runner.normalise_id`` on both sides: a pytest id written without
    its parameters (``test_a`` for ``test_a[1]``) matches nothing, on purpose, because widening it
    would let one passing variant stand in for a failing one.

    Args:
        runner: the runner that produced ``results``; its ``normalise_id`` defines id equality.
        wanted: the ids to look up, in any order; duplicates are fine.
        results: the parsed run.

    Returns:
        ``{wanted id: result}``, keyed by the ids as given. When several results share an id the worst
        outcome wins (see :data:`patchbench.results.SEVERITY`); an id that matches nothing maps to None.
    """
    index: dict[str, TestResult] = {}
    for result in results.tests:
        for key in runner.match_keys(result.id):
            prev = index.get(key)
            if prev is None or SEVERITY[result.outcome] > SEVERITY[prev.outcome]:
                index[key] = result
    return {w: index.get(runner.normalise_id(w)) for w in wanted}


# -- recognising a pytest command ---------------------------------------------------------------

_PYTEST_PROGRAMS = frozenset({"pytest", "py.test"})
_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh"})
# Words that run the command after them; their options and numeric arguments are skipped too.
_WRAPPERS = frozenset({"env", "exec", "time", "nice", "nohup", "command", "timeout", "xvfb-run", "stdbuf"})
# Shell keywords that can precede a command in the same simple command.
_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}"})
# Tools that run a command as "<tool> run ...".
_RUN_TOOLS = frozenset({"uv", "poetry", "pdm", "pipenv", "hatch", "rye", "pixi"})
_OPERATOR_CHARS = ";&|()<>\n"
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_WRAPPER_ARG = re.compile(r"^(?:-.*|\d+(?:\.\d+)?[smhd]?)$")


def _words_of(command: TestCommand) -> list[list[str]]:
    """The simple commands of a test command, each cut to start at its program (see :func:`program_words`)."""
    if command.argv is not None:
        argv = list(command.argv)
        if argv and os.path.basename(argv[0]) in _SHELLS:
            # bash -c SCRIPT, also with combined short options (-lc, -ec): read SCRIPT as a shell string.
            for j, arg in enumerate(argv[1:-1], start=1):
                if arg.startswith("-") and not arg.startswith("--") and "c" in arg:
                    return [program_words(w) for w in _simple_commands(argv[j + 1])]
        return [program_words(argv)]
    assert command.shell is not None
    return [program_words(w) for w in _simple_commands(command.shell)]


def _simple_commands(script: str) -> list[list[str]]:
    """Split a shell string into simple commands (word lists) at ``;``, ``&&``, ``|``, newlines...."""
    lexer = shlex.shlex(script, posix=True, punctuation_chars=_OPERATOR_CHARS)
    lexer.whitespace = " \t\r"  # newlines separate commands: they come back as operator tokens
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        # Unbalanced quotes: the shell would refuse it too; read it as plainly as possible.
        tokens = re.findall(r"[;&|()<>\n]+|[^\s;&|()<>]+", script)
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token and all(ch in _OPERATOR_CHARS for ch in token):
            commands.append([])
        else:
            commands[-1].append(token)
    return [c for c in commands if c]


def program_words(words: list[str]) -> list[str]:
    """``words`` from the program on: environment assignments, shell keywords and wrappers (``env``,
    ``timeout 60``, ``uv run``...) skipped; the program itself reduced to its base name."""
    i = 0
    while i < len(words):
        word = words[i]
        base = os.path.basename(word)
        if _ASSIGNMENT.match(word) or word in _KEYWORDS:
            i += 1
        elif base in _WRAPPERS:
            i += 1
            while i < len(words) and (_WRAPPER_ARG.match(words[i]) or _ASSIGNMENT.match(words[i])):
                i += 1
        elif base in _RUN_TOOLS and i + 1 < len(words) and words[i + 1] == "run":
            i += 2
            while i < len(words) and words[i].startswith("-"):
                i += 1
        else:
            return [base, *words[i + 1 :]]
    return []


def runs_pytest(words: list[str]) -> bool:
    """Whether a simple command (from :func:`program_words`) runs pytest."""
    if not words:
        return False
    if any(a == "-m" and b in _PYTEST_PROGRAMS for a, b in itertools.pairwise(words)):
        return True
    if any(w in ("-mpytest", "-mpy.test") for w in words):
        return True
    return words[0] in _PYTEST_PROGRAMS
