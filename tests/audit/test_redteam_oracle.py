"""The answer-lookup attacks (``rt-oracle-*``, ``patchbench.audit.attacks.redteam_oracle``).

The sandboxed proof is ``patchbench audit builtin --no-probes --attack NAME`` (docs/design/integrity.md);
here, on the host, the Go oracle against the real ``go test``: it passes every listed test of the built-in
Go task, and it passes the decoys planted from them too (which is how the harness catches it).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import patchbench as pb
from patchbench.audit.attacks import CATALOGUE
from patchbench.canary import plan_canary

_GO = "go-logger-derived-fields-clobbered"
_ORACLES = {
    "rt-oracle-js-caller-line": ("ts-aggregate-replay-field-reset", "js-lru-numeric-key-eviction"),
    "rt-oracle-java-lookahead": ("java-reconcile-fractional-quantity",),
    "rt-oracle-go-caller": (_GO,),
    "rt-oracle-rust-track-caller": ("rs-feed-scrollback-short-page",),
}


def _tasks() -> dict[str, pb.Task]:
    return {t.id: t for t in pb.load("builtin").tasks}


def test_each_oracle_builds_a_candidate_for_its_builtin_tasks_and_none_for_others() -> None:
    tasks = _tasks()
    for name, ids in _ORACLES.items():
        attack = CATALOGUE[name]
        for task_id, task in tasks.items():
            built = attack.build(task)
            if task_id in ids:
                assert built is not None and built.file_map, (name, task_id)
            else:
                assert built is None, (name, task_id)


def _go_outcomes(root: Path) -> dict[str, str]:
    proc = subprocess.run(
        ["go", "test", "-count=1", "-v", "./..."], cwd=root, capture_output=True, text=True, timeout=600
    )
    return dict((n, o) for o, n in re.findall(r"--- (PASS|FAIL): (\S+)", proc.stdout))


@pytest.mark.skipif(shutil.which("go") is None, reason="no go")
def test_go_oracle_passes_the_listed_tests_and_the_decoys_copied_from_them(tmp_path: Path) -> None:
    task = _tasks()[_GO]
    candidate = CATALOGUE["rt-oracle-go-caller"].build(task)
    assert candidate is not None and candidate.file_map is not None
    canary = plan_canary("go-test", task, task.hidden_tests, "n1", workspace_dst="/w", harness_dst="/h")
    assert canary is not None and canary.decoys
    tree: dict[str, str | None] = {
        **task.workspace_map(),
        **{f.path: f.content for f in task.hidden_tests},
        **candidate.file_map,
        **canary.files,
    }
    for rel, text in tree.items():
        if text is not None:
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_text(text)
    got = _go_outcomes(tmp_path)
    # rewarded without the decoys, on every listed test whose expectation is a literal in its source (the
    # concurrent-derivation test, added in round twenty-two, builds its expectation at run time: the
    # oracle has nothing to copy there, and fails it)
    literal_checks = [t for t in task.fail_to_pass if t != "TestLoggersDerivedAtOnceFromOneParent"]
    assert len(literal_checks) == 3
    assert all(got.get(t) == "PASS" for t in literal_checks), got
    assert any(got.get(d) == "PASS" for d in canary.decoys), got  # a decoy passes: tampering
    assert got.get("TestPbCanaryn1") == "FAIL"  # the canary alone does not see it
