"""``patchbench env list`` and ``patchbench env prune``: the environment cache."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ..envs import default_cache_dir
from ..envs.cache import Entry, list_cache, prune
from ._common import handle_errors, out, print_json
from .tasks import JsonOpt

app = typer.Typer(
    help="Inspect and prune the cache of environments, checkouts and mirrors.", no_args_is_help=True
)
CacheOpt = Annotated[
    Path | None,
    typer.Option("--cache", help="Cache directory (default: $PATCHBENCH_CACHE or ~/.cache/patchbench)."),
]


def _rows(entries: list[Entry]) -> list[dict[str, object]]:
    return [
        {
            "area": e.area,
            "name": e.name,
            "path": str(e.path),
            "bytes": e.bytes,
            "ready": e.ready,
            "age_days": round(e.age_days, 2),
            "describe": e.describe,
        }
        for e in entries
    ]


def _table(title: str, entries: list[Entry]) -> None:
    table = Table(title=title)
    for col in ("area", "name", "size", "ready", "age"):
        table.add_column(col, overflow="fold")
    for e in entries:
        table.add_row(
            e.area,
            e.name,
            f"{e.bytes / 2**20:.1f} MiB",
            "yes" if e.ready else "no (leftover)",
            f"{e.age_days:.1f} d",
        )
    out.print(table)


@app.command("list")
@handle_errors
def list_(cache: CacheOpt = None, json: JsonOpt = False) -> None:
    """List cached environments, repository checkouts, setups and mirrors with their sizes."""
    entries = list_cache(cache)
    if json:
        print_json({"cache": str(cache or default_cache_dir()), "entries": _rows(entries)})
        return
    _table(
        f"{cache or default_cache_dir()}: {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}, "
        f"{sum(e.bytes for e in entries) / 2**20:.1f} MiB",
        entries,
    )


@app.command("prune")
@handle_errors
def prune_(
    cache: CacheOpt = None,
    all_: Annotated[bool, typer.Option("--all", help="Remove everything.")] = False,
    older_than: Annotated[
        float | None, typer.Option("--older-than", help="Remove entries older than DAYS.")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only show what would be removed.")] = False,
    json: JsonOpt = False,
) -> None:
    """Remove half-built leftovers, and with --all or --older-than DAYS, cached entries."""
    gone = prune(cache, everything=all_, older_than_days=older_than, dry_run=dry_run)
    if json:
        print_json({"dry_run": dry_run, "removed": _rows(gone)})
        return
    verb = "would remove" if dry_run else "removed"
    _table(
        f"{verb} {len(gone)} entr{'y' if len(gone) == 1 else 'ies'}, "
        f"{sum(e.bytes for e in gone) / 2**20:.1f} MiB",
        gone,
    )
