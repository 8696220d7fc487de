"""Candidates: constructors, patch files, edited directories, path validation."""

from __future__ import annotations

from pathlib import Path

import pydantic
import pytest

from patchbench.candidate import Candidate, CandidateKind
from patchbench.errors import InputError, PatchError

DIFF = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"


def assert_one_line(err: BaseException) -> None:
    msg = str(err)
    assert msg
    assert "\n" not in msg


# --- constructors --------------------------------------------------------------------------------


def test_diff_constructor_keeps_the_patch_and_label() -> None:
    c = Candidate.diff(DIFF, label="mine")
    assert c.kind is CandidateKind.DIFF
    assert c.patch == DIFF
    assert c.file_map is None
    assert c.name == "mine"


def test_name_defaults_to_the_kind() -> None:
    assert Candidate.diff(DIFF).name == "diff"
    assert Candidate.gold().name == "gold"
    assert Candidate.empty().name == "empty"
    assert Candidate.wipe().name == "wipe"
    assert Candidate.files({"a.py": "x"}).name == "files"


def test_gold_empty_and_wipe_constructors_carry_no_content() -> None:
    for c, kind in (
        (Candidate.gold(), CandidateKind.GOLD),
        (Candidate.empty(), CandidateKind.EMPTY),
        (Candidate.wipe(), CandidateKind.WIPE),
    ):
        assert c.kind is kind
        assert c.patch is None
        assert c.file_map is None


def test_files_constructor_keeps_contents_and_deletions() -> None:
    c = Candidate.files({"src/a.py": "a = 1\n", "old.py": None}, label="edit")
    assert c.kind is CandidateKind.FILES
    assert c.file_map == {"src/a.py": "a = 1\n", "old.py": None}
    assert c.name == "edit"


def test_files_constructor_normalises_paths() -> None:
    c = Candidate.files({"./src//pkg/../a.py": "x", "win\\style.py": "y"})
    assert c.file_map == {"src/a.py": "x", "win/style.py": "y"}


def test_files_constructor_copies_the_mapping() -> None:
    files: dict[str, str | None] = {"a.py": "x"}
    c = Candidate.files(files)
    files["b.py"] = "y"
    assert c.file_map == {"a.py": "x"}


def test_candidates_are_frozen() -> None:
    c = Candidate.diff(DIFF)
    with pytest.raises(pydantic.ValidationError):
        c.patch = "other"  # type: ignore[misc]


@pytest.mark.parametrize("bad", ["../x", "a/../../x", "/abs", "/etc/passwd", "C:/win", "", ".", "a\x00b"])
def test_files_rejects_unsafe_paths_with_a_one_line_patch_error(bad: str) -> None:
    with pytest.raises(PatchError, match="candidate file") as exc:
        Candidate.files({bad: "x"})
    assert_one_line(exc.value)
    assert isinstance(exc.value, InputError)


def test_files_error_names_the_offending_path() -> None:
    with pytest.raises(PatchError, match=r"'\.\./x'.*leaves the workspace"):
        Candidate.files({"ok.py": "x", "../x": "y"})
    with pytest.raises(PatchError, match=r"'/abs'.*absolute path"):
        Candidate.files({"/abs": "y"})


def test_direct_construction_with_an_unsafe_path_is_refused_too() -> None:
    with pytest.raises(pydantic.ValidationError, match="leaves the workspace"):
        Candidate(kind=CandidateKind.FILES, file_map={"../x": "y"})


# --- from_patch_file -----------------------------------------------------------------------------


def test_from_patch_file_reads_the_diff_and_labels_it_with_the_file_name(tmp_path: Path) -> None:
    p = tmp_path / "fix-123.patch"
    p.write_text(DIFF, encoding="utf-8")
    c = Candidate.from_patch_file(p)
    assert c.kind is CandidateKind.DIFF
    assert c.patch == DIFF
    assert c.name == "fix-123.patch"
    assert Candidate.from_patch_file(str(p)) == c


def test_from_patch_file_on_a_missing_file_is_a_one_line_patch_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.patch"
    with pytest.raises(PatchError, match=r"nope\.patch: cannot read patch") as exc:
        Candidate.from_patch_file(missing)
    assert_one_line(exc.value)


def test_from_patch_file_on_a_directory_is_a_patch_error(tmp_path: Path) -> None:
    with pytest.raises(PatchError, match="cannot read patch"):
        Candidate.from_patch_file(tmp_path)


def test_from_patch_file_on_non_utf8_bytes_is_a_patch_error(tmp_path: Path) -> None:
    p = tmp_path / "latin1.patch"
    p.write_bytes(b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-caf\xe9\n+cafe\n")
    with pytest.raises(PatchError, match="cannot read patch") as exc:
        Candidate.from_patch_file(p)
    assert_one_line(exc.value)


# --- directory -----------------------------------------------------------------------------------


def test_directory_collects_every_file_recursively(tmp_path: Path) -> None:
    d = tmp_path / "edited"
    (d / "src/pkg").mkdir(parents=True)
    (d / "src/pkg/mod.py").write_text("v = 2\n")
    (d / "README.md").write_text("hi\n")
    (d / "empty.txt").write_text("")
    c = Candidate.directory(d)
    assert c.kind is CandidateKind.DIRECTORY
    assert c.file_map == {"src/pkg/mod.py": "v = 2\n", "README.md": "hi\n", "empty.txt": ""}
    assert c.name == "edited"


def test_directory_ignores_git_directories_at_any_depth(tmp_path: Path) -> None:
    d = tmp_path / "edited"
    (d / ".git/objects").mkdir(parents=True)
    (d / ".git/HEAD").write_text("ref: refs/heads/main\n")
    (d / "vendor/lib/.git").mkdir(parents=True)
    (d / "vendor/lib/.git/config").write_text("[core]\n")
    (d / "vendor/lib/lib.py").write_text("x = 1\n")
    (d / ".gitignore").write_text("*.pyc\n")
    c = Candidate.directory(d)
    assert c.file_map == {"vendor/lib/lib.py": "x = 1\n", ".gitignore": "*.pyc\n"}


def test_directory_refuses_a_symlinked_file(tmp_path: Path) -> None:
    d = tmp_path / "edited"
    d.mkdir()
    (tmp_path / "secret").write_text("s\n")
    (d / "link.py").symlink_to(tmp_path / "secret")
    with pytest.raises(PatchError, match="symlinks are not accepted") as exc:
        Candidate.directory(d)
    assert_one_line(exc.value)


def test_directory_refuses_a_symlinked_directory(tmp_path: Path) -> None:
    d = tmp_path / "edited"
    d.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/x.py").write_text("x\n")
    (d / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    with pytest.raises(PatchError, match="symlinks are not accepted"):
        Candidate.directory(d)


def test_directory_refuses_a_dangling_symlink(tmp_path: Path) -> None:
    d = tmp_path / "edited"
    d.mkdir()
    (d / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(PatchError, match="symlinks are not accepted"):
        Candidate.directory(d)


def test_directory_adds_deletions_for_workspace_paths_it_lacks(tmp_path: Path) -> None:
    d = tmp_path / "edited"
    (d / "src").mkdir(parents=True)
    (d / "src/kept.py").write_text("k = 2\n")
    c = Candidate.directory(d, workspace_paths=["src/kept.py", "src/removed.py", "docs/gone.md"])
    assert c.file_map == {"src/kept.py": "k = 2\n", "src/removed.py": None, "docs/gone.md": None}


def test_directory_without_workspace_paths_leaves_deletions_to_each_task(tmp_path: Path) -> None:
    d = tmp_path / "edited"
    d.mkdir()
    (d / "a.py").write_text("a\n")
    whole = Candidate.directory(d)
    assert whole.kind is CandidateKind.DIRECTORY and whole.file_map == {"a.py": "a\n"}
    listed = Candidate.directory(d, workspace_paths=[])
    assert listed.kind is CandidateKind.FILES and listed.file_map == {"a.py": "a\n"}


def test_directory_on_a_missing_path_is_a_patch_error(tmp_path: Path) -> None:
    with pytest.raises(PatchError, match="not a directory") as exc:
        Candidate.directory(tmp_path / "missing")
    assert_one_line(exc.value)


def test_directory_on_a_file_is_a_patch_error(tmp_path: Path) -> None:
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(PatchError, match="not a directory"):
        Candidate.directory(f)


def test_directory_refuses_non_utf8_files(tmp_path: Path) -> None:
    d = tmp_path / "edited"
    d.mkdir()
    (d / "blob.bin").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(PatchError, match="not a UTF-8 text file") as exc:
        Candidate.directory(d)
    assert_one_line(exc.value)


def test_empty_directory_is_a_directory_candidate_without_files(tmp_path: Path) -> None:
    """An empty final state: applied, it deletes every file of the task's workspace."""
    d = tmp_path / "edited"
    d.mkdir()
    c = Candidate.directory(d)
    assert c.kind is CandidateKind.DIRECTORY
    assert c.file_map == {}
