"""The SQLite ledger: every (task, candidate, repeat) verdict, committed as soon as it exists.

A validation or batch run that is killed (even ``kill -9``) loses at most the runs in flight: each
finished run is its own committed transaction (WAL journal). With ``reuse`` on, a run whose key is already
in the ledger is not executed again. The key holds a hash of the task's full content and of the candidate,
so a task edited since is recomputed while unchanged ones are reused. ``infra_error`` verdicts are never
stored: they are the machine's fault and are retried next time.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from pathlib import Path

from pydantic import ValidationError

from ..candidate import Candidate
from ..task import Task
from ..verdict import Status, Verdict

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    task_key   TEXT NOT NULL,
    candidate  TEXT NOT NULL,
    repeat     INTEGER NOT NULL,
    task_id    TEXT NOT NULL,
    verdict    TEXT NOT NULL,
    created    REAL NOT NULL,
    PRIMARY KEY (task_key, candidate, repeat)
);
"""


def task_key(task: Task) -> str:
    """A hash of everything in the task: any change makes old results stale."""
    return hashlib.sha256(task.model_dump_json().encode()).hexdigest()[:32]


def candidate_key(candidate: Candidate) -> str:
    """The candidate's kind and label, plus a hash of its content."""
    body = candidate.model_dump_json()
    return f"{candidate.name}:{hashlib.sha256(body.encode()).hexdigest()[:16]}"


class Ledger:
    """A thread-safe SQLite ledger of verdicts.

    Args:
        path: the database file (created with its parent directory).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def get(self, task: Task, candidate: Candidate, repeat: int) -> Verdict | None:
        """The stored verdict for this run, if any."""
        with self._lock:
            row = self._db.execute(
                "SELECT verdict FROM runs WHERE task_key=? AND candidate=? AND repeat=?",
                (task_key(task), candidate_key(candidate), repeat),
            ).fetchone()
        if not row:
            return None
        try:
            return Verdict.model_validate_json(row[0])
        except ValidationError:
            # Written by another version of patchbench (a field renamed or removed): run it again.
            return None

    def put(self, task: Task, candidate: Candidate, repeat: int, verdict: Verdict) -> None:
        """Store a verdict (infrastructure errors are not stored: they are retried)."""
        if verdict.status is Status.INFRA_ERROR:
            return
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?)",
                (
                    task_key(task),
                    candidate_key(candidate),
                    repeat,
                    task.id,
                    verdict.model_dump_json(),
                    time.time(),
                ),
            )

    def count(self) -> int:
        """How many runs are stored."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
