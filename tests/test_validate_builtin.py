"""The built-in dataset keeps its contract under ``validate`` (every task, every check twice).

Apart from ``test_validate.py``: at 72 sandboxed runs it is the suite's longest single test, and the suite
runs ``--dist loadfile`` (a module stays on one xdist worker).
"""

from __future__ import annotations

import patchbench as pb
from patchbench.validate import validate


def test_the_builtin_dataset_validates_clean() -> None:
    report = validate(pb.load("builtin").tasks, repeat=2, jobs=2)
    assert report.failed == 0, [(t.task_id, t.problems) for t in report.tasks if not t.ok]
    assert report.distribution == {"test-driven": len(report.tasks)}
    # every built-in runner runs the canary (the SQL case harness too, since its cases file gets a canary
    # case), so forged reports are caught
    canary = {t.task_id: t.canary for t in report.tasks}
    assert {k for k, v in canary.items() if v != "runs"} == set()
    assert report.canary_coverage == {"runs": len(report.tasks)}
