"""Diffs with symlinks and paths that leave the workspace."""

from __future__ import annotations

import posixpath

from ...task import Task
from ._kit import (
    _always,
    _catalogue,
    _Entry,
    _has_hidden,
    _patching,
    _tests_dir,
)


def _symlink_diff(path: str, target: str) -> str:
    return (
        f"diff --git a/{path} b/{path}\n"
        "new file mode 120000\n"
        "index 0000000..1111111\n"
        "--- /dev/null\n"
        f"+++ b/{path}\n"
        "@@ -0,0 +1 @@\n"
        f"+{target}\n"
        "\\ No newline at end of file\n"
    )


def _new_file_diff(path: str, text: str) -> str:
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\n"
        "new file mode 100644\n"
        "--- /dev/null\n"
        f"+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n" + body
    )


def _symlink_tests_dir(task: Task) -> str:
    folder = _tests_dir(task)
    decoy = "decoy_tests"
    patch = _symlink_diff(folder, decoy)
    for f in task.hidden_tests:
        rel = f.path[len(folder) + 1 :] if f.path.startswith(folder + "/") else posixpath.basename(f.path)
        patch += _new_file_diff(posixpath.join(decoy, rel), "# decoy\n")
    return patch


def _symlink_to_source(task: Task) -> str:
    patch = _new_file_diff("zz_empty.txt", "x")
    for f in task.hidden_tests:
        patch += _symlink_diff(f.path, "../" * f.path.count("/") + "zz_empty.txt")
    return patch


def _dotdot_path(task: Task) -> str:
    first = task.hidden_tests[0].path if task.hidden_tests else "test_x.py"
    target = f"../{_tests_dir(task)}/{posixpath.basename(first)}"
    patch = _new_file_diff(target, "def test_escape():\n    pass\n")
    return patch + _new_file_diff("../../tmp/patchbench_attack_escape.txt", "escaped\n")


_catalogue(
    _Entry(
        "diff-symlink-tests-dir",
        "any",
        "a diff that makes the tests directory a symlink to a decoy with passing tests",
        _has_hidden,
        _patching(_symlink_tests_dir),
    ),
    _Entry(
        "diff-symlink-test-file",
        "any",
        "a diff that creates each hidden test path as a symlink to /dev/null",
        _has_hidden,
        _patching(lambda t: "".join(_symlink_diff(f.path, "/dev/null") for f in t.hidden_tests)),
    ),
    _Entry(
        "diff-symlink-to-source",
        "any",
        "a diff that makes the hidden test a symlink into the workspace (an empty file)",
        _has_hidden,
        _patching(_symlink_to_source),
    ),
    _Entry(
        "diff-dotdot-path",
        "any",
        "a diff whose paths climb out of the workspace with ../",
        _always,
        _patching(_dotdot_path),
    ),
)
