"""The Dockerfile's filesystem rebuilt natively (``verifiers/image.py``), through the harness.

Every task here is a small Harbor directory written for these tests: its Dockerfile lays files out at
paths other than /app (``/workspace``, ``/data``, ``/solution``, a link into ``/usr/bin``, a file into
``/usr/local/bin``...), and its ``tests/test.sh`` checks, from inside the sandbox, that the verifier sees
the image as Docker would build it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import patchbench
from patchbench import Candidate, Status, Task
from patchbench.verifiers.image import prepare_image

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is needed")

DOCKERFILE = """\
FROM ubuntu:24.04
ENV DATA_DIR=/data GREETING=hello
RUN apt-get update && apt-get install -y python3-pip && ln -s /usr/bin/python3 /usr/bin/python && \\
    rm -rf /var/lib/apt/lists/*
RUN mkdir -p /workspace/out /solution /data && touch /data/.seen && chmod 700 /solution
COPY rows.csv /data/rows.csv
COPY sum.sh /workspace/sum.sh
COPY helper.sh /usr/local/bin/pb-image-helper
RUN cp /data/rows.csv /workspace/rows.copy && ln -s /data /workspace/data-link && chmod 666 /data/rows.csv
WORKDIR /workspace
"""

# The verifier: checks the layout (prints LAYOUT-OK when the image is whole), then grades sum.sh.
TEST_SH = """\
#!/bin/bash
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
ok=1
check() { if ! eval "$1"; then echo "LAYOUT-MISSING: $1"; ok=0; fi; }
check '[ "$(pwd)" = /workspace ]'
check '[ -f /data/rows.csv ] && [ -f /data/.seen ]'
check '[ -f /workspace/rows.copy ] && [ -f /workspace/data-link/rows.csv ]'
check '[ -d /solution ] && [ -w /solution ] && [ "$(stat -c %a /solution)" = 700 ]'
check 'command -v python >/dev/null'
check '[ "$(pb-image-helper)" = helped ]'
check '[ "$DATA_DIR" = /data ] && [ "$GREETING" = hello ]'
check '[ "$(wc -l < /data/rows.csv)" = 3 ] && [ -w /data/rows.csv ]'
[ "$ok" = 1 ] && echo LAYOUT-OK
echo 4 >> /data/rows.csv   # the run's own copy: the next run must see 3 lines again
echo "note" > /solution/answer.txt
result=$(bash /workspace/sum.sh /workspace/rows.copy)
echo "result=$result"
if [ "$ok" = 1 ] && [ "$result" = 6 ]; then echo 1 > /logs/verifier/reward.txt; fi
"""

SUM_SH = (
    '#!/bin/bash\n# sums one number a line\ns=0\nwhile read -r n; do s=$((s - n)); done < "$1"\necho $s\n'
)
GOLD = """\
--- a/sum.sh
+++ b/sum.sh
@@ -1,5 +1,5 @@
 #!/bin/bash
 # sums one number a line
 s=0
-while read -r n; do s=$((s - n)); done < "$1"
+while read -r n; do s=$((s + n)); done < "$1"
 echo $s
"""


def write_task(
    root: Path, *, dockerfile: str = DOCKERFILE, test_sh: str = TEST_SH, task_id: str = "t"
) -> Path:
    d = root / task_id
    files = {
        "task.toml": 'version = "1.0"\n[verifier]\ntimeout_sec = 60.0\n',
        "instruction.md": "Fix /workspace/sum.sh.\n",
        "environment/Dockerfile": dockerfile,
        "environment/rows.csv": "1\n2\n3\n",
        "environment/sum.sh": SUM_SH,
        "environment/helper.sh": "#!/bin/sh\necho helped\n",
        "environment/conf.ini": "[x]\n",
        "tests/test.sh": test_sh,
        "solution/gold.patch": GOLD,
    }
    for rel, text in files.items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (d / "environment" / "helper.sh").chmod(0o755)
    return d


def load(path: Path) -> Task:
    loaded = patchbench.load(path)
    assert not loaded.errors, loaded.errors
    (task,) = loaded.tasks
    return task


def test_the_workspace_is_the_workdir_and_holds_what_the_image_copies_there(tmp_path: Path) -> None:
    task = load(write_task(tmp_path))
    assert task.verifier is not None and task.verifier.app_dir == "/workspace"
    assert [f.path for f in task.workspace] == ["sum.sh"]


def test_the_verifier_sees_every_path_the_dockerfile_builds(tmp_path: Path) -> None:
    """Regression: such a task used to end ``verifier_error`` (``bwrap: Can't chdir to /workspace``)."""
    task = load(write_task(tmp_path))
    cache = tmp_path / "cache"
    empty = patchbench.run(task, Candidate.empty(), cache_dir=cache)
    assert empty.status is Status.UNRESOLVED and empty.reward == 0, (empty.reason, empty.stdout_tail)
    assert "LAYOUT-OK" in empty.stdout_tail and "result=-6" in empty.stdout_tail
    assert any("served from PATH" in n for n in empty.notes)
    gold = patchbench.run(task, Candidate.gold(), cache_dir=cache)
    assert gold.status is Status.RESOLVED and gold.reward == 1, (gold.reason, gold.stdout_tail)
    # Each run wrote into its own copy of /data: the second still saw the pristine three lines.
    assert "LAYOUT-OK" in gold.stdout_tail
    assert len(list((cache / "images").iterdir())) == 1  # built once, reused


def test_the_cached_image_is_built_once_and_never_written_by_a_run(tmp_path: Path) -> None:
    task = load(write_task(tmp_path))
    cache = tmp_path / "cache"
    patchbench.run(task, Candidate.empty(), cache_dir=cache)
    (image_dir,) = (cache / "images").iterdir()
    tree = image_dir / "tree"
    assert (tree / "data" / "rows.csv").read_text() == "1\n2\n3\n"
    # chmod 666 in the image: the cached file loses group/other write (the run's copy is its own).
    assert (tree / "data" / "rows.csv").stat().st_mode & 0o777 == 0o644
    assert not (tree / "solution" / "answer.txt").exists()
    assert (tree / "workspace" / "data-link").is_symlink()
    assert sorted(p.name for p in tree.iterdir()) == ["data", "solution", "workspace"]
    assert (image_dir / "bin" / "pb-image-helper").is_file()


def test_a_gap_in_the_image_makes_a_failed_reward_an_infra_error(tmp_path: Path) -> None:
    dockerfile = DOCKERFILE + "COPY conf.ini /etc/pb-image-test/conf.ini\n"
    task = load(write_task(tmp_path, dockerfile=dockerfile))
    v = patchbench.run(task, Candidate.empty(), cache_dir=tmp_path / "cache")
    assert v.status is Status.INFRA_ERROR and v.reward == 0
    assert "/etc/pb-image-test/conf.ini" in v.reason and "cannot be blamed on the candidate" in v.reason
    # A pass is still a pass (the gap did not stop it), and the gap is named.
    gold = patchbench.run(task, Candidate.gold(), cache_dir=tmp_path / "cache")
    assert gold.status is Status.RESOLVED
    assert any("/etc/pb-image-test/conf.ini" in n for n in gold.notes)


def test_a_run_step_that_fails_natively_is_a_gap(tmp_path: Path) -> None:
    dockerfile = DOCKERFILE + "RUN echo x > /etc/pb-image-test.conf\n"
    task = load(write_task(tmp_path, dockerfile=dockerfile))
    v = patchbench.run(task, Candidate.empty(), cache_dir=tmp_path / "cache")
    assert v.status is Status.INFRA_ERROR
    assert "failed natively" in v.reason and "pb-image-test.conf" in v.reason


def test_a_verifier_that_leaves_no_reward_is_a_verifier_error(tmp_path: Path) -> None:
    task = load(write_task(tmp_path, test_sh="#!/bin/bash\ncd /workspace && ls /data\n"))
    v = patchbench.run(task, Candidate.gold(), cache_dir=tmp_path / "cache")
    assert v.status is Status.VERIFIER_ERROR and v.reward == 0
    assert "rows.csv" in v.stdout_tail  # it ran, in the image, and wrote nothing


def test_a_wiped_workspace_keeps_the_rest_of_the_image(tmp_path: Path) -> None:
    task = load(write_task(tmp_path))
    v = patchbench.run(task, Candidate.wipe(), cache_dir=tmp_path / "cache")
    assert v.status is Status.UNRESOLVED and v.reward == 0
    assert "LAYOUT-MISSING" in v.stdout_tail  # rows.copy, data-link were in the workspace
    assert "[ -f /data/rows.csv ] && [ -f /data/.seen ]" not in v.stdout_tail


def test_prepare_image_names_top_level_links_as_aliases(tmp_path: Path) -> None:
    dockerfile = "FROM x\nRUN mkdir -p /workspace && ln -s /workspace /project\nCOPY sum.sh /workspace/\n"
    task = load(write_task(tmp_path, dockerfile=dockerfile))
    env = patchbench.envs.env_for(task.env.language, tmp_path / "cache").prepare(task)
    sandbox = patchbench.sandbox.get_sandbox("bwrap")
    image = prepare_image(task, "/app", sandbox, env, tmp_path / "cache")
    assert image.aliases == {"project": "/workspace"}
    assert set(image.roots) == {"app", "workspace"} and not image.gaps


SOLVE_SH = (
    "#!/bin/bash\nset -e\nsed -i 's/s - n/s + n/' sum.sh\ncp /solution/notes.txt /solution/answer.txt\n"
)


def with_solution(d: Path) -> Path:
    (d / "solution" / "solve.sh").write_text(SOLVE_SH)
    (d / "solution" / "notes.txt").write_text("solved\n")
    return d


def test_the_solution_script_runs_in_the_image_like_harbors_oracle(tmp_path: Path) -> None:
    task = load(with_solution(write_task(tmp_path)))
    v = patchbench.run(task, Candidate.solution(), cache_dir=tmp_path / "cache")
    assert v.status is Status.RESOLVED and v.reward == 1, (v.reason, v.stdout_tail, v.notes)
    assert v.apply_method == "solution"
    assert "solution/solve.sh ran in the image (exit 0)" in v.notes
    assert "LAYOUT-OK" in v.stdout_tail  # merged into the image's own /solution (mode 700 kept)


def test_a_failing_solution_script_is_graded_by_the_verifier(tmp_path: Path) -> None:
    d = write_task(tmp_path)
    (d / "solution" / "solve.sh").write_text("#!/bin/bash\necho broken >&2\nexit 3\n")
    v = patchbench.run(load(d), Candidate.solution(), cache_dir=tmp_path / "cache")
    assert v.status is Status.UNRESOLVED and v.reward == 0
    assert "solution/solve.sh ran in the image (exit 3)" in v.notes
    assert any("broken" in n for n in v.notes)


def test_no_solution_script_is_patch_failed(tmp_path: Path) -> None:
    v = patchbench.run(load(write_task(tmp_path)), Candidate.solution(), cache_dir=tmp_path / "cache")
    assert v.status is Status.PATCH_FAILED and "no solution/solve.sh" in v.reason


def test_a_solution_script_needs_a_script_verifier() -> None:
    from conftest import tap_task

    v = patchbench.run(tap_task("echo 'ok 1 - a'; echo 1..1"), Candidate.solution())
    assert v.status is Status.PATCH_FAILED and "script-verified" in v.reason


def test_system_packages_the_host_lacks_are_named(tmp_path: Path) -> None:
    dockerfile = "FROM x\nRUN apt-get update && apt-get install -y pb-no-such-package-xyz bash\nWORKDIR /w\n"
    task = load(write_task(tmp_path, dockerfile=dockerfile))
    env = patchbench.envs.env_for(task.env.language, tmp_path / "cache").prepare(task)
    image = prepare_image(task, "/w", patchbench.sandbox.get_sandbox("bwrap"), env, tmp_path / "cache")
    if shutil.which("dpkg-query") is None:
        pytest.skip("dpkg-query is needed to tell which packages are installed")
    (note,) = [n for n in image.notes if "apt-get install" in n]
    assert "pb-no-such-package-xyz" in note and "bash" not in note.split(":", 1)[1]
