"""``patchbench convert``: read a dataset in one format, write it in another."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..api import load
from ..formats import FORMATS, write
from ._common import handle_errors, out, print_json, skipped_row
from .tasks import DatasetArg, FormatOpt, JsonOpt


@handle_errors
def convert(
    dataset: DatasetArg,
    output: Annotated[Path, typer.Argument(help="Where to write (a file or directory, per format).")],
    to: Annotated[str, typer.Option("--to", help="Output format: " + ", ".join(FORMATS))],
    format: FormatOpt = None,
    json: JsonOpt = False,
) -> None:
    """Convert a dataset to another format (HardBug rows/tasks, PatchBench configs, Harbor dirs/parquet)."""
    loaded = load(dataset, format=format)
    write(loaded.tasks, output, to)
    if json:
        print_json(
            {
                "written": len(loaded.tasks),
                "format": to,
                "output": str(output),
                "skipped": [str(e) for e in loaded.errors],
            }
        )
        return
    out.print(f"wrote {len(loaded.tasks)} task(s) as {to} to {output}", highlight=False)
    for e in loaded.errors:
        skipped_row(e)
