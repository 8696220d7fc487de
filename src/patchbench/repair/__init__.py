"""``patchbench repair``: default-fail verifiers and mechanically repaired test files for Harbor datasets.

* :mod:`~patchbench.repair.templates`: seed 000's single-file Python verifier (modes A and B) and seed
  003's Maven verifier, plus ``tests/test_state.py``;
* :mod:`~patchbench.repair.testfiles`: repair of LLM-written pytest files (LibCST rewrites, pyflakes for
  undefined names) and the real collect check;
* :mod:`~patchbench.repair.dataset`: :func:`repair_dataset`, the per-task decision and the report.
"""

from __future__ import annotations

from .collect import Collector, CollectResult
from .dataset import FileReport, RepairReport, TaskReport, repair_dataset, repair_task, write_report
from .templates import MavenVerifier, Paths, PythonVerifier, read_header, render_test_state
from .testfiles import Repair, RepairedFile, RepairKind, repair_test_source

__all__ = [
    "CollectResult",
    "Collector",
    "FileReport",
    "MavenVerifier",
    "Paths",
    "PythonVerifier",
    "Repair",
    "RepairKind",
    "RepairReport",
    "RepairedFile",
    "TaskReport",
    "read_header",
    "render_test_state",
    "repair_dataset",
    "repair_task",
    "repair_test_source",
    "write_report",
]
