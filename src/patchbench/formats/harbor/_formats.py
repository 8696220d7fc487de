"""The two Harbor formats: task directories and the {path, task_binary} parquet packing."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ...errors import DatasetError
from ...task import (
    Task,
    check_relpath,
)
from .._base import Format, Loaded
from .._tar import pack_tar_gz, read_tar_gz

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover - Python 3.10
    pass
from ._common import (
    _PARQUET_COLUMNS_KEY,
    _brief,
    _check_unique_ids,
    _schema_ok,
    _strip_source,
)
from ._read import (
    _is_single_task_dir,
    _read_task_dir,
    task_from_files,
)
from ._write import (
    task_to_files,
)


class HarborDirFormat(Format):
    """One Harbor task directory, or a directory whose immediate subdirectories are task directories."""

    name = "harbor-dir"
    description = "Harbor task directories (task.toml, instruction.md, environment/, tests/test.sh)"

    def detect(self, path: Path) -> bool:
        """True when ``path`` is a task directory or holds one directly."""
        try:
            if not path.is_dir():
                return False
            if (path / "task.toml").is_file():
                return True
            with os.scandir(path) as entries:
                return any(
                    e.is_dir(follow_symlinks=False) and os.path.isfile(os.path.join(e.path, "task.toml"))
                    for e in entries
                )
        except Exception:  # detection must never raise, whatever the path holds
            return False

    def read(self, path: Path) -> Loaded:
        """Read one task directory or every task subdirectory (hidden ones skipped), sorted by name.

        Raises:
            DatasetError: ``path`` is not a directory, or holds no subdirectory at all.
        """
        if not path.is_dir():
            raise DatasetError("not a directory", source=str(path))
        loaded = Loaded(format=self.name, source=str(path))
        if _is_single_task_dir(path):
            dirs = [path]
        else:
            dirs = sorted(
                (p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")),
                key=lambda p: p.name,
            )
            if not dirs:
                raise DatasetError("no Harbor task directories", source=str(path))
        for task_dir in dirs:
            try:
                files = _read_task_dir(task_dir, source=str(path), row=task_dir.name)
                loaded.tasks.append(
                    task_from_files(task_dir.name, files, source=str(path), row=task_dir.name)
                )
            except DatasetError as e:
                loaded.errors.append(e)
        return loaded

    def write(self, tasks: Sequence[Task], path: Path) -> None:
        """Write each task to ``path/<task.id>/``, replacing a previous directory of that name.

        Raises:
            DatasetError: two tasks share an id, ``path/<id>`` is a file or a symlink, or a task cannot
                be expressed as a Harbor directory (see :func:`task_to_files`).
        """
        _check_unique_ids(tasks, path)
        rendered = [(task, task_to_files(task)) for task in tasks]
        path.mkdir(parents=True, exist_ok=True)
        for task, files in rendered:
            target = path / task.id
            if target.is_symlink() or (target.exists() and not target.is_dir()):
                raise DatasetError("exists and is not a directory", source=str(target), row=task.id)
            if target.exists():
                shutil.rmtree(target)  # the writer owns <out>/<id>: stale files would break byte-identity
            for rel, (content, executable) in sorted(files.items()):
                dest = target / check_relpath(rel)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(content)
                dest.chmod(0o755 if executable else 0o644)


class HarborParquetFormat(Format):
    """A parquet file of ``path`` (task id) and ``task_binary`` (gzipped tar of the task directory)."""

    name = "harbor-parquet"
    description = "Harbor task directories packed as parquet rows {path, task_binary}"

    def detect(self, path: Path) -> bool:
        """True when ``path`` is a parquet file with a string ``path`` and a binary ``task_binary`` column."""
        try:
            if not path.is_file() or path.suffix.lower() != ".parquet":
                return False
            schema = pq.read_schema(path)
            return _schema_ok(schema)
        except Exception:  # detection must never raise, whatever the file holds
            return False

    def read(self, path: Path) -> Loaded:
        """Read every row; an unsafe or corrupt tarball is a row error naming the row's ``path``.

        Columns beyond ``path`` and ``task_binary`` are kept in ``metadata["harbor_parquet_columns"]`` and
        written back by :meth:`write`.

        Raises:
            DatasetError: the file is not readable parquet or lacks the two columns.
        """
        try:
            parquet = pq.ParquetFile(path)
            schema = parquet.schema_arrow
        except (OSError, pa.ArrowException) as e:
            raise DatasetError(f"not a readable parquet file ({_brief(e)})", source=str(path)) from e
        if not _schema_ok(schema):
            raise DatasetError(
                "a string 'path' and a binary 'task_binary' column are required "
                f"(columns: {', '.join(schema.names)})",
                source=str(path),
            )
        loaded = Loaded(format=self.name, source=str(path))
        seen: set[str] = set()
        index = -1
        try:
            for batch in parquet.iter_batches(batch_size=64):
                for row in batch.to_pylist():
                    index += 1
                    self._read_row(row, index, str(path), seen, loaded)
        except (OSError, pa.ArrowException) as e:
            raise DatasetError(
                f"parquet data unreadable at row {index + 1} ({_brief(e)})", source=str(path)
            ) from e
        return loaded

    @staticmethod
    def _read_row(row: dict[str, Any], index: int, source: str, seen: set[str], loaded: Loaded) -> None:
        task_id = row.get("path")
        if not isinstance(task_id, str) or not task_id.strip():
            loaded.errors.append(DatasetError("row has no path", source=source, row=index))
            return
        if task_id in seen:
            loaded.errors.append(DatasetError("duplicate path", source=source, row=task_id))
            return
        seen.add(task_id)
        blob = row.get("task_binary")
        if not isinstance(blob, bytes):
            loaded.errors.append(DatasetError("task_binary is empty", source=source, row=task_id))
            return
        extra = {k: v for k, v in row.items() if k not in ("path", "task_binary")}
        try:
            try:
                files = read_tar_gz(blob, source=source)
            except DatasetError as e:
                raise DatasetError(f"task_binary: {_strip_source(e)}", source=source, row=task_id) from e
            task = task_from_files(task_id, files, source=source, row=task_id)
        except DatasetError as e:
            loaded.errors.append(e)
            return
        if extra:
            task = task.model_copy(update={"metadata": {**task.metadata, _PARQUET_COLUMNS_KEY: extra}})
        loaded.tasks.append(task)

    def write(self, tasks: Sequence[Task], path: Path) -> None:
        """Write one ``{path, task_binary}`` row per task (``path`` = task id), plus columns read earlier.

        Raises:
            DatasetError: two tasks share an id, a task cannot be expressed as a Harbor directory, or the
                kept extra columns have values of incompatible types.
        """
        _check_unique_ids(tasks, path)
        paths: list[str] = []
        blobs: list[bytes] = []
        extras: list[dict[str, Any]] = []
        for task in tasks:
            paths.append(task.id)
            blobs.append(pack_tar_gz(task_to_files(task)))
            kept = task.metadata.get(_PARQUET_COLUMNS_KEY)
            extras.append(kept if isinstance(kept, dict) else {})
        columns: dict[str, pa.Array] = {
            "path": pa.array(paths, type=pa.string()),
            "task_binary": pa.array(blobs, type=pa.binary()),
        }
        names = [n for n in dict.fromkeys(k for e in extras for k in e) if n not in columns]
        for name in names:
            try:
                columns[name] = pa.array([e.get(name) for e in extras])
            except (pa.ArrowException, TypeError, ValueError) as e:
                raise DatasetError(
                    f"kept column {name!r} has mixed types ({_brief(e)})", source=str(path)
                ) from e
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table(columns), path)
