"""repair_dataset: template choice, rewritten files, the Dockerfile baseline, the report, the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from patchbench.api import load
from patchbench.cli.repair import repair
from patchbench.errors import EnvError
from patchbench.formats import write
from patchbench.formats.harbor import task_to_files
from patchbench.repair import RepairReport, read_header, repair_dataset, write_report
from patchbench.repair.collect import Collector, CollectResult
from patchbench.repair.testfiles import RepairKind
from patchbench.task import Task, TestCommand, TestSpec

FIXTURES = Path(__file__).parent.parent / "fixtures" / "repair"
DEMO = FIXTURES / "bugsinpy-demo"
CORPUS = FIXTURES / "corpus"
JUNIT = FIXTURES / "junit-demo"


def make_dataset(root: Path) -> Path:
    """demo (clean), demo-fences (broken tests, no baseline line), demo-await (unrepairable), junit-demo."""
    ds = root / "in"
    ds.mkdir()
    shutil.copytree(DEMO, ds / "demo")
    shutil.copytree(DEMO, ds / "demo-fences")
    broken = (CORPUS / "fences_prose.py").read_text().replace("import pytest\n", "")  # + a missing import
    (ds / "demo-fences" / "tests" / "test_solution.py").write_text(broken)
    docker = ds / "demo-fences" / "environment" / "Dockerfile"
    docker.write_text("".join(ln for ln in docker.read_text().splitlines(True) if "buggy_solution" not in ln))
    shutil.copytree(DEMO, ds / "demo-await")
    shutil.copy(CORPUS / "unrepairable_await.py", ds / "demo-await" / "tests" / "test_solution.py")
    shutil.copytree(JUNIT, ds / "junit-demo")
    return ds


def by_id(tasks: list[Task]) -> dict[str, Task]:
    return {t.id: t for t in tasks}


def files_of(task: Task) -> dict[str, str]:
    return {f.path: f.content for f in task.extra_files}


@pytest.fixture(scope="module")
def repaired(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Task], RepairReport, Path]:
    root = tmp_path_factory.mktemp("repair")
    ds = make_dataset(root)
    loaded = load(ds)
    tasks, report = repair_dataset(loaded.tasks, collect=False, dataset=str(ds), format=loaded.format)
    return tasks, report, root


def test_templates_and_modes_are_chosen_per_task(repaired: tuple[list[Task], RepairReport, Path]) -> None:
    _, report, _ = repaired
    got = {t.task_id: (t.template, t.mode, t.signal) for t in report.tasks}
    assert got == {
        "demo": ("python-single-file", "A", "test-driven"),
        "demo-await": ("python-single-file", "B", "fallback"),
        "demo-fences": ("python-single-file", "A", "test-driven"),
        "junit-demo": ("maven", None, "maven"),
    }
    assert report.distribution == {"test-driven": 2, "fallback": 1, "maven": 1}
    assert report.fallback_tasks == ["demo-await"]
    assert report.collect_checked is False


def test_repairs_and_unrepairable_files_are_recorded(repaired: tuple[list[Task], RepairReport, Path]) -> None:
    _, report, _ = repaired
    tr = {t.task_id: t for t in report.tasks}
    kinds = {r.kind for r in tr["demo-fences"].repairs}
    assert kinds == {RepairKind.FENCES, RepairKind.PROSE, RepairKind.MISSING_IMPORT}
    assert tr["demo-await"].unrepairable == ["test_solution.py"]
    assert "await" in (tr["demo-await"].files[0].problem or "")
    assert tr["demo"].repairs == [] and tr["demo"].unrepairable == []
    assert report.repaired_files == 1 and report.unrepairable_files == 1
    assert report.repairs_by_kind["markdown-fences"] == 1


def test_verifier_files_are_rewritten_consistently(repaired: tuple[list[Task], RepairReport, Path]) -> None:
    tasks, _, _ = repaired
    for task in tasks:
        files = files_of(task)
        hidden = {f.path: f.content for f in task.hidden_tests}
        assert hidden == {p[len("tests/") :]: c for p, c in files.items() if p.startswith("tests/")}
        assert {"test.sh", "test_state.py"} <= set(hidden)
        assert next(f for f in task.extra_files if f.path == "tests/test.sh").executable
        header = read_header(hidden["test.sh"])
        assert header is not None and header["template"] == task.metadata["patchbench_repair"]["template"]
    t = by_id(tasks)
    assert read_header(files_of(t["demo-await"])["tests/test.sh"])["mode"] == "B"  # type: ignore[index]
    assert "```" not in files_of(t["demo-fences"])["tests/test_solution.py"]
    assert "import pytest" in files_of(t["demo-fences"])["tests/test_solution.py"]
    sha = files_of(t["demo"])["tests/test.sh"]
    assert "BUGGY_SHA256=" in sha and "BUGGY_SHA256=''" not in sha
    assert "mvn" in files_of(t["junit-demo"])["tests/test.sh"]
    assert "trap" not in files_of(t["junit-demo"])["tests/test.sh"]


def test_dockerfile_gets_the_baseline_copy_once(repaired: tuple[list[Task], RepairReport, Path]) -> None:
    tasks, report, _ = repaired
    t = by_id(tasks)
    fixed = files_of(t["demo-fences"])["environment/Dockerfile"].splitlines()
    copy = fixed.index("COPY solution.py /app/solution.py")
    assert fixed[copy + 1] == "RUN cp /app/solution.py /app/.buggy_solution.py"
    assert files_of(t["demo"])["environment/Dockerfile"] == (DEMO / "environment" / "Dockerfile").read_text()
    changes = next(r for r in report.tasks if r.task_id == "demo-fences").changes
    assert any("RUN cp" in c for c in changes)


def test_repair_is_idempotent_and_round_trips(repaired: tuple[list[Task], RepairReport, Path]) -> None:
    tasks, _, root = repaired
    again, report = repair_dataset(tasks, collect=False)
    assert all(not tr.changes and not tr.repairs for tr in report.tasks)
    assert [task_to_files(a) for a in again] == [task_to_files(t) for t in tasks]
    for fmt, out in (("harbor-dir", root / "out"), ("harbor-parquet", root / "out.parquet")):
        write(tasks, out, fmt)
        back = load(out).tasks
        assert [task_to_files(b) for b in back] == [task_to_files(t) for t in tasks]


def test_tasks_no_template_fits_are_left_alone() -> None:
    plain = Task(id="plain", test=TestSpec(commands=(TestCommand(argv=("true",)),)))
    tasks, report = repair_dataset([plain], collect=False)
    assert tasks == [plain]
    assert report.tasks[0].signal == "unsupported" and report.tasks[0].template is None


def test_report_markdown_and_json(repaired: tuple[list[Task], RepairReport, Path], tmp_path: Path) -> None:
    _, report, _ = repaired
    md, js = write_report(report, tmp_path)
    text = md.read_text()
    assert "static" in text and "patchbench validate" in text
    assert "| fallback | 1 | 25% |" in text and "demo-await" in text
    data = json.loads(js.read_text())
    assert data["fallback_tasks"] == ["demo-await"]
    assert RepairReport.model_validate({k: v for k, v in data.items() if k != "fallback_tasks"}) == report


# ------------------------------------------------------------------------------------------------- CLI

app = typer.Typer()
app.callback()(lambda: None)
app.command("repair")(repair)


def test_cli_writes_dataset_and_reports(tmp_path: Path) -> None:
    ds = make_dataset(tmp_path)
    out = tmp_path / "out.parquet"
    r = CliRunner().invoke(
        app,
        ["repair", str(ds), "-o", str(out), "--to", "harbor-parquet", "--no-collect", "--json",
         "--report-dir", str(tmp_path / "rep")],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["output_format"] == "harbor-parquet" and data["fallback_tasks"] == ["demo-await"]
    assert (tmp_path / "rep" / "repair_report.md").is_file()
    assert {t.id for t in load(out).tasks} == {"demo", "demo-await", "demo-fences", "junit-demo"}


def test_cli_bad_input_exits_2(tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["repair", str(tmp_path / "missing"), "-o", str(tmp_path / "o")])
    assert r.exit_code == 2
    ds = make_dataset(tmp_path)
    r = CliRunner().invoke(app, ["repair", str(ds), "-o", str(tmp_path / "o"), "--to", "bogus"])
    assert r.exit_code == 2 and not (tmp_path / "o").exists()
    r = CliRunner().invoke(app, ["repair", str(ds), "-o", str(tmp_path / "o"), "--task", "nope"])
    assert r.exit_code == 2


@pytest.mark.slow
def test_collect_check_decides_the_mode(tmp_path: Path) -> None:
    """With collection checked for real, a test file that compiles but cannot be collected goes to mode B."""
    ds = make_dataset(tmp_path)
    shutil.copytree(DEMO, ds / "demo-api")
    (ds / "demo-api" / "tests" / "test_solution.py").write_text(
        "import tensorflow_not_installed\nfrom solution import median\n\n"
        "def test_a():\n    assert median([1]) == 1\n"
    )
    _, report = repair_dataset(load(ds).tasks, collect=True)
    tr = {t.task_id: t for t in report.tasks}
    assert tr["demo-api"].mode == "B" and "tensorflow_not_installed" in (
        tr["demo-api"].files[0].problem or ""
    )
    assert tr["demo-fences"].mode == "A" and tr["demo-fences"].files[0].collects is True
    assert tr["demo-fences"].files[0].tests_collected == 3
    assert tr["demo"].solution_imports is True
    assert report.collect_checked


def test_a_solution_the_dockerfile_does_not_copy_gets_copied(tmp_path: Path) -> None:
    ds = tmp_path / "in"
    shutil.copytree(DEMO, ds / "demo")
    (ds / "demo" / "environment" / "Dockerfile").write_text(
        "FROM python:3.10-slim\nRUN pip install --no-cache-dir pytest\nWORKDIR /app\n"
    )
    (task,) = load(ds).tasks
    assert task.workspace == ()
    (fixed,), report = repair_dataset([task], collect=False)
    assert report.tasks[0].mode == "A"
    assert [f.path for f in fixed.workspace] == ["solution.py"]
    docker = files_of(fixed)["environment/Dockerfile"].splitlines()
    assert docker[-2:] == [
        "COPY solution.py /app/solution.py",
        "RUN cp /app/solution.py /app/.buggy_solution.py",
    ]


def test_parallel_repair_keeps_the_order(tmp_path: Path) -> None:
    tasks = load(make_dataset(tmp_path)).tasks
    seen: list[tuple[int, int]] = []
    serial, _ = repair_dataset(tasks, collect=False)
    parallel, report = repair_dataset(
        tasks, collect=False, jobs=4, on_progress=lambda d, t: seen.append((d, t))
    )
    assert [task_to_files(t) for t in parallel] == [task_to_files(t) for t in serial]
    assert [t.task_id for t in report.tasks] == [t.id for t in tasks]
    assert sorted(seen) == [(i, len(tasks)) for i in range(1, len(tasks) + 1)]


class BrokenCollector(Collector):
    def __init__(self) -> None:  # no sandbox needed: check() fails as an offline machine would
        pass

    def check(self, *args: object, **kwargs: object) -> dict[str, CollectResult]:
        raise EnvError("uv pip install pytest failed: no network")


def test_an_infrastructure_failure_leaves_the_task_unchanged(tmp_path: Path) -> None:
    tasks = load(make_dataset(tmp_path)).tasks
    out, report = repair_dataset(tasks, collector=BrokenCollector())
    tr = {t.task_id: t for t in report.tasks}
    assert (
        tr["demo"].signal == "error" and tr["demo"].infra_error and "no network" in (tr["demo"].error or "")
    )
    assert tr["demo"].changes == []
    assert by_id(out)["demo"] == by_id(tasks)["demo"]
    assert tr["junit-demo"].signal == "maven"  # nothing to collect there
