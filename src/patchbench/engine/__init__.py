"""Where runs execute: the local thread-pool engine and the SQLite ledger that makes batches resumable."""

from __future__ import annotations

from .ledger import Ledger, candidate_key, task_key
from .local import EngineStats, Job, LocalEngine

__all__ = ["EngineStats", "Job", "Ledger", "LocalEngine", "candidate_key", "task_key"]
