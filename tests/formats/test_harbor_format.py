"""Harbor task directories and the {path, task_binary} parquet (formats/harbor.py)."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from patchbench.errors import DatasetError
from patchbench.formats._tar import pack_tar_gz
from patchbench.formats.harbor import HarborDirFormat, HarborParquetFormat, task_from_files, task_to_files
from patchbench.formats.patchbench import PatchBenchFormat
from patchbench.task import EnvSpec, FileEntry, Task, VerifierKind, VerifierSpec

# Aliased: pytest would try to collect classes named Test* found in a test module.
from patchbench.task import TestCommand as Cmd
from patchbench.task import TestSpec as Spec

DIR = HarborDirFormat()
PARQUET = HarborParquetFormat()

BUGSINPY_DOCKERFILE = """\
FROM python:3.10-slim
RUN pip install --no-cache-dir pytest==8.2.0 \\
    && apt-get update && apt-get install -y --no-install-recommends git \\
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# bake in the buggy solution and a baseline copy for the no-op check
COPY solution.py /app/solution.py
COPY solution.py /app/.buggy_solution.py
"""

BUGSINPY_TEST_SH = """\
#!/bin/bash
echo 0 > /logs/verifier/reward.txt
export PYTHONPATH=/app
cmp -s /app/solution.py /app/.buggy_solution.py && exit 0
python3 -m pytest /tests/test_solution.py && echo 1 > /logs/verifier/reward.txt
"""


def bugsinpy_files(n: int = 1) -> dict[str, tuple[bytes, bool]]:
    """A task directory shaped like seed 000 (exp_rpt_bugsinpy-v2)."""
    return {
        "instruction.md": (f"# Bug {n}\n\n`parse()` drops the last token.\n".encode(), False),
        "metadata.json": (json.dumps({"source": "bugsinpy", "project": "black", "bug": n}).encode(), False),
        "task.toml": (
            b'version = "1.0"\n\n[metadata]\ndifficulty = "medium"\ntags = ["bugsinpy", "python"]\n\n'
            b"[verifier]\ntimeout_sec = 120.0\n",
            False,
        ),
        "environment/Dockerfile": (BUGSINPY_DOCKERFILE.encode(), False),
        "environment/solution.py": (b"def parse(s):\n    return s.split()[:-1]\n", False),
        "tests/test.sh": (BUGSINPY_TEST_SH.encode(), True),
        "tests/test_solution.py": (
            b"from solution import parse\n\ndef test_parse():\n    assert parse('a b')\n",
            False,
        ),
        "tests/test_state.py": (b"def test_state():\n    pass\n", False),
        "tests/config.json": (b'{"weights": {"test_solution.py": 1.0}}\n', False),
        "tests/blob.bin": (b"\x00\xff\xfe binary", False),
    }


def junit_files() -> dict[str, tuple[bytes, bool]]:
    """A task directory shaped like seed 003 (nemotron-junit-v2): empty workspace, Java tests."""
    return {
        "instruction.md": (b"Write a Maven project whose tests pass.\n", False),
        "task.toml": (b'version = "1.0"\n[verifier]\ntimeout_sec = 900\n', False),
        "environment/Dockerfile": (
            b"FROM eclipse-temurin:17-jdk\n"
            b"RUN apt-get update && apt-get install -y maven python3-pytest\n"
            b"WORKDIR /app\n",
            False,
        ),
        "tests/test.sh": (b"#!/bin/bash\nset -o pipefail\necho 0 > /logs/verifier/reward.txt\n", True),
        "tests/test_state.py": (b"def test_state(): pass\n", False),
        "tests/TestSolution.java": (b"class TestSolution {}\n", False),
    }


def write_dir(root: Path, files: dict[str, tuple[bytes, bool]]) -> Path:
    for rel, (content, executable) in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content)
        p.chmod(0o755 if executable else 0o644)
    return root


def tree(root: Path) -> dict[str, tuple[bytes, bool]]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            out[p.relative_to(root).as_posix()] = (p.read_bytes(), bool(p.stat().st_mode & 0o111))
    return out


def native_task(**overrides: Any) -> Task:
    """A PatchBench/HardBug-style task: native test commands, F2P/P2P and a gold patch."""
    values: dict[str, Any] = {
        "id": "hb-async-001",
        "prompt": "The retry helper swallows cancellation.\n",
        "language": "python",
        "workspace": (
            FileEntry(path="retry.py", content="async def retry(f):\n    return await f()\n"),
            FileEntry(path="bin/run.sh", content="#!/bin/sh\n", executable=True),
        ),
        "hidden_tests": (FileEntry(path="tests/test_retry.py", content="def test_cancel(): ...\n"),),
        "test": Spec(commands=(Cmd(argv=("python", "-m", "pytest", "-q", "tests")),), time_limit_s=60.0),
        "env": EnvSpec(language="python", image="python:3.11-slim", system_deps=("tzdata",)),
        "fail_to_pass": ("tests/test_retry.py::test_cancel",),
        "pass_to_pass": ("tests/test_retry.py::test_ok",),
        "gold_patch": "--- a/retry.py\n+++ b/retry.py\n",
        "buggy_files": ("retry.py",),
        "metadata": {"title": "Cancellation swallowed", "category": "concurrency-async", "score": 3},
        "source_format": "hardbug",
    }
    values.update(overrides)
    return Task(**values)


# ----------------------------------------------------------------------------------------------- reading


def test_read_bugsinpy_task_dir(tmp_path: Path) -> None:
    task_dir = write_dir(tmp_path / "bugsinpy-0001", bugsinpy_files())
    assert DIR.detect(task_dir) and DIR.detect(tmp_path)
    loaded = DIR.read(task_dir)
    assert loaded.errors == []
    (task,) = loaded.tasks
    assert task.id == "bugsinpy-0001"
    assert task.prompt.startswith("# Bug 1")
    assert task.language == "python" and task.env.language == "python"
    assert task.source_format == "harbor"
    assert task.workspace_map() == {
        "solution.py": "def parse(s):\n    return s.split()[:-1]\n",
        ".buggy_solution.py": "def parse(s):\n    return s.split()[:-1]\n",
    }
    hidden = {f.path: f for f in task.hidden_tests}
    assert set(hidden) == {"test.sh", "test_solution.py", "test_state.py", "config.json", "blob.bin"}
    assert hidden["test.sh"].executable and not hidden["test_state.py"].executable
    assert hidden["blob.bin"].encoding == "base64" and hidden["blob.bin"].data() == b"\x00\xff\xfe binary"
    assert task.verifier == VerifierSpec(kind=VerifierKind.SCRIPT, script="tests/test.sh")
    assert task.test.commands == (Cmd(argv=("bash", "/tests/test.sh")),)
    assert task.test.time_limit_s == 120.0
    assert task.env.image == "python:3.10-slim"
    assert task.env.python_requirements == ("pytest==8.2.0",)
    assert task.env.system_deps == ("git",)
    assert task.metadata["source"] == "bugsinpy" and task.metadata["bug"] == 1
    assert task.metadata["task_toml"]["metadata"]["difficulty"] == "medium"
    assert "harbor_unresolved_copies" not in task.metadata
    assert {f.path for f in task.extra_files} == set(bugsinpy_files())


def test_read_junit_task_guesses_java(tmp_path: Path) -> None:
    (task,) = DIR.read(write_dir(tmp_path / "junit-00042", junit_files())).tasks
    assert task.workspace == ()
    assert task.language == "java"
    assert task.env.system_deps == ("maven", "python3-pytest")
    assert task.test.time_limit_s == 900.0 and task.verifier is not None


def test_read_collection_reports_bad_dirs_and_loads_the_rest(tmp_path: Path) -> None:
    write_dir(tmp_path / "bugsinpy-0001", bugsinpy_files(1))
    write_dir(tmp_path / "bugsinpy-0002", bugsinpy_files(2))
    no_toml = {k: v for k, v in bugsinpy_files(3).items() if k != "task.toml"}
    write_dir(tmp_path / "bugsinpy-0003", no_toml)
    no_script = {k: v for k, v in bugsinpy_files(4).items() if k != "tests/test.sh"}
    write_dir(tmp_path / "bugsinpy-0004", no_script)
    no_instruction = {k: v for k, v in bugsinpy_files(5).items() if k != "instruction.md"}
    write_dir(tmp_path / "bugsinpy-0005", no_instruction)
    bad_toml = {**bugsinpy_files(6), "task.toml": (b"version = = 1\n", False)}
    write_dir(tmp_path / "bugsinpy-0006", bad_toml)
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text("not a task", encoding="utf-8")

    loaded = DIR.read(tmp_path)
    assert [t.id for t in loaded.tasks] == ["bugsinpy-0001", "bugsinpy-0002"]
    errors = {e.row: str(e) for e in loaded.errors}
    assert set(errors) == {"bugsinpy-0003", "bugsinpy-0004", "bugsinpy-0005", "bugsinpy-0006"}
    assert "no task.toml" in errors["bugsinpy-0003"]
    assert "no tests/test.sh" in errors["bugsinpy-0004"]
    assert "no instruction.md" in errors["bugsinpy-0005"]
    assert "task.toml" in errors["bugsinpy-0006"]
    assert all("\n" not in m for m in errors.values())


def test_symlink_leaving_the_task_dir_is_a_row_error(tmp_path: Path) -> None:
    root = tmp_path / "ds"
    write_dir(root / "good", bugsinpy_files(1))
    write_dir(root / "evil", bugsinpy_files(2))
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    os.symlink(tmp_path / "secret.txt", root / "evil" / "tests" / "leak.txt")
    os.symlink("test_state.py", root / "good" / "tests" / "alias.py")  # inside: read through
    loaded = DIR.read(root)
    assert [t.id for t in loaded.tasks] == ["good"]
    assert loaded.errors[0].row == "evil" and "outside the task" in str(loaded.errors[0])
    alias = next(f for f in loaded.tasks[0].hidden_tests if f.path == "alias.py")
    assert alias.content == "def test_state():\n    pass\n"


def test_read_then_write_is_byte_identical(tmp_path: Path) -> None:
    src = tmp_path / "src"
    write_dir(src / "bugsinpy-0001", bugsinpy_files(1))
    write_dir(src / "junit-00042", junit_files())
    loaded = DIR.read(src)
    assert loaded.errors == []
    DIR.write(loaded.tasks, tmp_path / "out")
    for name in ("bugsinpy-0001", "junit-00042"):
        assert tree(tmp_path / "out" / name) == tree(src / name)
    # writing again over the previous output replaces it (no stale files)
    (tmp_path / "out" / "junit-00042" / "stale.txt").write_text("x", encoding="utf-8")
    DIR.write(loaded.tasks, tmp_path / "out")
    assert tree(tmp_path / "out" / "junit-00042") == tree(src / "junit-00042")
    assert DIR.read(tmp_path / "out").tasks == loaded.tasks


# ------------------------------------------------------------------------------------------- Dockerfile


@pytest.mark.parametrize(
    ("dockerfile", "workspace", "unresolved"),
    [
        ("FROM python:3.11\nWORKDIR /app\nCOPY src/ ./src/\n", {"src/pkg/a.py", "src/b.py"}, []),
        (
            "FROM python:3.11\nWORKDIR /app\nCOPY . .\n",
            {"src/pkg/a.py", "src/b.py", "solution.py", "Dockerfile"},
            [],
        ),
        ("FROM python:3.11\nCOPY *.py /app/\n", {"solution.py"}, []),
        ('FROM python:3.11\nCOPY ["solution.py", "/app/lib/main.py"]\n', {"lib/main.py"}, []),
        (
            "FROM python:3.11\nCOPY --chown=1000:1000 solution.py src/b.py /app/x/\n",
            {"x/solution.py", "x/b.py"},
            [],
        ),
        # The workspace is the final WORKDIR (not only /app): here /srv.
        ("FROM python:3.11\nWORKDIR /srv\nCOPY solution.py .\n", {"solution.py"}, []),
        ("FROM python:3.11\nCOPY solution.py /opt/solution.py\n", set(), []),
        (
            "FROM python:3.11 AS build\nFROM python:3.11\nCOPY --from=build /x /app/x\n"
            "ADD https://example.com/a.py /app/a.py\nCOPY missing.py /app/\nADD deps.tar.gz /app/\n"
            "COPY $SRC /app/\n",
            set(),
            [
                "COPY --from=build /x /app/x",
                "ADD https://example.com/a.py /app/a.py",
                "COPY missing.py /app/",
                "ADD deps.tar.gz /app/",
                "COPY $SRC /app/",
            ],
        ),
    ],
)
def test_dockerfile_copies_define_the_workspace(
    dockerfile: str, workspace: set[str], unresolved: list[str]
) -> None:
    files = {
        "task.toml": (b'version = "1.0"\n', False),
        "instruction.md": (b"x\n", False),
        "tests/test.sh": (b"#!/bin/bash\n", True),
        "environment/Dockerfile": (dockerfile.encode(), False),
        "environment/solution.py": (b"s = 1\n", False),
        "environment/src/b.py": (b"b = 1\n", False),
        "environment/src/pkg/a.py": (b"a = 1\n", False),
    }
    task = task_from_files("t", files, source="ds", row="t")
    assert {f.path for f in task.workspace} == workspace
    assert task.metadata.get("harbor_unresolved_copies", []) == unresolved


@pytest.mark.parametrize(
    ("extra", "language"),
    [
        ({"environment/Dockerfile": b"FROM eclipse-temurin:17-jdk\n", "tests/test_state.py": b""}, "java"),
        ({"environment/Dockerfile": b"FROM docker.io/library/node:20-slim\n"}, "javascript"),
        ({"environment/Dockerfile": b"FROM ubuntu:trusty\n"}, "python"),
        ({"task.toml": b'version = "1.0"\n[metadata]\nlanguage = "TypeScript"\n'}, "typescript"),
        ({"metadata.json": b'{"tags": ["rl", "golang"]}'}, "go"),
        (
            {"environment/Dockerfile": b"FROM rust:1\nCOPY src/ /app/src/\n", "environment/src/lib.rs": b""},
            "rust",
        ),
    ],
)
def test_language_is_guessed(extra: dict[str, bytes], language: str) -> None:
    files = {
        "task.toml": (b'version = "1.0"\n', False),
        "instruction.md": (b"x\n", False),
        "tests/test.sh": (b"#!/bin/bash\n", True),
    }
    files.update({k: (v, False) for k, v in extra.items()})
    task = task_from_files("t", files, source="ds", row="t")
    assert task.language == language and task.env.language == language


# -------------------------------------------------------------------------------------------- generating


def test_native_task_round_trips_through_a_harbor_dir(tmp_path: Path) -> None:
    env = EnvSpec(image="python:3.11-slim", system_deps=("tzdata",), setup_cmds=("pip install -e .", "a\nb"))
    task = native_task(env=env)
    DIR.write([task], tmp_path / "out")
    task_dir = tmp_path / "out" / task.id
    written = tree(task_dir)
    assert set(written) == {
        "task.toml",
        "instruction.md",
        "metadata.json",
        "environment/Dockerfile",
        "environment/app/retry.py",
        "environment/app/bin/run.sh",
        "tests/tests/test_retry.py",
        "tests/test.sh",
    }
    assert written["tests/test.sh"][1] and written["environment/app/bin/run.sh"][1]
    dockerfile = written["environment/Dockerfile"][0].decode()
    assert dockerfile.splitlines()[1] == "FROM python:3.11-slim"
    assert "WORKDIR /app" in dockerfile and "COPY app/ /app/" in dockerfile and "tzdata" in dockerfile
    assert dockerfile.endswith('RUN pip install -e .\nRUN ["bash", "-c", "a\\nb"]\n')
    toml = written["task.toml"][0].decode()
    assert (
        'version = "1.0"' in toml
        and "timeout_sec = 60.0" in toml
        and 'title = "Cancellation swallowed"' in toml
    )
    sidecar = json.loads(written["metadata.json"][0])["patchbench"]
    assert sidecar["fail_to_pass"] == ["tests/test_retry.py::test_cancel"]
    assert sidecar["gold_patch"] == task.gold_patch

    (got,) = DIR.read(tmp_path / "out").tasks
    assert got.source_format == "harbor" and got.extra_files
    assert got.model_copy(update={"extra_files": (), "source_format": "hardbug"}) == task
    # and the restored task writes back to the very same directory
    DIR.write([got], tmp_path / "again")
    assert tree(tmp_path / "again" / task.id) == written


def test_native_task_round_trips_through_harbor_parquet(tmp_path: Path) -> None:
    tasks = [native_task(), native_task(id="hb-2", context_files=native_task().workspace, verifier=None)]
    out = tmp_path / "tasks.parquet"
    PARQUET.write(tasks, out)
    assert PARQUET.detect(out) and not PatchBenchFormat().detect(out)
    assert pq.read_schema(out).names == ["path", "task_binary"]
    loaded = PARQUET.read(out)
    assert loaded.errors == []
    for got, want in zip(loaded.tasks, tasks, strict=True):
        assert got.model_copy(update={"extra_files": (), "source_format": want.source_format}) == want


def test_harbor_to_patchbench_to_harbor_keeps_the_tests_dir(tmp_path: Path) -> None:
    (original,) = DIR.read(write_dir(tmp_path / "src" / "bugsinpy-0001", bugsinpy_files())).tasks
    PatchBenchFormat().write([original], tmp_path / "pb")
    (via_pb,) = PatchBenchFormat().read(tmp_path / "pb").tasks
    assert via_pb.extra_files == ()
    DIR.write([via_pb], tmp_path / "out")
    src, out = tree(tmp_path / "src" / "bugsinpy-0001"), tree(tmp_path / "out" / "bugsinpy-0001")
    assert {k: v for k, v in out.items() if k.startswith("tests/")} == {
        k: v for k, v in src.items() if k.startswith("tests/")
    }
    assert out["instruction.md"] == src["instruction.md"]
    (back,) = DIR.read(tmp_path / "out").tasks
    assert back.model_copy(update={"extra_files": ()}) == original.model_copy(update={"extra_files": ()})


def test_hidden_test_named_test_sh_cannot_be_generated(tmp_path: Path) -> None:
    task = native_task(hidden_tests=(FileEntry(path="test.sh", content="echo\n"),))
    with pytest.raises(DatasetError, match=r"test\.sh"):
        DIR.write([task], tmp_path / "out")


def test_write_rejects_duplicate_ids(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="duplicate task id"):
        DIR.write([native_task(), native_task()], tmp_path / "out")
    with pytest.raises(DatasetError, match="duplicate task id"):
        PARQUET.write([native_task(), native_task()], tmp_path / "t.parquet")


def _run_verifier(tmp_path: Path, task: Task) -> str:
    """Run the generated tests/test.sh with /app, /tests and /logs redirected into tmp_path."""
    files = task_to_files(task)
    app, tests, logs = tmp_path / "app", tmp_path / "tests", tmp_path / "logs"
    for rel, (content, _executable) in files.items():
        if rel.startswith("environment/app/"):
            dest = app / rel[len("environment/app/") :]
        elif rel.startswith("tests/"):
            dest = tests / rel[len("tests/") :]
        else:
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(content)
    script = files["tests/test.sh"][0].decode()
    script = script.replace("/logs/", f"{logs}/").replace("/app", str(app)).replace("/tests/", f"{tests}/")
    subprocess.run(["bash", "-c", script], check=False, capture_output=True, timeout=60)
    return (logs / "verifier" / "reward.txt").read_text().strip()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(
    ("commands", "reward"),
    [
        ((Cmd(shell="test -f tests/test_retry.py"), Cmd(argv=("true",))), "1"),
        ((Cmd(shell="true"), Cmd(argv=("false",))), "0"),
        ((Cmd(shell="false | cat"),), "0"),  # pipe masking must not turn a failure into a pass
        ((Cmd(shell="exit 3"), Cmd(shell="true")), "0"),
    ],
)
def test_generated_verifier_is_default_fail(tmp_path: Path, commands: tuple[Cmd, ...], reward: str) -> None:
    task = native_task(test=Spec(commands=commands))
    assert _run_verifier(tmp_path, task) == reward


# ---------------------------------------------------------------------------------------------- parquet


def _seed_parquet(path: Path, rows: list[tuple[str, bytes | None]], **extra: list[Any]) -> None:
    """A {path, task_binary} parquet built directly with pyarrow, as in seeds 000/003."""
    columns: dict[str, Any] = {
        "path": pa.array([r[0] for r in rows], pa.string()),
        "task_binary": pa.array([r[1] for r in rows], pa.binary()),
    }
    columns.update({k: pa.array(v) for k, v in extra.items()})
    pq.write_table(pa.table(columns), path)


def _wrapped_tarball(name: str, files: dict[str, tuple[bytes, bool]]) -> bytes:
    """A tarball as a third party packs it: a wrapping directory, real mtimes, directory entries."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tf:
        root = tarfile.TarInfo(name)
        root.type, root.mode, root.mtime = tarfile.DIRTYPE, 0o755, 1_700_000_000
        tf.addfile(root)
        for rel, (content, executable) in sorted(files.items()):
            info = tarfile.TarInfo(f"{name}/{rel}")
            info.size, info.mode, info.mtime = len(content), 0o755 if executable else 0o644, 1_700_000_000
            tf.addfile(info, io.BytesIO(content))
    return gzip.compress(raw.getvalue())


def _evil_tarball() -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tf:
        info = tarfile.TarInfo("/etc/evil")
        info.size = 1
        tf.addfile(info, io.BytesIO(b"x"))
    return gzip.compress(raw.getvalue())


def test_seed_parquet_loads_and_bad_rows_are_reported(tmp_path: Path) -> None:
    src = tmp_path / "tasks.parquet"
    _seed_parquet(
        src,
        [
            ("bugsinpy-0001", _wrapped_tarball("bugsinpy-0001", bugsinpy_files(1))),
            ("bugsinpy-0002", _evil_tarball()),
            ("bugsinpy-0003", b"\x1f\x8b garbage"),
            ("bugsinpy-0004", None),
            ("bugsinpy-0005", pack_tar_gz({"task.toml": (b'version = "1.0"\n', False)})),
            ("junit-00042", pack_tar_gz(junit_files())),
        ],
    )
    assert PARQUET.detect(src)
    loaded = PARQUET.read(src)
    assert [t.id for t in loaded.tasks] == ["bugsinpy-0001", "junit-00042"]
    errors = {e.row: str(e) for e in loaded.errors}
    assert set(errors) == {"bugsinpy-0002", "bugsinpy-0003", "bugsinpy-0004", "bugsinpy-0005"}
    assert "absolute" in errors["bugsinpy-0002"] and "/etc/evil" in errors["bugsinpy-0002"]
    assert "not a valid gzipped tar" in errors["bugsinpy-0003"]
    assert "task_binary" in errors["bugsinpy-0004"]
    assert "no tests/test.sh" in errors["bugsinpy-0005"]
    for e in loaded.errors:
        assert e.source == str(src) and "\n" not in str(e)
        assert str(e).count(str(src)) == 1

    (task,) = [t for t in loaded.tasks if t.id == "bugsinpy-0001"]
    assert {f.path for f in task.extra_files} == set(bugsinpy_files(1))  # wrapper stripped
    assert task.workspace_map()["solution.py"].startswith("def parse")


def test_parquet_write_is_deterministic_and_round_trips(tmp_path: Path) -> None:
    src = tmp_path / "src.parquet"
    _seed_parquet(src, [("bugsinpy-0001", _wrapped_tarball("bugsinpy-0001", bugsinpy_files(1)))])
    tasks = PARQUET.read(src).tasks
    PARQUET.write(tasks, tmp_path / "a.parquet")
    PARQUET.write(tasks, tmp_path / "b.parquet")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    again = PARQUET.read(tmp_path / "a.parquet")
    assert again.errors == [] and again.tasks == tasks
    # the same task as a directory, and back to parquet: identical rows
    DIR.write(tasks, tmp_path / "dir")
    PARQUET.write(DIR.read(tmp_path / "dir").tasks, tmp_path / "c.parquet")
    assert pq.read_table(tmp_path / "c.parquet").equals(pq.read_table(tmp_path / "a.parquet"))


def test_parquet_extra_columns_are_kept(tmp_path: Path) -> None:
    src = tmp_path / "src.parquet"
    _seed_parquet(src, [("junit-00042", pack_tar_gz(junit_files()))], split=["train"], n_tests=[3])
    (task,) = PARQUET.read(src).tasks
    assert task.metadata["harbor_parquet_columns"] == {"split": "train", "n_tests": 3}
    PARQUET.write([task], tmp_path / "out.parquet")
    assert pq.read_table(tmp_path / "out.parquet").to_pylist()[0]["n_tests"] == 3
    assert PARQUET.read(tmp_path / "out.parquet").tasks == [task]


def test_parquet_whole_source_errors(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.parquet"
    pq.write_table(pa.table({"path": ["x"], "blob": [b"y"]}), wrong)
    assert not PARQUET.detect(wrong)
    with pytest.raises(DatasetError, match="task_binary"):
        PARQUET.read(wrong)
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"nope")
    assert not PARQUET.detect(junk) and not PARQUET.detect(tmp_path / "missing.parquet")
    with pytest.raises(DatasetError, match="not a readable parquet"):
        PARQUET.read(junk)


def test_detection_does_not_confuse_formats(tmp_path: Path) -> None:
    PatchBenchFormat().write([native_task()], tmp_path / "pb")
    assert not DIR.detect(tmp_path / "pb") and not DIR.detect(tmp_path / "missing")
    assert not PARQUET.detect(tmp_path / "pb" / "tasks" / "train-00000-of-00001.parquet")
    with pytest.raises(DatasetError):
        DIR.read(tmp_path / "missing")


def test_a_language_without_an_environment_runs_its_verifier_in_the_tests_language() -> None:
    """Regression: a C project under /workspace read as language 'c', so its pytest verifier never ran
    (``infra_error``: no environment support for language 'c')."""
    files = {
        "task.toml": (b'version = "1.0"\n', False),
        "instruction.md": (b"x\n", False),
        "tests/test.sh": (b"#!/bin/bash\npytest /tests/test_outputs.py\n", True),
        "tests/test_outputs.py": (b"def test_x():\n    assert False\n", False),
        "environment/Dockerfile": (
            b"FROM ubuntu\nWORKDIR /workspace\nCOPY main.c lib.c /workspace/\n",
            False,
        ),
        "environment/main.c": (b"int main(void) { return 0; }\n", False),
        "environment/lib.c": (b"int f(void) { return 1; }\n", False),
    }
    task = task_from_files("t", files, source="ds", row="t")
    assert task.language == "c" and task.env.language == "python"


def test_the_packages_test_sh_runs_through_uvx_join_the_environment() -> None:
    """Harbor's task template installs pytest at verify time (``uvx --with pytest==8.4.1 ...``), which an
    offline sandbox cannot: the setup phase must install them."""
    test_sh = (
        b"#!/bin/bash\nuvx --with pytest==8.4.1 --with pytest-json-ctrf==0.3.5 pytest --ctrf x /tests -rA\n"
    )
    files = {
        "task.toml": (b'version = "1.0"\n', False),
        "instruction.md": (b"x\n", False),
        "tests/test.sh": (test_sh, True),
        "environment/Dockerfile": (
            b"FROM ubuntu\nRUN pip install pytest-json-ctrf numpy\nWORKDIR /app\n",
            False,
        ),
    }
    task = task_from_files("t", files, source="ds", row="t")
    assert task.env.python_requirements == ("pytest-json-ctrf", "numpy", "pytest==8.4.1")
