"""Reading test commands as the shell would: simple commands, and the program each one runs.

Shared by the runners (which commands each one claims) and the environments (which tools a task runs).
"""

from __future__ import annotations

import itertools
import os
import re
import shlex

from ..task import TestCommand

__all__ = ["program_words", "runs_pytest", "simple_commands", "words_of"]

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


def words_of(command: TestCommand) -> list[list[str]]:
    """The simple commands of a test command, each cut to start at its program (see :func:`program_words`)."""
    if command.argv is not None:
        argv = list(command.argv)
        if argv and os.path.basename(argv[0]) in _SHELLS:
            # bash -c SCRIPT, also with combined short options (-lc, -ec): read SCRIPT as a shell string.
            for j, arg in enumerate(argv[1:-1], start=1):
                if arg.startswith("-") and not arg.startswith("--") and "c" in arg:
                    return [program_words(w) for w in simple_commands(argv[j + 1])]
        return [program_words(argv)]
    assert command.shell is not None
    return [program_words(w) for w in simple_commands(command.shell)]


def simple_commands(script: str) -> list[list[str]]:
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
