"""Workspaces: materialising files, applying candidates safely, the test-configuration guard, hidden tests.

Diffs are applied with the real ``git`` and ``patch`` binaries, as in production.
"""

from __future__ import annotations

import base64
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from patchbench.candidate import Candidate
from patchbench.errors import PatchError
from patchbench.task import FileEntry, Task, TestCommand, TestSpec
from patchbench.workspace import (
    Applied,
    Baseline,
    ConfigPolicy,
    apply_candidate,
    apply_patch,
    config_violations,
    guard_test_config,
    inject_tests,
    materialise,
    patch_paths,
    read_changed,
    unified_diff,
)

# --- helpers -------------------------------------------------------------------------------------


def make_task(
    workspace: dict[str, str],
    *,
    hidden: dict[str, str] | None = None,
    gold: str | None = None,
) -> Task:
    return Task(
        id="t1",
        workspace=tuple(FileEntry(path=p, content=c) for p, c in workspace.items()),
        hidden_tests=tuple(FileEntry(path=p, content=c) for p, c in (hidden or {}).items()),
        test=TestSpec(commands=(TestCommand(argv=("pytest",)),)),
        gold_patch=gold,
    )


def setup_ws(tmp_path: Path, task: Task) -> Path:
    root = tmp_path / "ws"
    materialise(task.workspace, root)
    return root


def tree(root: Path) -> dict[str, str]:
    """Every regular file under ``root`` as ``{relative path: text}``."""
    out: dict[str, str] = {}
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            p = Path(dirpath) / name
            out[p.relative_to(root).as_posix()] = p.read_text(encoding="utf-8")
    return out


def assert_one_line(err: BaseException) -> None:
    msg = str(err)
    assert msg
    assert "\n" not in msg


BASE = {
    "src/pkg/__init__.py": "",
    "src/pkg/mod.py": "def answer():\n    return 41\n",
    "old.txt": "a\nb\n",
    "m.txt": "line 1\nline 2\nline 3\nvalue = 1\nline 5\nline 6\nline 7\n",
}

FIX_MOD = """\
diff --git a/src/pkg/mod.py b/src/pkg/mod.py
--- a/src/pkg/mod.py
+++ b/src/pkg/mod.py
@@ -1,2 +1,2 @@
 def answer():
-    return 41
+    return 42
"""


# --- materialise ---------------------------------------------------------------------------------


def test_materialise_writes_nested_files_and_creates_the_root(tmp_path: Path) -> None:
    root = tmp_path / "does" / "not" / "exist"
    materialise(
        [FileEntry(path="a.txt", content="top\n"), FileEntry(path="x/y/z/deep.py", content="d = 1\n")], root
    )
    assert tree(root) == {"a.txt": "top\n", "x/y/z/deep.py": "d = 1\n"}


def test_materialise_sets_the_executable_bit_only_on_executable_entries(tmp_path: Path) -> None:
    materialise(
        [
            FileEntry(path="run.sh", content="#!/bin/sh\necho hi\n", executable=True),
            FileEntry(path="data.txt", content="x\n"),
        ],
        tmp_path,
    )
    assert (tmp_path / "run.sh").stat().st_mode & 0o111 == 0o111
    assert (tmp_path / "data.txt").stat().st_mode & 0o111 == 0


def test_materialise_decodes_base64_entries_byte_for_byte(tmp_path: Path) -> None:
    raw = bytes(range(256))
    entry = FileEntry(path="bin/blob.dat", content=base64.b64encode(raw).decode("ascii"), encoding="base64")
    materialise([entry], tmp_path)
    assert (tmp_path / "bin" / "blob.dat").read_bytes() == raw


def test_materialise_writes_utf8_text(tmp_path: Path) -> None:
    materialise([FileEntry(path="u.txt", content="café ✓\n")], tmp_path)
    assert (tmp_path / "u.txt").read_bytes() == "café ✓\n".encode()


# --- apply_candidate: diffs ----------------------------------------------------------------------


def test_diff_candidate_is_applied_with_git_apply(tmp_path: Path) -> None:
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    applied = apply_candidate(task, Candidate.diff(FIX_MOD), root)
    assert applied.method == "git-apply"
    assert applied.changed == {"src/pkg/mod.py"}
    assert (root / "src/pkg/mod.py").read_text() == "def answer():\n    return 42\n"


def test_diff_with_wrong_hunk_line_counts_still_applies_thanks_to_recount(tmp_path: Path) -> None:
    """Hand-edited patches often have stale ``@@`` counts; without ``--recount`` git would reject them."""
    patch = """\
--- a/src/pkg/mod.py
+++ b/src/pkg/mod.py
@@ -1,17 +1,9 @@
 def answer():
-    return 41
+    return 42
"""
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    applied = apply_candidate(task, Candidate.diff(patch), root)
    assert applied.method == "git-apply"
    assert (root / "src/pkg/mod.py").read_text() == "def answer():\n    return 42\n"


SHIFTED_CONTEXT = """\
--- a/m.txt
+++ b/m.txt
@@ -1,7 +1,7 @@
 line one
 line 2
 line 3
-value = 1
+value = 2
 line 5
 line 6
 line seven
"""


def test_diff_with_slightly_wrong_context_falls_back_to_fuzzy_patch(tmp_path: Path) -> None:
    """The first and last context lines differ from the file: git refuses, ``patch --fuzz`` accepts."""
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)

    # Prove the premise: git apply --recount really refuses this patch, and so does --3way (no blobs).
    probe = tmp_path / "probe"
    materialise(task.workspace, probe)
    patch_file = tmp_path / "shifted.patch"
    patch_file.write_text(SHIFTED_CONTEXT)
    env = {"PATH": os.environ["PATH"], "GIT_CEILING_DIRECTORIES": str(tmp_path), "HOME": str(tmp_path)}
    plain = subprocess.run(
        ["git", "apply", "--recount", "--check", str(patch_file)], cwd=probe, env=env, capture_output=True
    )
    assert plain.returncode != 0
    subprocess.run(["git", "init", "-q"], cwd=probe, env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=probe, env=env, check=True)
    three_way = subprocess.run(
        ["git", "apply", "--3way", str(patch_file)], cwd=probe, env=env, capture_output=True
    )
    assert three_way.returncode != 0

    applied = apply_candidate(task, Candidate.diff(SHIFTED_CONTEXT), root)
    assert applied.method == "patch-fuzz"
    assert applied.changed == {"m.txt"}
    assert (root / "m.txt").read_text() == BASE["m.txt"].replace("value = 1", "value = 2")
    # no backup or reject files left behind, no leftover .git from the --3way attempt
    assert sorted(tree(root)) == sorted(BASE)
    assert not (root / ".git").exists()


def test_diff_that_does_not_apply_raises_one_line_and_restores_the_workspace(tmp_path: Path) -> None:
    """The first file's hunk applies (fuzzy patch would keep it); the second cannot: nothing may stay."""
    patch = (
        FIX_MOD
        + """\
--- a/old.txt
+++ b/old.txt
@@ -1,2 +1,2 @@
-nothing like this
-is in the file
+so it
+cannot apply
"""
    )
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    with pytest.raises(PatchError, match="does not apply") as exc:
        apply_candidate(task, Candidate.diff(patch), root)
    assert_one_line(exc.value)
    assert tree(root) == BASE


def test_diff_adding_a_new_file_in_a_new_directory(tmp_path: Path) -> None:
    patch = """\
diff --git a/src/pkg/sub/new.py b/src/pkg/sub/new.py
new file mode 100644
--- /dev/null
+++ b/src/pkg/sub/new.py
@@ -0,0 +1,2 @@
+x = 1
+y = 2
"""
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    applied = apply_candidate(task, Candidate.diff(patch), root)
    assert applied.method == "git-apply"
    assert applied.changed == {"src/pkg/sub/new.py"}
    assert (root / "src/pkg/sub/new.py").read_text() == "x = 1\ny = 2\n"


def test_diff_deleting_a_file(tmp_path: Path) -> None:
    patch = """\
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
"""
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    applied = apply_candidate(task, Candidate.diff(patch), root)
    assert applied.changed == {"old.txt"}
    assert not (root / "old.txt").exists()


def test_diff_renaming_a_file_reports_both_paths(tmp_path: Path) -> None:
    patch = """\
diff --git a/old.txt b/renamed.txt
similarity index 100%
rename from old.txt
rename to renamed.txt
"""
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    applied = apply_candidate(task, Candidate.diff(patch), root)
    assert applied.changed == {"old.txt", "renamed.txt"}
    assert not (root / "old.txt").exists()
    assert (root / "renamed.txt").read_text() == "a\nb\n"


def test_empty_diff_text_changes_nothing(tmp_path: Path) -> None:
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    applied = apply_candidate(task, Candidate.diff("  \n"), root)
    assert applied.method == "none"
    assert applied.changed == set()
    assert tree(root) == BASE


def test_diff_with_non_ab_prefixes_reports_the_paths_it_really_changed(tmp_path: Path) -> None:
    """Regression: ``-p1`` strips *any* first component, so ``--- q/conftest.py`` patches ``conftest.py``.

    If ``changed`` were parsed from the headers with only ``a/``/``b/`` removed, it would name
    ``q/conftest.py`` and the configuration guard would leave the real ``conftest.py`` modified.
    """
    task = make_task({"conftest.py": "x = 1\n"})
    root = setup_ws(tmp_path, task)
    patch = "--- q/conftest.py\n+++ q/conftest.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    applied = apply_candidate(task, Candidate.diff(patch), root)
    assert applied.changed == {"conftest.py"}
    bad = guard_test_config(task, applied, root, ConfigPolicy.STRIP)
    assert bad == ["conftest.py"]
    assert (root / "conftest.py").read_text() == "x = 1\n"


def test_diff_with_spaces_in_paths_reports_the_paths_it_really_changed(tmp_path: Path) -> None:
    """Regression: header parsing that stops at the first space would miss ``tests dir/conftest.py``.

    The guard would then strip a non-existent ``dir/conftest.py`` and keep the candidate's conftest.
    """
    task = make_task({"tests dir/test_a.py": "def test_a():\n    pass\n"})
    root = setup_ws(tmp_path, task)
    patch = """\
diff --git a/tests dir/conftest.py b/tests dir/conftest.py
new file mode 100644
--- /dev/null
+++ b/tests dir/conftest.py
@@ -0,0 +1 @@
+evil = 1
"""
    applied = apply_candidate(task, Candidate.diff(patch), root)
    assert applied.changed == {"tests dir/conftest.py"}
    assert guard_test_config(task, applied, root, ConfigPolicy.STRIP) == ["tests dir/conftest.py"]
    assert not (root / "tests dir/conftest.py").exists()


# --- apply_candidate: the other kinds ------------------------------------------------------------


def test_gold_candidate_applies_the_tasks_gold_patch(tmp_path: Path) -> None:
    task = make_task(BASE, gold=FIX_MOD)
    root = setup_ws(tmp_path, task)
    applied = apply_candidate(task, Candidate.gold(), root)
    assert applied.method == "git-apply"
    assert (root / "src/pkg/mod.py").read_text() == "def answer():\n    return 42\n"


def test_gold_candidate_without_a_gold_patch_raises(tmp_path: Path) -> None:
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    with pytest.raises(PatchError, match="t1 has no gold patch") as exc:
        apply_candidate(task, Candidate.gold(), root)
    assert_one_line(exc.value)
    assert tree(root) == BASE


def test_empty_candidate_changes_nothing(tmp_path: Path) -> None:
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    applied = apply_candidate(task, Candidate.empty(), root)
    assert applied == Applied("none", set())
    assert tree(root) == BASE


def test_wipe_candidate_removes_everything_and_reports_every_workspace_path(tmp_path: Path) -> None:
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    (root / "extra-dir").mkdir()
    applied = apply_candidate(task, Candidate.wipe(), root)
    assert applied.method == "wipe"
    assert applied.changed == set(BASE)
    assert root.is_dir()
    assert list(root.iterdir()) == []


def test_directory_candidate_deletes_the_pristine_files_it_lacks_per_task(tmp_path: Path) -> None:
    """A directory candidate is the final workspace: it is resolved against each task's own files when
    applied, so one candidate serves a batch (``run --dir --jobs N``)."""
    edited = tmp_path / "edited"
    (edited / "src/pkg").mkdir(parents=True)
    (edited / "src/pkg/mod.py").write_text("def answer():\n    return 42\n")
    cand = Candidate.directory(edited)
    for name, files in (("a", BASE), ("b", {**BASE, "extra/only-in-b.txt": "b\n"})):
        task = make_task(files)
        root = setup_ws(tmp_path / name, task)
        applied = apply_candidate(task, cand, root)
        assert applied.method == "files"
        assert tree(root) == {"src/pkg/mod.py": "def answer():\n    return 42\n"}
        assert applied.changed == set(files)


def test_files_candidate_writes_and_deletes(tmp_path: Path) -> None:
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    cand = Candidate.files(
        {
            "src/pkg/mod.py": "def answer():\n    return 42\n",
            "src/pkg/new/helper.py": "h = 1\n",
            "old.txt": None,
            "never-existed.txt": None,
        }
    )
    applied = apply_candidate(task, cand, root)
    assert applied.method == "files"
    assert applied.changed == {"src/pkg/mod.py", "src/pkg/new/helper.py", "old.txt"}
    assert (root / "src/pkg/mod.py").read_text() == "def answer():\n    return 42\n"
    assert (root / "src/pkg/new/helper.py").read_text() == "h = 1\n"
    assert not (root / "old.txt").exists()
    assert not (root / "never-existed.txt").exists()


def test_files_candidate_rewriting_a_file_unchanged_does_not_count_as_a_change(tmp_path: Path) -> None:
    """Regression: a ``directory()`` candidate rewrites every file, the original conftest.py included.

    Counting identical rewrites as changes made every such candidate fail under ``reject`` on any task
    that has a conftest.py, and filled ``changed_files`` with untouched files.
    """
    task = make_task({"conftest.py": "x = 1\n", "mod.py": "v = 1\n"})
    root = setup_ws(tmp_path, task)
    cand = Candidate.files({"conftest.py": "x = 1\n", "mod.py": "v = 2\n"})
    applied = apply_candidate(task, cand, root)
    assert applied.changed == {"mod.py"}
    assert guard_test_config(task, applied, root, ConfigPolicy.REJECT) == []


def test_files_candidate_onto_a_directory_raises(tmp_path: Path) -> None:
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    with pytest.raises(PatchError, match="is a directory") as exc:
        apply_candidate(task, Candidate.files({"src/pkg": "oops\n"}), root)
    assert_one_line(exc.value)


def test_files_candidate_under_an_existing_file_is_a_patch_error(tmp_path: Path) -> None:
    """Regression: writing ``old.txt/x.py`` where ``old.txt`` is a file raised a bare OSError.

    The harness turns OSError into ``infra_error``, so a candidate's own mistake would be excluded from
    scoring instead of failing as ``patch_failed``.
    """
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    with pytest.raises(PatchError) as exc:
        apply_candidate(task, Candidate.files({"old.txt/x.py": "x = 1\n"}), root)
    assert_one_line(exc.value)


# --- safety --------------------------------------------------------------------------------------


def test_diff_with_dotdot_path_is_refused(tmp_path: Path) -> None:
    patch = """\
--- a/../escaped.txt
+++ b/../escaped.txt
@@ -0,0 +1 @@
+pwned
"""
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    with pytest.raises(PatchError, match="unsafe path") as exc:
        apply_candidate(task, Candidate.diff(patch), root)
    assert_one_line(exc.value)
    assert not (tmp_path / "escaped.txt").exists()
    assert tree(root) == BASE


def test_diff_with_dotdot_inside_the_path_is_refused(tmp_path: Path) -> None:
    patch = "--- a/src/../../x\n+++ b/src/../../x\n@@ -0,0 +1 @@\n+pwned\n"
    with pytest.raises(PatchError, match="leaves the workspace"):
        patch_paths(patch)


def test_diff_with_absolute_path_is_refused(tmp_path: Path) -> None:
    patch = """\
--- a/old.txt
+++ /etc/passwd
@@ -1,2 +1,2 @@
-a
+root::0:0::/root:/bin/sh
 b
"""
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    with pytest.raises(PatchError, match="absolute path") as exc:
        apply_candidate(task, Candidate.diff(patch), root)
    assert_one_line(exc.value)
    assert tree(root) == BASE


def test_diff_creating_a_symlink_is_refused(tmp_path: Path) -> None:
    patch = """\
diff --git a/link b/link
new file mode 120000
--- /dev/null
+++ b/link
@@ -0,0 +1 @@
+/etc/passwd
\\ No newline at end of file
"""
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    with pytest.raises(PatchError, match="symlink") as exc:
        apply_candidate(task, Candidate.diff(patch), root)
    assert_one_line(exc.value)
    assert not (root / "link").is_symlink()


def test_diff_adding_a_submodule_is_refused() -> None:
    patch = "diff --git a/sub b/sub\nnew file mode 160000\nindex 0000000..1234567\n"
    with pytest.raises(PatchError, match="submodule"):
        patch_paths(patch)


def test_files_candidate_through_a_symlinked_directory_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    (root / "sub").symlink_to(outside)
    with pytest.raises(PatchError, match="symlink") as exc:
        apply_candidate(task, Candidate.files({"sub/x.py": "pwned\n"}), root)
    assert_one_line(exc.value)
    assert list(outside.iterdir()) == []


def test_diff_through_a_symlinked_directory_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    (root / "sub").symlink_to(outside)
    patch = "--- /dev/null\n+++ b/sub/x.py\n@@ -0,0 +1 @@\n+pwned\n"
    with pytest.raises(PatchError, match="symlink"):
        apply_candidate(task, Candidate.diff(patch), root)
    assert list(outside.iterdir()) == []


def test_workspace_symlink_pointing_outside_after_applying_is_refused(tmp_path: Path) -> None:
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    (root / "escape").symlink_to("/etc")
    with pytest.raises(PatchError, match="escape points outside the workspace") as exc:
        apply_candidate(task, Candidate.diff(FIX_MOD), root)
    assert_one_line(exc.value)


def test_workspace_symlink_pointing_inside_is_accepted(tmp_path: Path) -> None:
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    (root / "alias").symlink_to("src/pkg")
    (root / "self").symlink_to(".")
    applied = apply_candidate(task, Candidate.diff(FIX_MOD), root)
    assert applied.method == "git-apply"


def test_patch_paths_strips_a_b_prefixes() -> None:
    assert patch_paths(FIX_MOD) == {"src/pkg/mod.py"}


def test_patch_paths_keeps_a_directory_literally_named_a_or_b() -> None:
    patch = "diff --git a/b/x.py b/b/x.py\n--- a/b/x.py\n+++ b/b/x.py\n@@ -1 +1 @@\n-1\n+2\n"
    assert patch_paths(patch) == {"b/x.py"}


def test_patch_paths_ignores_dev_null_for_new_and_deleted_files() -> None:
    new = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x\n"
    gone = "--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
    assert patch_paths(new) == {"new.py"}
    assert patch_paths(gone) == {"gone.py"}


def test_patch_paths_ignores_timestamps_after_a_tab() -> None:
    patch = "--- a/x.py\t2024-01-01 00:00:00\n+++ b/x.py\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-1\n+2\n"
    assert patch_paths(patch) == {"x.py"}


def test_patch_paths_reports_both_sides_of_a_rename() -> None:
    patch = """\
diff --git a/src/old_name.py b/src/new_name.py
similarity index 90%
rename from src/old_name.py
rename to src/new_name.py
--- a/src/old_name.py
+++ b/src/new_name.py
@@ -1 +1 @@
-x = 1
+x = 2
"""
    assert patch_paths(patch) == {"src/old_name.py", "src/new_name.py"}


def test_patch_paths_refuses_text_without_diff_headers() -> None:
    with pytest.raises(PatchError, match="not a unified diff") as exc:
        patch_paths("I fixed the bug by changing line 3.\n@@ -1 +1 @@\n-a\n+b\n")
    assert_one_line(exc.value)


def test_apply_candidate_refuses_text_without_diff_headers(tmp_path: Path) -> None:
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    with pytest.raises(PatchError, match="not a unified diff"):
        apply_candidate(task, Candidate.diff("just some prose\n"), root)
    assert tree(root) == BASE


def test_apply_patch_calls_restore_between_attempts(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    materialise([FileEntry(path=p, content=c) for p, c in BASE.items()], root)
    calls: list[int] = []

    def restore() -> None:
        calls.append(1)
        shutil.rmtree(root)
        materialise([FileEntry(path=p, content=c) for p, c in BASE.items()], root)

    applied = apply_patch(root, SHIFTED_CONTEXT, restore=restore)
    assert applied.method == "patch-fuzz"
    assert len(calls) == 2  # after git apply, after git apply --3way


# --- guard_test_config ---------------------------------------------------------------------------

PYPROJECT = """\
[project]
name = "demo"
version = "1.0"

[tool.pytest.ini_options]
addopts = "-q"
"""
SETUP_CFG = """\
[metadata]
name = demo

[tool:pytest]
addopts = -q
"""
TOX_INI = """\
[testenv]
deps = pytest

[pytest]
addopts = -q
"""
GUARD_WS = {
    "src/pkg/__init__.py": "",
    "src/pkg/mod.py": "v = 1\n",
    "tests/conftest.py": "ORIGINAL = True\n",
    "tests/unit/test_old.py": "def test_old():\n    pass\n",
    "pyproject.toml": PYPROJECT,
    "setup.cfg": SETUP_CFG,
    "tox.ini": TOX_INI,
}
HIDDEN = {"tests/unit/test_hidden.py": "def test_hidden():\n    assert True\n"}


def guard_case(
    tmp_path: Path, files: dict[str, str | None], policy: ConfigPolicy = ConfigPolicy.STRIP
) -> tuple[Path, list[str]]:
    task = make_task(GUARD_WS, hidden=HIDDEN)
    root = setup_ws(tmp_path, task)
    applied = apply_candidate(task, Candidate.files(files), root)
    return root, guard_test_config(task, applied, root, policy)


def test_guard_removes_a_conftest_the_candidate_added(tmp_path: Path) -> None:
    root, bad = guard_case(tmp_path, {"tests/unit/conftest.py": "import os\n"})
    assert bad == ["tests/unit/conftest.py"]
    assert not (root / "tests/unit/conftest.py").exists()


def test_guard_restores_an_original_conftest_the_candidate_modified(tmp_path: Path) -> None:
    root, bad = guard_case(tmp_path, {"tests/conftest.py": "def pytest_collection_modifyitems(): ...\n"})
    assert bad == ["tests/conftest.py"]
    assert (root / "tests/conftest.py").read_text() == "ORIGINAL = True\n"


def test_guard_restores_an_original_conftest_the_candidate_deleted(tmp_path: Path) -> None:
    root, bad = guard_case(tmp_path, {"tests/conftest.py": None})
    assert bad == ["tests/conftest.py"]
    assert (root / "tests/conftest.py").read_text() == "ORIGINAL = True\n"


@pytest.mark.parametrize(
    "path",
    [
        "pytest.ini",
        ".pytest.ini",
        "tests/pytest.ini",
        "pytest.toml",
        ".pytest.toml",
        "src/evil.pth",
        "sitecustomize.py",
        "src/usercustomize.py",
    ],
)
def test_guard_removes_added_test_configuration_files(tmp_path: Path, path: str) -> None:
    root, bad = guard_case(tmp_path, {path: "[pytest]\naddopts = -p evil\n", "src/pkg/mod.py": "v = 2\n"})
    assert bad == [path]
    assert not (root / path).exists()
    assert (root / "src/pkg/mod.py").read_text() == "v = 2\n"  # the real fix is kept


def test_guard_blocks_init_py_added_in_a_hidden_test_directory(tmp_path: Path) -> None:
    root, bad = guard_case(tmp_path, {"tests/unit/__init__.py": "", "tests/__init__.py": ""})
    assert bad == ["tests/__init__.py", "tests/unit/__init__.py"]
    assert not (root / "tests/unit/__init__.py").exists()
    assert not (root / "tests/__init__.py").exists()


def test_guard_allows_init_py_added_in_a_source_directory(tmp_path: Path) -> None:
    """In a source directory, yes; in the hidden tests' test tree (``tests/``), never (since round
    twenty-five's session: see test_guard_restores_changes_inside_the_hidden_tests_test_tree)."""
    root, bad = guard_case(tmp_path, {"src/pkg/sub/__init__.py": "", "tests/unitx/__init__.py": ""})
    assert bad == ["tests/unitx/__init__.py"]
    assert (root / "src/pkg/sub/__init__.py").exists()
    assert not (root / "tests/unitx/__init__.py").exists()


def test_guard_blocks_root_init_py_when_hidden_tests_sit_at_the_root(tmp_path: Path) -> None:
    """Regression: the workspace root is the directory holding ``test_root.py``.

    An ``__init__.py`` there turns the root into a package and changes how pytest imports the hidden
    test; it was missed because only non-empty directory names were collected.
    """
    task = make_task({"mod.py": "v = 1\n"}, hidden={"test_root.py": "def test_r():\n    pass\n"})
    root = setup_ws(tmp_path, task)
    applied = apply_candidate(task, Candidate.files({"__init__.py": ""}), root)
    assert guard_test_config(task, applied, root, ConfigPolicy.STRIP) == ["__init__.py"]
    assert not (root / "__init__.py").exists()


def test_guard_restores_pyproject_when_the_pytest_section_changed(tmp_path: Path) -> None:
    changed = PYPROJECT.replace('addopts = "-q"', 'addopts = "-p evil"') + 'extra = "kept?"\n'
    root, bad = guard_case(tmp_path, {"pyproject.toml": changed})
    assert bad == ["pyproject.toml"]
    assert (root / "pyproject.toml").read_text() == PYPROJECT


def test_guard_restores_pyproject_when_a_tool_pytest_table_is_added(tmp_path: Path) -> None:
    root, bad = guard_case(tmp_path, {"pyproject.toml": PYPROJECT + '\n[tool.pytest]\naddopts = ["-x"]\n'})
    assert bad == ["pyproject.toml"]
    assert (root / "pyproject.toml").read_text() == PYPROJECT


def test_guard_keeps_a_pyproject_change_outside_the_pytest_section(tmp_path: Path) -> None:
    changed = PYPROJECT.replace('version = "1.0"', 'version = "1.1"\ndependencies = ["attrs"]')
    root, bad = guard_case(tmp_path, {"pyproject.toml": changed})
    assert bad == []
    assert (root / "pyproject.toml").read_text() == changed


def test_guard_restores_an_unparseable_pyproject(tmp_path: Path) -> None:
    root, bad = guard_case(tmp_path, {"pyproject.toml": "[tool.pytest.ini_options\n"})
    assert bad == ["pyproject.toml"]
    assert (root / "pyproject.toml").read_text() == PYPROJECT


def test_guard_removes_a_new_pyproject_with_a_pytest_section(tmp_path: Path) -> None:
    root, bad = guard_case(tmp_path, {"tests/pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-x'\n"})
    assert bad == ["tests/pyproject.toml"]
    assert not (root / "tests/pyproject.toml").exists()


def test_guard_keeps_a_new_pyproject_without_a_pytest_section(tmp_path: Path) -> None:
    root, bad = guard_case(tmp_path, {"src/pyproject.toml": "[project]\nname = 'x'\n"})
    assert bad == []
    assert (root / "src/pyproject.toml").exists()


def test_guard_restores_setup_cfg_when_tool_pytest_changed(tmp_path: Path) -> None:
    root, bad = guard_case(tmp_path, {"setup.cfg": SETUP_CFG.replace("addopts = -q", "addopts = -p evil")})
    assert bad == ["setup.cfg"]
    assert (root / "setup.cfg").read_text() == SETUP_CFG


def test_guard_keeps_a_setup_cfg_change_outside_tool_pytest(tmp_path: Path) -> None:
    changed = SETUP_CFG.replace("name = demo", "name = demo\nversion = 2")
    root, bad = guard_case(tmp_path, {"setup.cfg": changed})
    assert bad == []
    assert (root / "setup.cfg").read_text() == changed


def test_guard_restores_tox_ini_when_the_pytest_section_changed(tmp_path: Path) -> None:
    root, bad = guard_case(tmp_path, {"tox.ini": TOX_INI.replace("addopts = -q", "addopts = -p evil")})
    assert bad == ["tox.ini"]
    assert (root / "tox.ini").read_text() == TOX_INI


def test_guard_keeps_a_tox_ini_change_outside_the_pytest_section(tmp_path: Path) -> None:
    changed = TOX_INI.replace("deps = pytest", "deps = pytest\n    attrs")
    root, bad = guard_case(tmp_path, {"tox.ini": changed})
    assert bad == []
    assert (root / "tox.ini").read_text() == changed


def test_guard_restores_a_deleted_pyproject_that_had_a_pytest_section(tmp_path: Path) -> None:
    root, bad = guard_case(tmp_path, {"pyproject.toml": None})
    assert bad == ["pyproject.toml"]
    assert (root / "pyproject.toml").read_text() == PYPROJECT


def test_guard_ignores_ordinary_source_changes(tmp_path: Path) -> None:
    """A source change stays; a change to a test of the hidden tests' tree is restored (since round
    twenty-five's session)."""
    root, bad = guard_case(tmp_path, {"src/pkg/mod.py": "v = 2\n", "tests/unit/test_old.py": "x = 1\n"})
    assert bad == ["tests/unit/test_old.py"]
    assert (root / "src/pkg/mod.py").read_text() == "v = 2\n"


def test_guard_reject_leaves_files_as_they_are_and_names_them(tmp_path: Path) -> None:
    files: dict[str, str | None] = {
        "tests/conftest.py": "CHANGED = True\n",
        "tests/unit/conftest.py": "NEW = True\n",
        "pytest.ini": "[pytest]\n",
        "tox.ini": TOX_INI.replace("addopts = -q", "addopts = -x"),
        "src/pkg/mod.py": "v = 2\n",
    }
    root, bad = guard_case(tmp_path, files, ConfigPolicy.REJECT)
    assert bad == ["pytest.ini", "tests/conftest.py", "tests/unit/conftest.py", "tox.ini"]
    for path, content in files.items():
        assert (root / path).read_text() == content


def test_guard_restores_a_binary_original_byte_for_byte(tmp_path: Path) -> None:
    """Regression: a non-UTF-8 original (stored base64) was restored as its base64 text."""
    raw = "# café\nX = 1\n".encode("latin-1")
    task = Task(
        id="t1",
        workspace=(FileEntry.from_bytes("conftest.py", raw, executable=True),),
        test=TestSpec(commands=(TestCommand(argv=("pytest",)),)),
    )
    assert task.workspace[0].encoding == "base64"
    root = setup_ws(tmp_path, task)
    applied = apply_candidate(task, Candidate.files({"conftest.py": "EVIL = 1\n"}), root)
    assert guard_test_config(task, applied, root, ConfigPolicy.STRIP) == ["conftest.py"]
    assert (root / "conftest.py").read_bytes() == raw
    assert (root / "conftest.py").stat().st_mode & stat.S_IXUSR


def test_guard_restores_a_conftest_whose_directory_became_a_file(tmp_path: Path) -> None:
    """Regression: a diff may delete ``tests/conftest.py`` and create a *file* named ``tests``.

    Restoring the conftest then failed with an OSError, which the harness reports as ``infra_error``:
    the candidate escaped a failing verdict.
    """
    task = make_task(
        {"tests/conftest.py": "x = 1\n"}, hidden={"tests/test_a.py": "def test_a():\n    pass\n"}
    )
    root = setup_ws(tmp_path, task)
    patch = """\
diff --git a/tests/conftest.py b/tests/conftest.py
deleted file mode 100644
--- a/tests/conftest.py
+++ /dev/null
@@ -1 +0,0 @@
-x = 1
diff --git a/tests b/tests
new file mode 100644
--- /dev/null
+++ b/tests
@@ -0,0 +1 @@
+now a file
"""
    applied = apply_candidate(task, Candidate.diff(patch), root)
    assert (root / "tests").is_file()
    assert guard_test_config(task, applied, root, ConfigPolicy.STRIP) == ["tests/conftest.py"]
    assert (root / "tests/conftest.py").read_text() == "x = 1\n"


# --- inject_tests --------------------------------------------------------------------------------


def hidden_entries() -> list[FileEntry]:
    return [FileEntry(path=p, content=c) for p, c in HIDDEN.items()]


def test_inject_overwrites_the_candidates_edit_of_a_hidden_test(tmp_path: Path) -> None:
    task = make_task(GUARD_WS, hidden=HIDDEN)
    root = setup_ws(tmp_path, task)
    apply_candidate(
        task, Candidate.files({"tests/unit/test_hidden.py": "def test_hidden():\n    pass\n"}), root
    )
    inject_tests(task.hidden_tests, root)
    assert (root / "tests/unit/test_hidden.py").read_text() == HIDDEN["tests/unit/test_hidden.py"]


def test_inject_replaces_a_directory_at_a_test_path(tmp_path: Path) -> None:
    (tmp_path / "tests/unit/test_hidden.py/inner").mkdir(parents=True)
    (tmp_path / "tests/unit/test_hidden.py/inner/f.txt").write_text("x")
    inject_tests(hidden_entries(), tmp_path)
    assert (tmp_path / "tests/unit/test_hidden.py").read_text() == HIDDEN["tests/unit/test_hidden.py"]


def test_inject_replaces_a_symlink_at_a_test_path_without_writing_through_it(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "tests/unit").mkdir(parents=True)
    target = tmp_path / "outside.py"
    target.write_text("untouched\n")
    (root / "tests/unit/test_hidden.py").symlink_to(target)
    inject_tests(hidden_entries(), root)
    dest = root / "tests/unit/test_hidden.py"
    assert not dest.is_symlink()
    assert dest.read_text() == HIDDEN["tests/unit/test_hidden.py"]
    assert target.read_text() == "untouched\n"


def test_inject_replaces_a_symlinked_parent_directory(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    outside = tmp_path / "outside"
    (outside / "unit").mkdir(parents=True)
    (root / "tests").symlink_to(outside)
    inject_tests(hidden_entries(), root)
    assert not (root / "tests").is_symlink()
    assert (root / "tests/unit/test_hidden.py").read_text() == HIDDEN["tests/unit/test_hidden.py"]
    assert list((outside / "unit").iterdir()) == []


def test_inject_replaces_a_file_sitting_at_a_parent_directory(tmp_path: Path) -> None:
    (tmp_path / "tests").write_text("a file, not a directory\n")
    inject_tests(hidden_entries(), tmp_path)
    assert (tmp_path / "tests/unit/test_hidden.py").read_text() == HIDDEN["tests/unit/test_hidden.py"]


def test_inject_keeps_the_executable_bit(tmp_path: Path) -> None:
    inject_tests([FileEntry(path="tests/run.sh", content="#!/bin/sh\n", executable=True)], tmp_path)
    assert (tmp_path / "tests/run.sh").stat().st_mode & 0o111 == 0o111


# --- unified_diff --------------------------------------------------------------------------------

DIFF_CASES: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "modified": (
        {"src/a.py": "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n", "same.txt": "same\n"},
        {"src/a.py": "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\nEIGHT\n", "same.txt": "same\n"},
    ),
    "added": ({"keep.txt": "k\n"}, {"keep.txt": "k\n", "new/dir/b.py": "x = 1\ny = 2\n"}),
    "deleted": ({"keep.txt": "k\n", "gone.py": "bye\n"}, {"keep.txt": "k\n"}),
    "old_without_trailing_newline": ({"f.txt": "a\nb"}, {"f.txt": "a\nB\n"}),
    "new_without_trailing_newline": ({"f.txt": "a\nb\n"}, {"f.txt": "a\nb\nc"}),
    "both_without_trailing_newline": ({"f.txt": "a\nb\nc"}, {"f.txt": "A\nb\nc"}),
    "added_without_trailing_newline": ({}, {"f.txt": "no newline"}),
    "deleted_without_trailing_newline": ({"f.txt": "no newline"}, {}),
    "form_feed_and_other_unicode_line_breaks": (
        {"f.py": "a = 1\n\x0c\nb = 2\x0bc\u2028d\x1c\n"},
        {"f.py": "a = 1\n\x0c\nb = 3\x0bc\u2028d\x1c\n"},
    ),
    "lone_carriage_return": ({"f.txt": "a\rb\nc\n"}, {"f.txt": "a\rb\nC\n"}),
    "crlf": ({"f.txt": "a\r\nb\r\nc\r\n"}, {"f.txt": "a\r\nB\r\nc\r\n"}),
    "space_in_path": ({"my dir/my file.txt": "a\n"}, {"my dir/my file.txt": "b\n", "new dir/n.txt": "n\n"}),
    "empty_file_added": ({}, {"e.txt": ""}),
    "empty_file_deleted": ({"e.txt": "", "k.txt": "k\n"}, {"k.txt": "k\n"}),
    "emptied": ({"e.txt": "x\n"}, {"e.txt": ""}),
}


def write_tree(root: Path, files: dict[str, str]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content.encode("utf-8"))


def read_tree_bytes(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            p = Path(dirpath) / name
            out[p.relative_to(root).as_posix()] = p.read_bytes().decode("utf-8")
    return out


@pytest.mark.parametrize("tool", ["patch", "git"])
@pytest.mark.parametrize("case", sorted(DIFF_CASES))
def test_unified_diff_applies_with_patch_and_git(tmp_path: Path, case: str, tool: str) -> None:
    """Regression cases included: ``str.splitlines`` breaks lines at ``\\f``/``\\v``/``\\r``/U+2028 where
    patch does not (a corrupt diff); names with spaces need a tab after them for ``patch``; an empty
    file's deletion needs an ``index`` line or ``patch`` reverses it."""
    old, new = DIFF_CASES[case]
    diff = unified_diff(old, new)
    assert diff.endswith("\n")
    root = tmp_path / "ws"
    write_tree(root, old)
    patch_file = tmp_path / "x.diff"
    patch_file.write_bytes(diff.encode("utf-8"))
    if tool == "patch":
        argv = ["patch", "-p1", "--batch", "--forward", "-i", str(patch_file)]
    else:
        argv = ["git", "apply", "-p1", str(patch_file)]
    env = {"PATH": os.environ["PATH"], "GIT_CEILING_DIRECTORIES": str(tmp_path), "HOME": str(tmp_path)}
    r = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert read_tree_bytes(root) == new


def test_unified_diff_is_empty_for_identical_trees() -> None:
    assert unified_diff({"a": "x\n"}, {"a": "x\n"}) == ""


def test_unified_diff_headers_and_paths_parse_back() -> None:
    old, new = DIFF_CASES["modified"]
    diff = unified_diff(old, new)
    assert diff.startswith("diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n")
    assert patch_paths(diff) == {"src/a.py"}
    added = unified_diff({}, {"n.py": "x\n"})
    assert "new file mode 100644\n--- /dev/null\n+++ b/n.py\n" in added
    deleted = unified_diff({"n.py": "x\n"}, {})
    assert "deleted file mode 100644\n--- a/n.py\n+++ /dev/null\n" in deleted


def test_unified_diff_round_trips_through_apply_candidate(tmp_path: Path) -> None:
    new = {**BASE, "src/pkg/mod.py": "def answer():\n    return 42\n", "added.txt": "hi\n"}
    del new["old.txt"]
    task = make_task(BASE, gold=unified_diff(BASE, new))
    root = setup_ws(tmp_path, task)
    applied = apply_candidate(task, Candidate.gold(), root)
    assert applied.method == "git-apply"
    assert applied.changed == {"src/pkg/mod.py", "added.txt", "old.txt"}
    assert tree(root) == new


# --- guard: attacks found by the adversarial battery (tests/audit/test_attacks.py) ----------------


def _guard_task(files: dict[str, str], hidden: dict[str, str]) -> Task:
    return Task(
        id="guard",
        workspace=tuple(FileEntry(path=k, content=v) for k, v in files.items()),
        hidden_tests=tuple(FileEntry(path=k, content=v) for k, v in hidden.items()),
        test=TestSpec(commands=(TestCommand(argv=("true",)),)),
    )


POM = (
    "<project><build><plugins><plugin><artifactId>maven-compiler-plugin</artifactId></plugin></plugins>"
    "</build><dependencies></dependencies></project>\n"
)
CARGO = '[package]\nname = "x"\nversion = "0.1.0"\n\n[dependencies]\n'


@pytest.mark.parametrize(
    ("rel", "content", "blocked"),
    [
        # a decoy test source directory hides the hidden tests from Maven
        (
            "pom.xml",
            POM.replace("<build>", "<build><testSourceDirectory>src/decoy</testSourceDirectory>"),
            True,
        ),
        (
            "pom.xml",
            POM.replace("<dependencies></dependencies>", "<dependencies><dependency/></dependencies>"),
            False,
        ),
        # a fake cargo test target replaces tests/paging.rs
        ("Cargo.toml", CARGO + '\n[[test]]\nname = "paging"\npath = "src/fake.rs"\nharness = false\n', True),
        ("Cargo.toml", CARGO + 'serde = "1"\n', False),
        # round fifteen: nightly cargo features (RUSTC_BOOTSTRAP is set for the test phase) pass compiler
        # flags to every crate of the test build, as .cargo/config.toml would
        ("Cargo.toml", 'cargo-features = ["profile-rustflags"]\n' + CARGO, True),
        ("Cargo.toml", CARGO + '\n[profile.dev]\nrustflags = ["--cfg", "pb_probe"]\n', True),
        ("Cargo.toml", CARGO + '\n[profile.dev.package."*"]\nrustflags = ["--cfg", "x"]\n', True),
        ("Cargo.toml", CARGO + "\n[profile.dev]\nopt-level = 1\n", False),
        # shadowing the suite's imports from a tests-only directory, or pytest itself from the root
        ("tests/json.py", "print('ok 1 - forged')\n", True),
        ("pytest/__main__.py", "raise SystemExit(0)\n", True),
        ("_pytest.py", "", True),
        # round twenty: what pytest imports at start-up, shadowed from the root (a package or a module)
        ("pygments/__init__.py", "", True),
        ("packaging.py", "", True),
        # a directory of that name holding no Python shadows nothing (distribution scripts)
        ("packaging/debian/rules", "", False),
        # round twenty-one: an extension module shadows as a .py would (pytest imported the .so)
        ("pluggy.cpython-311-x86_64-linux-gnu.so", "", True),
        ("pygments/__init__.abi3.so", "", True),
        ("native.cpython-311-x86_64-linux-gnu.so", "", False),
        # round twenty-one: Maven's test class path (before the main classes) and Surefire's properties
        ("src/test/resources/recon/Reconciler.class", "\xca\xfe", True),
        ("src/test/resources/recon/amounts-by-value", "1\n", True),
        ("src/main/resources/recon/rates.properties", "a=1\n", False),
        (
            "pom.xml",
            POM.replace("<build>", "<properties><argLine>-Dfix=on</argLine></properties><build>"),
            True,
        ),
        (
            "pom.xml",
            POM.replace("<build>", "<properties><surefire.foo>1</surefire.foo></properties><build>"),
            True,
        ),
        (
            "pom.xml",
            POM.replace("<build>", "<properties><java.version>17</java.version></properties><build>"),
            False,
        ),
        # round twenty-one: a dev-dependency on the package itself (a feature for cargo test only)
        ("Cargo.toml", CARGO + '\n[dev-dependencies]\nx = { path = ".", features = ["fix"] }\n', True),
        ("Cargo.toml", CARGO + "\n[target.'cfg(unix)'.dev-dependencies]\ny = { path = \"y\" }\n", True),
        ("Cargo.toml", CARGO + '\n[dev-dependencies]\nserde = "1"\n', False),
        # round twenty-three: a proc-macro crate (a path dependency) runs in rustc while the tests compile;
        # the task has a Cargo.toml, so a new crate of that kind is no project of the candidate's own
        ("macros/Cargo.toml", '[package]\nname = "m"\nversion = "0.1.0"\n\n[lib]\nproc-macro = true\n', True),
        ("Cargo.toml", CARGO + "\n[lib]\nproc-macro = true\n", True),
        ("helpers/Cargo.toml", '[package]\nname = "h"\nversion = "0.1.0"\n', False),
        # round twenty-four: the JavaScript test tools' configuration (setup files, reporters, aliases)
        ("vitest.config.mts", "export default { test: { setupFiles: ['./s.ts'] } };\n", True),
        ("vite.config.ts", "export default { resolve: { alias: { './index': './shim' } } };\n", True),
        ("packages/a/jest.config.js", "module.exports = { setupFiles: ['./s.js'] };\n", True),
        (".mocharc.yml", "require: ./s.js\n", True),
        ("babel.config.js", "module.exports = { plugins: ['./p.js'] };\n", True),
        ("src/vitest.configure.ts", "export const x = 1;\n", False),
        # a test file of one's own beside the hidden tests (Go TestMain printing forged results)
        ("pkg/zz_attack_test.go", "package pkg\n", True),
        # an ordinary new source file is fine
        ("pkg/helper.go", "package pkg\n", False),
    ],
)
def test_guard_blocks_test_configuration_attacks(
    tmp_path: Path, rel: str, content: str, blocked: bool
) -> None:
    """Each blocked case earned full reward before the guard knew it (see the attack battery)."""
    task = _guard_task(
        {"pom.xml": POM, "Cargo.toml": CARGO, "pkg/code.go": "package pkg\n"},
        {"tests/run_tests.py": "print(1)\n", "pkg/code_test.go": "package pkg\n"},
    )
    root = tmp_path / "ws"
    materialise(task.workspace, root)
    applied = apply_candidate(task, Candidate.files({rel: content}), root)
    assert (config_violations(task, applied.changed, root) == [rel]) is blocked


@pytest.mark.parametrize(
    ("files", "blocked"),
    [
        ({"shlex.py": "import sys\n"}, ["shlex.py"]),  # the root: first on sys.path under python -m pytest
        ({"shlex/__init__.py": ""}, ["shlex/__init__.py"]),
        ({"json.cpython-311-x86_64-linux-gnu.so": ""}, ["json.cpython-311-x86_64-linux-gnu.so"]),  # round 21
        ({"shlex/__init__.abi3.so": ""}, ["shlex/__init__.abi3.so"]),
        ({"src/json.py": ""}, ["src/json.py"]),  # a directory that is no package: maybe a PYTHONPATH entry
        (
            {"pkg/json.py": "", "pkg/sub/__init__.py": "", "pkg/sub/types.py": ""},
            [],
        ),  # pkg.json, pkg.sub.types
        ({"types.py": "X = 2\n"}, []),  # the repository's own module of that name, changed
        ({"test.py": "", "helpers.py": ""}, []),  # the stdlib's test suite no run imports; no stdlib name
    ],
)
def test_guard_blocks_new_top_level_modules_named_like_the_standard_library(
    tmp_path: Path, files: dict[str, str], blocked: list[str]
) -> None:
    """Round nineteen (rt18-py-stdlib-shadow-flips-listed-and-copies): a root ``shlex.py``, imported by
    pytest at start-up in place of the standard one (the cwd is first on ``sys.path``), rewrote the listed
    tests' outcomes before any harness plugin loaded. A new module or package named like a standard-library
    module where it may be a top-level import (the root, a directory that is no package) is test
    configuration; inside a package it is the package's own; for a Go task it is nothing Python runs."""
    task = _guard_task(
        {"types.py": "X = 1\n", "pkg/__init__.py": "", "pkg/code.py": ""}, {"tests/test_x.py": ""}
    )
    root = tmp_path / "ws"
    materialise(task.workspace, root)
    applied = apply_candidate(task, Candidate.files(files), root)
    assert config_violations(task, applied.changed, root) == blocked
    go = task.model_copy(update={"language": "go"})
    assert config_violations(go, applied.changed, root) == []


def test_a_new_pom_is_the_candidates_project_unless_it_moves_the_tests(tmp_path: Path) -> None:
    """Seed 003 starts from an empty /app: the candidate's own pom.xml must survive the guard, but not one
    that points Maven at a decoy test directory."""
    task = _guard_task({}, {"TestSolution.java": "class TestSolution {}\n"})
    for pom, blocked in (
        (POM, False),
        (POM.replace("<build>", "<build><testSourceDirectory>x</testSourceDirectory>"), True),
    ):
        root = tmp_path / str(blocked)
        root.mkdir()
        applied = apply_candidate(task, Candidate.files({"pom.xml": pom}), root)
        assert (config_violations(task, applied.changed, root) == ["pom.xml"]) is blocked


def test_a_proc_macro_crate_is_the_candidates_own_only_in_a_task_without_a_cargo_project(
    tmp_path: Path,
) -> None:
    """An empty /app: a candidate's own workspace may hold a proc-macro crate; a task with a Cargo.toml
    gets none added (round twenty-three: its expansion rewrote the hidden tests while they compiled)."""
    macro = '[package]\nname = "m"\nversion = "0.1.0"\n\n[lib]\nproc-macro = true\n'
    for base, blocked in (({}, False), ({"Cargo.toml": CARGO}, True)):
        task = _guard_task(base, {"tests/t.rs": "#[test]\nfn t() {}\n"})
        root = tmp_path / str(blocked)
        root.mkdir()
        materialise(task.workspace, root)
        applied = apply_candidate(task, Candidate.files({"macros/Cargo.toml": macro}), root)
        assert (config_violations(task, applied.changed, root) == ["macros/Cargo.toml"]) is blocked


def test_an_image_link_out_of_the_workspace_may_stay_but_not_be_added_or_retargeted(tmp_path: Path) -> None:
    """A Harbor image's own ``ln -s /data data`` (named in ``own_links``) no longer fails every patch."""
    task = make_task(BASE)
    root = setup_ws(tmp_path, task)
    (root / "data").symlink_to("/data")
    own = {"data": "/data"}
    applied = apply_candidate(task, Candidate.diff(FIX_MOD), root, own_links=own)
    assert applied.method == "git-apply"
    root = setup_ws(tmp_path / "again", task)
    (root / "data").symlink_to("/etc")  # the same path, another target: not the image's link
    with pytest.raises(PatchError, match="data points outside the workspace"):
        apply_candidate(task, Candidate.diff(FIX_MOD), root, own_links=own)


# -- read_changed: what the static screen is given ---------------------------------------------------------


def test_read_changed_gives_new_and_original_text(tmp_path: Path) -> None:
    base = Baseline([FileEntry(path="pkg/a.py", content="old\n")])
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/a.py").write_text("new\n")
    (tmp_path / "pkg/b.py").write_text("added\n")
    (tmp_path / "notes.txt").write_text("not source\n")
    got = read_changed(
        {"pkg/a.py", "pkg/b.py", "notes.txt", "gone.py"}, tmp_path, base, limit=100, extensions=(".py",)
    )
    assert [(c.path, c.text, c.before, c.truncated) for c in got] == [
        ("pkg/a.py", "new\n", "old\n", False),
        ("pkg/b.py", "added\n", None, False),
    ]


def test_read_changed_never_follows_a_link_nor_opens_a_fifo(tmp_path: Path) -> None:
    """The candidate wrote these paths: a link to a host file or a FIFO that blocks is never read."""
    secret = tmp_path / "secret.py"
    secret.write_text("host file\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "link.py").symlink_to(secret)
    os.mkfifo(ws / "pipe.py")
    got = read_changed({"link.py", "pipe.py"}, ws, Baseline(), limit=100, extensions=(".py",))
    assert got == []


def test_read_changed_caps_what_it_reads(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_text("x" * 50)
    (got,) = read_changed({"big.py"}, tmp_path, Baseline(), limit=10, extensions=(".py",))
    assert got.text == "x" * 10 and got.truncated


# --- guard: what test tools and interpreters load by themselves (issue 12's red team) ---------------

JUNIT_DEP = (
    "<dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId>"
    "<scope>{scope}</scope></dependency>"
)


@pytest.mark.parametrize(
    ("rel", "content", "blocked"),
    [
        # rt-py-distinfo-pytest11 / rt-py-egginfo-pytest11: [pytest11] entry points from the workspace root
        ("pb_rt-1.0.dist-info/entry_points.txt", "[pytest11]\nx = pb_rt\n", True),
        ("pb_rt.egg-info/entry_points.txt", "[pytest11]\nx = pb_rt\n", True),
        ("src/x.egg-link", "/tmp\n", True),
        # stale byte code runs instead of the source; a sitecustomize package; node's local modules and rc
        ("pkg/__pycache__/code.cpython-311.pyc", "x", True),
        ("sitecustomize/__init__.py", "", True),
        ("node_modules/node-test/index.js", "", True),
        (".npmrc", "node-options=--require ./x.js\n", True),
        # rt-py-shadow-harness-plugin: a module named like the harness's plugin
        ("_patchbench_canary.py", "", True),
        ("src/_patchbench_canary/__init__.py", "", True),
        # rt-java-extension-autodetect / rt-java-shadow-junit-assertions
        (
            "src/main/resources/junit-platform.properties",
            "junit.jupiter.extensions.autodetection.enabled=true\n",
            True,
        ),
        ("src/main/resources/META-INF/services/org.junit.jupiter.api.extension.Extension", "x.Y\n", True),
        # round twenty-three (rt22-java-annotation-processor-*): code javac runs during the main compile
        ("src/main/resources/META-INF/services/javax.annotation.processing.Processor", "x.P\n", True),
        ("src/main/resources/META-INF/services/com.sun.source.util.Plugin", "x.P\n", True),
        ("src/main/resources/META-INF/services/com.acme.Codec", "x.C\n", False),
        ("src/main/java/org/junit/jupiter/api/Assertions.java", "package org.junit.jupiter.api;\n", True),
        ("src/main/java/org/opentest4j/AssertionFailedError.java", "", True),
        # rt-rust-build-rs-edit-tests: a build script runs before the tests compile
        ("build.rs", "fn main() {}\n", True),
        # Go: reaching into testing's internals
        ("pkg/code.go", 'package pkg\n\nimport _ "unsafe"\n\n//go:linkname x testing.x\nvar x int\n', True),
        # round twenty: Rust program code defining a symbol of the test binary (libc's write interposed)
        ("src/lib.rs", '#[no_mangle]\npub extern "C" fn write(fd: i32) -> isize {\n    0\n}\n', True),
        ("src/sink.rs", '#[unsafe(export_name = "write")]\nextern "C" fn w() {}\n', True),
        ("src/init.rs", '#[link_section = ".init_array"]\nstatic I: u8 = 0;\n', True),
        # ordinary program source and data stay
        ("src/lib.rs", "// no_mangle in prose is no attribute\npub fn f() {}\n", False),
        ("src/main/java/com/acme/Lib.java", "package com.acme;\n", False),
        ("src/main/resources/app.properties", "a=1\n", False),
        ("pkg/code.go", "package pkg\n\n// go:linkname in prose is not a directive\n", False),
        ("src/build_rs.py", "", False),
        ("docs/packaging.md", "dist-info\n", False),
    ],
)
def test_guard_blocks_what_test_tools_load_by_themselves(
    tmp_path: Path, rel: str, content: str, blocked: bool
) -> None:
    """Each blocked case is a file a test tool or interpreter loads without being asked; several earned
    reward 1 on every built-in task of their language before the guard knew the class."""
    task = _guard_task(
        {"pom.xml": POM, "Cargo.toml": CARGO, "pkg/code.go": "package pkg\n"},
        {"tests/run_tests.py": "print(1)\n", "pkg/code_test.go": "package pkg\n"},
    )
    root = tmp_path / "ws"
    materialise(task.workspace, root)
    applied = apply_candidate(task, Candidate.files({rel: content}), root)
    assert (config_violations(task, applied.changed, root) == [rel]) is blocked


@pytest.mark.parametrize(
    ("before", "after", "blocked"),
    [
        ("", JUNIT_DEP.format(scope="test"), True),  # a test framework added
        (JUNIT_DEP.format(scope="test"), JUNIT_DEP.format(scope="compile"), True),  # its scope widened
        (JUNIT_DEP.format(scope="test"), JUNIT_DEP.format(scope="test"), False),
        ("", "<dependency><groupId>com.acme</groupId><artifactId>lib</artifactId></dependency>", False),
    ],
)
def test_guard_blocks_test_dependency_changes_in_a_pom(
    tmp_path: Path, before: str, after: str, blocked: bool
) -> None:
    """rt-java-extension-autodetect widened JUnit's scope to compile so main code could hold an extension."""
    pom = POM.replace("<dependencies></dependencies>", "<dependencies>{}</dependencies>")
    task = _guard_task({"pom.xml": pom.format(before)}, {"src/test/java/ATest.java": "class ATest {}\n"})
    root = tmp_path / "ws"
    materialise(task.workspace, root)
    applied = apply_candidate(task, Candidate.files({"pom.xml": pom.format(after) + " "}), root)
    assert (config_violations(task, applied.changed, root) == ["pom.xml"]) is blocked


def test_a_new_cargo_toml_with_nightly_features_or_profile_rustflags_is_blocked(tmp_path: Path) -> None:
    """Round fifteen: a workspace that starts empty takes the candidate's own Cargo.toml, but not one whose
    nightly ``cargo-features`` or profile ``rustflags`` reach the test build (RUSTC_BOOTSTRAP is set)."""
    task = _guard_task({}, {"tests/paging.rs": "#[test]\nfn t() {}\n"})
    for cargo, blocked in (
        (CARGO, False),
        ('cargo-features = ["profile-rustflags"]\n' + CARGO, True),
        (CARGO + '\n[profile.test]\nrustflags = ["-Zcrate-attr=x"]\n', True),
    ):
        root = tmp_path / str(len(cargo))
        root.mkdir()
        applied = apply_candidate(task, Candidate.files({"Cargo.toml": cargo}), root)
        assert (config_violations(task, applied.changed, root) == ["Cargo.toml"]) is blocked


@pytest.mark.parametrize(
    ("files", "blocked"),
    [
        ({"test/fixtures/nested.ts": "Object.assign = () => ({});\n"}, ["test/fixtures/nested.ts"]),
        ({"test/helpers.ts": "export {};\n"}, ["test/helpers.ts"]),  # a new file there too
        ({"src/defu.ts": "export const defu = 2;\n"}, []),  # the program
        ({"pkg/testdata/golden.txt": "forged\n"}, ["pkg/testdata/golden.txt"]),  # Go's fixtures
        ({"docs/test/page.md": "x\n"}, []),  # a test-named directory that holds no hidden test
        ({"test/gold_fixture.ts": "export const x = 2;\n"}, []),  # a path the gold patch changes
    ],
)
def test_guard_restores_changes_inside_the_hidden_tests_test_tree(
    tmp_path: Path, files: dict[str, str], blocked: list[str]
) -> None:
    """Round twenty-five's session (rt25-defu-test-fixture-side-effect-patches-object-assign): the hidden
    test imports ``test/fixtures/nested.ts``; rewritten to patch ``Object.assign``, it fixed the tests with
    the library untouched. A change inside a test tree (``test``, ``tests``, ``__tests__``, ``spec``) that
    holds hidden tests, or in Go's ``testdata``, is test configuration, unless the gold patch changes it."""
    task = _guard_task(
        {
            "src/defu.ts": "export const defu = 1;\n",
            "test/fixtures/nested.ts": "export const nested = {};\n",
            "test/gold_fixture.ts": "export const x = 1;\n",
            "pkg/testdata/golden.txt": "ok\n",
            "docs/test/page.md": "",
        },
        {"test/defu.test.ts": ""},
    )
    gold = (
        "--- a/test/gold_fixture.ts\n+++ b/test/gold_fixture.ts\n"
        "@@ -1 +1 @@\n-export const x = 1;\n+export const x = 2;\n"
    )
    task = task.model_copy(update={"gold_patch": gold})
    root = tmp_path / "ws"
    materialise(task.workspace, root)
    applied = apply_candidate(task, Candidate.files(files), root)
    assert config_violations(task, applied.changed, root) == blocked
