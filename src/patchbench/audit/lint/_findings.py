"""What a lint finding is, and every code."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict


class Severity(str, Enum):
    """How bad a finding is."""

    HIGH = "high"
    """The verifier can reward a broken or empty candidate."""
    MEDIUM = "medium"
    """The verifier is weaker or less reliable than it should be."""
    LOW = "low"
    """Worth knowing."""


class Finding(BaseModel):
    """One lint finding.

    Attributes:
        code: a stable code (see :data:`CODES`).
        message: one line for people.
        line: the 1-based line of the offending construct.
        evidence: its source text (first line, trimmed).
        severity: see :class:`Severity`.
    """

    model_config = ConfigDict(frozen=True)

    code: str
    message: str
    line: int
    evidence: str
    severity: Severity


CODES: dict[str, str] = {
    "pipe-without-pipefail": "a pipeline's status is used while set -o pipefail is off",
    "tee-masks-exit-code": "a pipeline ending in tee hides the real command's exit code",
    "trap-writes-positive-reward": "a trap writes a positive reward (or one computed from $?)",
    "reward-before-tests": "a positive reward is written before any test runs",
    "reward-defaults-to-one": "the first reward write is unconditional and positive",
    "exit-code-ignored": "a test runner's exit status is never checked",
    "zero-tests-accepted": "the reward follows a runner's exit status without checking that tests ran",
    "network-install-at-verify-time": "the verifier downloads or installs software at verify time",
    "unparseable": "the script could not be parsed",
}
"""Every finding code and what it means."""
