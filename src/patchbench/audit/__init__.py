"""Verifier audit: a static lint of Harbor-style ``tests/test.sh`` scripts and adversarial probes.

* :func:`lint_script` reads a verifier script with a shell parser and reports the bugs that let broken
  candidates earn reward (pipe masking, zero tests accepted, reward-writing traps...): see
  :mod:`patchbench.audit.lint`.
* :func:`run_probes` runs candidates that fix nothing (empty workspace, unmodified code, deleted code,
  code that writes the reward itself, code that does not compile) against the real verifier through
  :func:`patchbench.run`: see :mod:`patchbench.audit.probes`.
* :func:`audit` does both for a dataset and returns an :class:`AuditReport`; :func:`write_reports` writes
  ``audit_report.md`` and ``audit_report.json``.
"""

from __future__ import annotations

from .lint import CODES, Finding, Severity, lint_script
from .probes import PROBES, ProbeResult, run_probes
from .report import AuditReport, TaskAudit, audit, to_markdown, write_reports

__all__ = [
    "CODES",
    "PROBES",
    "AuditReport",
    "Finding",
    "ProbeResult",
    "Severity",
    "TaskAudit",
    "audit",
    "lint_script",
    "run_probes",
    "to_markdown",
    "write_reports",
]
