"""What every command shares: consoles, exit codes, one-line errors, JSON output."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import typer
from rich.console import Console

from ..errors import InfraError, PatchbenchError

#: Exit codes, documented in ``patchbench --help`` and docs/cli.md.
EXIT_OK = 0
EXIT_UNRESOLVED = 1
EXIT_BAD_INPUT = 2
EXIT_INFRA = 3

EXIT_CODES_HELP = (
    "Exit codes: 0 success (for run: every verdict matched --expect, default resolved); "
    "1 some verdict did not; 2 bad input (dataset, task id, patch, options); "
    "3 infrastructure error (sandbox, environment)."
)

out = Console()
err = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def handle_errors(fn: F) -> F:
    """Turn patchbench errors into a one-line message and the documented exit code."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except InfraError as e:
            err.print(f"[bold red]error:[/] {_escape(str(e))}", highlight=False, markup=True, soft_wrap=True)
            raise typer.Exit(EXIT_INFRA) from None
        except PatchbenchError as e:
            err.print(f"[bold red]error:[/] {_escape(str(e))}", highlight=False, soft_wrap=True)
            raise typer.Exit(EXIT_BAD_INPUT) from None

    return wrapper  # type: ignore[return-value]


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def escape(text: object) -> str:
    """``text`` with rich markup escaped: a row id ``[row 3]`` or a test id ``test[param]`` is printed as
    it is, never eaten as a style tag."""
    return _escape(str(text))


def skipped_row(e: object) -> None:
    """Report a dataset row that could not be read, its file and row id intact."""
    err.print(f"[yellow]skipped row:[/] {escape(e)}", highlight=False)


def print_json(obj: Any) -> None:
    """Write one JSON document to stdout."""
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n")
