"""Inspecting and pruning the environment cache (``patchbench env list`` / ``patchbench env prune``)."""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from ..lifecycle import default_cache_dir
from ._base import _force_remove

#: The cache's top-level areas: prepared environments, repository checkouts, setups, mirrors, and the
#: native rebuilds of task images (``patchbench.verifiers.image``).
AREAS = ("envs", "checkouts", "prepared", "mirrors", "images")


@dataclass(frozen=True)
class Entry:
    """One cached item.

    Attributes:
        area: ``envs``, ``checkouts``, ``prepared``, ``mirrors`` or ``images``.
        name: its key or name.
        path: where it is.
        bytes: its size on disk.
        ready: False for a half-built leftover (always safe to prune).
        age_days: days since it was made.
        describe: for environments, what they were built from.
    """

    area: str
    name: str
    path: Path
    bytes: int
    ready: bool
    age_days: float
    describe: dict[str, object]


def _size(path: Path) -> int:
    total = 0
    for dirpath, _dirnames, filenames in os.walk(path):
        for f in filenames:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, f)).st_size
    return total


def list_cache(cache_dir: Path | None = None) -> list[Entry]:
    """Every cached environment, checkout, setup, mirror and image."""
    root = cache_dir or default_cache_dir()
    out: list[Entry] = []
    now = time.time()
    for area in AREAS:
        base = root / area
        if not base.is_dir():
            continue
        items = [d for d in base.iterdir() if d.is_dir()]
        if area == "checkouts":  # checkouts/<repo>/<commit>
            items = [c for d in items for c in d.iterdir() if c.is_dir()]
        for d in sorted(items):
            if area in ("envs", "images"):
                ready = (d / ".ready").exists()
            elif area == "checkouts":
                ready = d.with_name(d.name + ".source").exists()
            elif area == "prepared":
                ready = (d / ".ready").exists()
            else:
                ready = (d / "HEAD").exists()
            describe: dict[str, object] = {}
            if (d / ".describe.json").is_file():
                try:
                    describe = json.loads((d / ".describe.json").read_text())
                except (OSError, ValueError):
                    describe = {}
            name = d.name if area != "checkouts" else f"{d.parent.name}@{d.name}"
            out.append(Entry(area, name, d, _size(d), ready, (now - d.stat().st_mtime) / 86400, describe))
    return out


def prune(
    cache_dir: Path | None = None,
    *,
    everything: bool = False,
    older_than_days: float | None = None,
    dry_run: bool = False,
) -> list[Entry]:
    """Remove half-built leftovers always; with ``everything`` all entries; with ``older_than_days`` the
    entries older than that. Returns what was (or, with ``dry_run``, would be) removed."""
    gone: list[Entry] = []
    for e in list_cache(cache_dir):
        if everything or not e.ready or (older_than_days is not None and e.age_days > older_than_days):
            gone.append(e)
            if not dry_run:
                _force_remove(e.path)
                marker = e.path.with_name(e.path.name + ".source")
                if e.area == "checkouts" and marker.exists():
                    marker.unlink()
    return gone
