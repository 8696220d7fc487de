"""The Verdict model (patchbench.verdict)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from patchbench.verdict import CanaryState, Status, Verdict


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
