"""The leak screen: does the prompt tell the agent *where the fix goes*, beyond what it already has?

A prompt leaks when it narrows the location of the fix, or gives the fix away. Naming the function a bug
report is about is not that: real issue texts name the API the user called, and when the failing tests
call that function, the failure says as much. So each finding gets a level, with its evidence and reason:

* ``leak``: the prompt names a symbol the gold patch edits that the failing (F2P) tests never reference
  (an internal helper), outside any quoted error output; or it quotes a line the gold patch removes
  (outside error output) or adds; or it quotes an expression the gold patch introduces;
* ``hint``: the edited symbol, or the buggy line, appears only in quoted error output or a traceback,
  which running the failing tests on the buggy code shows the agent anyway;
* ``none``: the prompt names an edited symbol that carries no location information: an entry point the
  F2P tests reference, the only function of the workspace, or the only module the workspace consists of.

What the gold patch edits is found with a real parser, not a regex: each file the patch touches is parsed
with its tree-sitter grammar (Python, JavaScript, TypeScript, Go, Java, Rust; SQL files count by their
file stem and any view/CTE names), and a symbol is *edited* when a removed line, or the position of an
added line, falls inside its definition; only the innermost definition counts (changing one method leaves
its class's name free to mention as an entry point). What the failing tests reference is found with the
same grammars (:func:`f2p_references`): for Python precisely (the test functions the F2P ids name, with
the helpers, fixtures and module-level code they reach, imports resolved through their aliases), for the
other languages by the identifiers of the hidden test files (comments and strings excluded).

:func:`screen_prompt` is the one implementation: ``validate`` calls it, and so can any later gate (a
dataset builder, a generated problem statement: pass ``prompt=``).
"""

from __future__ import annotations

from ._model import LeakHit, LeakLevel, LeakScreen
from ._output import error_output_lines
from ._patch import changed_symbols, parse_patch
from ._screen import fixed_expressions, screen_prompt
from ._tests import f2p_references

__all__ = [
    "LeakHit",
    "LeakLevel",
    "LeakScreen",
    "changed_symbols",
    "error_output_lines",
    "f2p_references",
    "fixed_expressions",
    "parse_patch",
    "screen_prompt",
]
