"""The SQLite ledger of verdicts (patchbench.engine.ledger)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import patchbench as pb
from patchbench.engine import Ledger
from patchbench.engine.ledger import candidate_key, task_key
from patchbench.verdict import CanaryState, Status, Verdict


def test_a_verdict_round_trips_with_its_typed_fields(tmp_path: Path) -> None:
    task = pb.load("builtin").tasks[0]
    cand = pb.Candidate.gold()
    ledger = Ledger(tmp_path / "l.sqlite")
    v = Verdict(
        task_id=task.id, candidate="gold", status=Status.RESOLVED, reward=1.0, canary=CanaryState.FAILED
    )
    ledger.put(task, cand, 0, v)
    got = ledger.get(task, cand, 0)
    assert got == v and got is not None and got.canary is CanaryState.FAILED


def test_a_verdict_stored_by_another_version_is_run_again_not_fatal(tmp_path: Path) -> None:
    """Verdict forbids unknown fields; a ledger row written with a field since removed used to be a
    ValidationError on --resume. It now reads as absent, so the run is made again."""
    task = pb.load("builtin").tasks[0]
    cand = pb.Candidate.gold()
    path = tmp_path / "l.sqlite"
    ledger = Ledger(path)
    v = Verdict(task_id=task.id, candidate="gold", status=Status.RESOLVED, reward=1.0)
    ledger.put(task, cand, 0, v)
    stale = v.model_dump_json()[:-1] + ', "a_field_from_an_older_version": 1}'
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE runs SET verdict=? WHERE task_key=? AND candidate=?",
            (stale, task_key(task), candidate_key(cand)),
        )
    assert Ledger(path).get(task, cand, 0) is None
