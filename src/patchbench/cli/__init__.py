"""The ``patchbench`` command line: thin Typer commands, one module each, each one library call."""

from __future__ import annotations

import typer

from ._common import EXIT_CODES_HELP
from .audit import audit
from .convert import convert
from .env import app as env_app
from .repair import repair
from .run import run
from .tasks import show, tasks
from .validate import validate

app = typer.Typer(
    name="patchbench",
    help="Load bug-fix datasets, run candidates natively in a bubblewrap sandbox, grade them default-fail. "
    + EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("tasks")(tasks)
app.command("show")(show)
app.command("run")(run)
app.command("convert")(convert)
app.command("validate")(validate)
app.command("repair")(repair)
app.command("audit")(audit)
app.add_typer(env_app, name="env")


def main() -> None:
    """Console-script entry point: SIGTERM/SIGINT/SIGHUP remove the live runs' directories and cgroups
    before patchbench dies of the signal (see :mod:`patchbench.lifecycle`)."""
    from ..lifecycle import install_signal_cleanup

    install_signal_cleanup()
    app()
