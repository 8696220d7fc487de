"""Row tables on disk: parquet (pyarrow) and JSON Lines, read into plain rows and written back."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import DatasetError


def read_rows(path: Path, errors: list[DatasetError] | None = None) -> list[dict[str, Any]]:
    """Read every row of a ``.parquet`` or ``.jsonl``/``.json`` file as a dict.

    Args:
        path: the file.
        errors: when given, a JSONL line that is not a JSON object is appended here as a row error
            (``[row line N]``) and skipped: the file's good rows are kept.

    Raises:
        DatasetError: the file cannot be read, or (without ``errors``) a JSONL line is not a JSON object.
    """
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        try:
            table = pq.read_table(path)
        except (OSError, pa.ArrowException) as e:
            raise DatasetError(f"not a readable parquet file ({_one_line(e)})", source=str(path)) from e
        rows: list[dict[str, Any]] = table.to_pylist()
        return rows
    if suffix in {".jsonl", ".json", ".ndjson"}:
        out: list[dict[str, Any]] = []
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise DatasetError(f"cannot read ({_one_line(e)})", source=str(path)) from e
        if suffix == ".json" and text.lstrip().startswith("["):
            try:
                data = json.loads(text)
            except json.JSONDecodeError as e:
                raise DatasetError(f"invalid JSON ({e.msg} at line {e.lineno})", source=str(path)) from e
            if not all(isinstance(r, dict) for r in data):
                raise DatasetError("a JSON array of objects was expected", source=str(path))
            return list(data)
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                if errors is None:
                    raise DatasetError(f"line {n}: invalid JSON ({e.msg})", source=str(path)) from e
                errors.append(DatasetError(f"invalid JSON ({e.msg})", source=str(path), row=f"line {n}"))
                continue
            if not isinstance(obj, dict):
                if errors is None:
                    raise DatasetError(f"line {n}: a JSON object was expected", source=str(path))
                errors.append(DatasetError("a JSON object was expected", source=str(path), row=f"line {n}"))
                continue
            out.append(obj)
        return out
    raise DatasetError(f"unsupported table file type {suffix!r} (parquet or jsonl)", source=str(path))


def parquet_columns(path: Path) -> list[str] | None:
    """The column names of a parquet file, or None when it is not readable parquet (never raises)."""
    try:
        return list(pq.read_schema(path).names)
    except Exception:  # detection must never raise, whatever the file holds
        return None


def write_parquet(rows: Sequence[dict[str, Any]], path: Path, schema: pa.Schema | None = None) -> None:
    """Write rows to one parquet file (parent directories created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(list(rows), schema=schema)
    pq.write_table(table, path)


def write_jsonl(rows: Iterable[dict[str, Any]], path: Path) -> None:
    """Write rows as JSON Lines, UTF-8, one object per line, keys in row order."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:300] or type(e).__name__
