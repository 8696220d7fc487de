"""The Verdict model (patchbench.verdict)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from patchbench.verdict import CanaryState, Finding, Status, Verdict


def test_a_misspelt_field_is_an_error_not_silently_dropped() -> None:
    """Verdict accepted unknown fields, so a builder's misspelt key (``canery=``) vanished silently."""
    with pytest.raises(ValidationError, match="canery"):
        Verdict(task_id="t", candidate="c", status=Status.UNRESOLVED, canery="passed")  # type: ignore[call-arg]


def test_the_canary_field_is_typed() -> None:
    v = Verdict(task_id="t", candidate="c", status=Status.UNRESOLVED, canary="passed")  # type: ignore[arg-type]
    assert v.canary is CanaryState.PASSED
    assert v.model_dump(mode="json")["canary"] == "passed"
    with pytest.raises(ValidationError):
        Verdict(task_id="t", candidate="c", status=Status.UNRESOLVED, canary="maybe")  # type: ignore[arg-type]


def test_suspicious_findings_round_trip_and_are_strict() -> None:
    f = Finding(code="self-exec", path="pkg/a.py", line=3, evidence="subprocess.run([sys.executable])")
    v = Verdict(task_id="t", candidate="c", status=Status.RESOLVED, suspicious=(f,))
    assert Verdict.model_validate_json(v.model_dump_json()).suspicious == (f,)
    with pytest.raises(ValidationError, match="colour"):
        Finding(code="x", path="p", line=1, evidence="e", colour="red")  # type: ignore[call-arg]
