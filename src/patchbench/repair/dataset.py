"""``repair_dataset``: give every Harbor task of seeds 000 and 003 a default-fail verifier and usable tests.

Per task (a Harbor task: verifier kind SCRIPT, its directory kept in ``extra_files``):

1. choose the template: **Maven** (seed 003) when the task is a Java/JUnit one (a ``.java`` file in
   tests/, a ``pom.xml`` anywhere, or language java); **Python single file** (seed 000) when the
   workspace has a solution (``solution.py``, or its only top-level ``.py`` file) and tests/ holds
   pytest files; otherwise the task is left as it is and reported ``unsupported``;
2. Python: repair each test file (:mod:`patchbench.repair.testfiles`), then check for real that it is
   collected (``pytest --collect-only`` in the sandbox, in the task's environment). Mode A when at least
   one test file collects (the verifier runs those), mode B when none does;
3. write ``tests/test.sh`` (:mod:`patchbench.repair.templates`, its header records template and mode)
   and ``tests/test_state.py``, the repaired test files, and — Python — make sure the Dockerfile bakes in
   ``/app/.buggy_solution.py`` (a ``RUN cp`` line is added after the last COPY when it does not);
4. rebuild the Task from the new files, so ``extra_files`` and ``hidden_tests`` agree.

The :class:`RepairReport` records, per task, the template, the mode, every repair and every unrepairable
file, and the reward-signal distribution of seed 000 **as the repair step sees it** (static: from the
parse/compile/collect checks and an import of the buggy solution, never from running the verifier or
the tests; ``patchbench validate`` measures the dynamic one, and timeouts only show there):

* ``test-driven``: mode A, and the buggy solution imports (the tests decide);
* ``does-not-build``: mode A, but the buggy solution does not compile or import (the agent must fix
  that first; the tests were collected against a stand-in module);
* ``fallback``: mode B (no test file could be repaired to collect: modified + compiles + imports);
* ``maven``: seed 003's verifier (``maven-no-hidden-test`` when tests/ has no JUnit file to inject);
* ``unsupported``: no template fits; ``error``: the task could not be rebuilt (see its error).
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..errors import DatasetError, EnvError, SandboxError
from ..formats._dockerfile import logical_lines
from ..formats.harbor import task_from_files
from ..task import FileEntry, Task, VerifierKind
from .collect import Collector
from .templates import (
    MAVEN,
    PYTHON_SINGLE_FILE,
    MavenVerifier,
    Mode,
    Paths,
    PythonVerifier,
    render_test_state,
)
from .testfiles import Repair, RepairedFile, repair_test_source, solution_api

__all__ = [
    "SIGNALS",
    "FileReport",
    "RepairReport",
    "TaskReport",
    "repair_dataset",
    "repair_task",
    "write_report",
]

SIGNALS: dict[str, str] = {
    "test-driven": "test-driven (the test suite is collected; a fix makes it pass)",
    "does-not-build": "buggy solution does not import (the agent must fix imports first)",
    "fallback": "fallback mode B (test file unrepairable: modified + compiles + imports)",
    "maven": "Maven verifier (mvn test, hidden JUnit test injected)",
    "maven-no-hidden-test": "Maven verifier without a hidden JUnit test (the project's own tests decide)",
    "unsupported": "no template fits: left unchanged",
    "error": "could not be repaired (see the task's error)",
}
"""Reward-signal classes of the static distribution, with their meaning."""

BASELINE = ".buggy_solution.py"
#: Task metadata kept across the rebuild: the parquet columns beyond {path, task_binary}.
_KEPT_METADATA = ("harbor_parquet_columns",)
_PYTEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$")


class FileReport(BaseModel):
    """One test file of a task.

    Attributes:
        path: its path under tests/.
        repairs: what was changed, in order.
        collects: whether ``pytest --collect-only`` collected it (None: not checked).
        tests_collected: how many tests it collects.
        problem: why it is unrepairable, or None.
    """

    path: str
    repairs: list[Repair] = Field(default_factory=list)
    collects: bool | None = None
    tests_collected: int = 0
    problem: str | None = None


class TaskReport(BaseModel):
    """What the repair did to one task.

    Attributes:
        task_id: the task.
        template: ``python-single-file``, ``maven``, or None (unsupported).
        mode: ``A`` or ``B`` for the Python template.
        signal: the static reward-signal class (see the module docstring).
        solution: the solution file (Python) relative to /app.
        solution_imports: whether the buggy solution imports (None: not checked).
        solution_error: its import or compile error.
        files: the test files and their repairs.
        unrepairable: the test files that cannot be collected.
        changes: the task files rewritten or added, and lines added to the Dockerfile.
        notes: anything else worth knowing.
        error: why the task could not be repaired, if it could not (the task is then left unchanged).
        infra_error: the error was the machine's (environment, sandbox), not the task's.
    """

    task_id: str
    template: str | None = None
    mode: Mode | None = None
    signal: str = "unsupported"
    solution: str | None = None
    solution_imports: bool | None = None
    solution_error: str | None = None
    files: list[FileReport] = Field(default_factory=list)
    unrepairable: list[str] = Field(default_factory=list)
    changes: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    error: str | None = None
    infra_error: bool = False

    @property
    def repairs(self) -> list[Repair]:
        """Every repair made to the task's test files."""
        return [r for f in self.files for r in f.repairs]


class RepairReport(BaseModel):
    """The repair of a dataset.

    Attributes:
        dataset: the dataset path, as given.
        format: its format.
        collect_checked: whether test files were collected for real (else compile checks only).
        tasks: one report per task, in dataset order.
        distribution: signal → task count (static; see the module docstring).
        repairs_by_kind: repair kind → how many repairs of that kind.
        repaired_files: test files with at least one repair.
        unrepairable_files: test files that cannot be collected.
        seconds: wall time.
    """

    dataset: str = ""
    format: str = ""
    collect_checked: bool = True
    tasks: list[TaskReport] = Field(default_factory=list)
    distribution: dict[str, int] = Field(default_factory=dict)
    repairs_by_kind: dict[str, int] = Field(default_factory=dict)
    repaired_files: int = 0
    unrepairable_files: int = 0
    seconds: float = 0.0

    @property
    def fallback_tasks(self) -> list[str]:
        """The tasks that use mode B."""
        return [t.task_id for t in self.tasks if t.mode == "B"]

    def to_markdown(self) -> str:
        """The report as markdown (``repair_report.md``)."""
        return _markdown(self)


# ------------------------------------------------------------------------------------------- the driver


def repair_dataset(
    tasks: Sequence[Task],
    *,
    collector: Collector | None = None,
    collect: bool = True,
    sandbox: str = "bwrap",
    cache_dir: Path | None = None,
    jobs: int = 1,
    dataset: str = "",
    format: str = "",
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[list[Task], RepairReport]:
    """Repair every task (see the module docstring); tasks no template fits come back unchanged.

    Args:
        tasks: the tasks, in order.
        collector: runs the collect checks (default: one on ``sandbox`` with ``cache_dir``).
        collect: check collection for real; False falls back to parse/compile checks.
        sandbox: the sandbox backend of the default collector.
        cache_dir: the environment cache of the default collector.
        jobs: tasks repaired in parallel.
        dataset: the dataset path, for the report.
        format: the dataset format, for the report.
        on_progress: called with (done, total) after each task.

    Returns:
        The tasks (repaired or as they were), in order, and the report.

    Raises:
        SandboxError: the sandbox cannot run here (collect checks only).
    """
    t0 = time.monotonic()
    if collect and collector is None:
        collector = Collector(sandbox, cache_dir)
    use = collector if collect else None
    total = len(tasks)
    done = 0
    lock = threading.Lock()

    def one(task: Task) -> tuple[Task, TaskReport]:
        nonlocal done
        result = repair_task(task, use)
        with lock:
            done += 1
            if on_progress is not None:
                on_progress(done, total)
        return result

    if jobs > 1 and total > 1:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(one, tasks))
    else:
        results = [one(t) for t in tasks]
    report = RepairReport(dataset=dataset, format=format, collect_checked=use is not None)
    for _, tr in results:
        report.tasks.append(tr)
        report.distribution[tr.signal] = report.distribution.get(tr.signal, 0) + 1
        for f in tr.files:
            if f.repairs:
                report.repaired_files += 1
            for r in f.repairs:
                report.repairs_by_kind[r.kind.value] = report.repairs_by_kind.get(r.kind.value, 0) + 1
        report.unrepairable_files += len(tr.unrepairable)
    report.seconds = time.monotonic() - t0
    return [t for t, _ in results], report


def repair_task(task: Task, collector: Collector | None) -> tuple[Task, TaskReport]:
    """Repair one task. Never raises for the task's content: problems go into the report.

    Args:
        task: the task.
        collector: runs the collect checks; None checks parsing and compilation only.
    """
    report = TaskReport(task_id=task.id)
    if task.verifier is None or task.verifier.kind is not VerifierKind.SCRIPT or not task.extra_files:
        report.notes.append("not a Harbor script-verifier task")
        return task, report
    files: dict[str, FileEntry] = {f.path: f for f in task.extra_files}
    paths = Paths(
        app_dir=task.verifier.app_dir, tests_dir=task.verifier.tests_dir, logs_dir=task.verifier.logs_dir
    )
    try:
        if _is_java(task, files):
            _repair_maven(task, files, paths, report)
        else:
            solution = _solution_file(task, files)
            tests = sorted(p for p in files if p.startswith("tests/") and _is_pytest_file(p))
            if solution is None or not tests:
                why = (
                    "no solution.py-like file in the workspace"
                    if solution is None
                    else "no pytest file in tests/"
                )
                report.notes.append(f"no template fits: {why}")
                return task, report
            _repair_python(task, files, paths, solution, tests, collector, report)
        _sync_sidecar(files, report)
        rebuilt = task_from_files(
            task.id,
            {p: (f.data(), f.executable) for p, f in files.items()},
            source="patchbench repair",
            row=task.id,
        )
    except (EnvError, SandboxError) as e:
        report.template, report.mode, report.signal, report.changes = None, None, "error", []
        report.error = f"the collect check could not run: {e}"
        report.infra_error = True
        return task, report
    except (DatasetError, ValueError) as e:
        report.template, report.mode, report.signal, report.changes = None, None, "error", []
        report.error = str(e)
        return task, report
    metadata: dict[str, Any] = {k: task.metadata[k] for k in _KEPT_METADATA if k in task.metadata}
    metadata.update(rebuilt.metadata)
    metadata["patchbench_repair"] = report.model_dump(mode="json", include={"template", "mode", "signal"})
    return rebuilt.model_copy(update={"metadata": metadata}), report


# ---------------------------------------------------------------------------------------------- python


def _is_pytest_file(path: str) -> bool:
    rel = path[len("tests/") :]
    return bool(_PYTEST_FILE.search(rel)) and rel != "test_state.py"


def _solution_file(task: Task, files: dict[str, FileEntry]) -> str | None:
    """The solution's path in /app: ``solution.py``, or the only top-level .py file."""
    workspace = [f.path for f in task.workspace]
    if "solution.py" in workspace or "environment/solution.py" in files:
        return "solution.py"
    top = [p for p in workspace if "/" not in p and p.endswith(".py") and not p.startswith((".", "test_"))]
    return top[0] if len(top) == 1 else None


def _repair_python(
    task: Task,
    files: dict[str, FileEntry],
    paths: Paths,
    solution: str,
    tests: list[str],
    collector: Collector | None,
    report: TaskReport,
) -> None:
    report.template = PYTHON_SINGLE_FILE
    report.solution = solution
    ws = {f.path: f for f in task.workspace}
    entry = ws.get(solution) or files.get(f"environment/{solution}")
    if entry is None:  # pragma: no cover - _solution_file found it in one of the two
        raise ValueError(f"no {solution}")
    buggy = entry.data()
    module = posixpath.basename(solution)[: -len(".py")]
    text = buggy.decode("utf-8", errors="replace")
    api = solution_api(text, module)
    try:
        compile(text, solution, "exec", dont_inherit=True)
        compiles = True
    except (SyntaxError, ValueError) as e:
        compiles = False
        report.solution_imports = False
        report.solution_error = f"does not compile: {e}"

    repaired: dict[str, RepairedFile] = {}
    for path in tests:
        original = files[path].data().decode("utf-8", errors="replace")
        repaired[path] = repair_test_source(original, path[len("tests/") :], api)
    checkable = {p[len("tests/") :]: r.source for p, r in repaired.items() if r.problem is None}
    collected: dict[str, Any] = {}
    if collector is not None and checkable:
        support = {
            p[len("tests/") :]: f.data()
            for p, f in files.items()
            if p.startswith("tests/")
            and p not in repaired
            and p not in ("tests/test.sh", "tests/test_state.py")
        }
        # The solution as the repaired image holds it (a COPY line may be added below).
        image = (
            task
            if solution in ws
            else task.model_copy(
                update={"workspace": (*task.workspace, FileEntry.from_bytes(solution, buggy))}
            )
        )
        collected = collector.check(image, solution, checkable, support)
    usable: list[str] = []
    for path, rf in repaired.items():
        rel = path[len("tests/") :]
        fr = FileReport(path=rel, repairs=list(rf.repairs), problem=rf.problem)
        c = collected.get(rel)
        if c is not None:
            fr.collects, fr.tests_collected = c.ok, c.collected
            if not c.ok:
                fr.problem = c.problem
            if c.solution_imports is not None and compiles:
                report.solution_imports = c.solution_imports
                report.solution_error = c.solution_error
        if fr.problem is None:
            usable.append(rel)
        else:
            report.unrepairable.append(rel)
        report.files.append(fr)
        if rf.changed:
            files[path] = FileEntry.from_bytes(
                path, rf.source.encode("utf-8"), executable=files[path].executable
            )
            report.changes.append(path)

    report.mode = "A" if usable else "B"
    if report.mode == "B":
        report.signal = "fallback"
    elif report.solution_imports is False:
        report.signal = "does-not-build"
    else:
        report.signal = "test-driven"
    run_files = usable if usable else [p[len("tests/") :] for p in tests]
    verifier = PythonVerifier(
        solution=solution,
        test_files=tuple(run_files),
        mode=report.mode,
        baseline=BASELINE,
        buggy_sha256=hashlib.sha256(buggy).hexdigest(),
        paths=paths,
    )
    _write(files, "tests/test.sh", verifier.test_sh(), report, executable=True)
    _write(files, "tests/test_state.py", render_test_state(paths), report)
    _ensure_baseline(files, solution, solution in ws, paths.app_dir, report)


def _ensure_baseline(
    files: dict[str, FileEntry], solution: str, in_workspace: bool, app: str, report: TaskReport
) -> None:
    """Make the Dockerfile bake the buggy solution into /app and a baseline copy beside it."""
    entry = files.get("environment/Dockerfile")
    if entry is None:
        report.notes.append("no environment/Dockerfile: the baseline copy cannot be baked in")
        return
    text = entry.data().decode("utf-8", errors="replace")
    baseline_dst = posixpath.join(app, BASELINE)
    solution_dst = posixpath.join(app, solution)
    has_baseline = any(
        line.split(None, 1)[0].upper() in ("COPY", "ADD", "RUN") and BASELINE in line
        for line in logical_lines(text)
    )
    added: list[str] = []
    if not in_workspace:
        added.append(f"COPY {solution} {solution_dst}")
    if not has_baseline:
        added.append(f"RUN cp {solution_dst} {baseline_dst}")
    if not added:
        return
    lines = text.splitlines()
    insert_at = len(lines)  # after the last COPY/ADD instruction, else at the end
    current, continued = "", False
    for i, raw in enumerate(lines):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not continued:
            current = stripped.split(None, 1)[0].upper()
        continued = stripped.endswith("\\")
        if not continued and current in ("COPY", "ADD"):
            insert_at = i + 1
    new_lines = [*lines[:insert_at], *added, *lines[insert_at:]]
    files["environment/Dockerfile"] = FileEntry.from_bytes(
        "environment/Dockerfile", ("\n".join(new_lines) + "\n").encode("utf-8"), executable=entry.executable
    )
    report.changes.extend(f"environment/Dockerfile: added `{a}`" for a in added)


# ----------------------------------------------------------------------------------------------- maven


def _is_java(task: Task, files: dict[str, FileEntry]) -> bool:
    return (
        task.language == "java"
        or any(p.startswith("tests/") and p.endswith(".java") for p in files)
        or any(posixpath.basename(p) == "pom.xml" for p in files)
    )


def _repair_maven(task: Task, files: dict[str, FileEntry], paths: Paths, report: TaskReport) -> None:
    report.template = MAVEN
    java = sorted(p[len("tests/") :] for p in files if p.startswith("tests/") and p.endswith(".java"))
    top = [p for p in java if "/" not in p]
    test_file = "TestSolution.java" if "TestSolution.java" in top else (top[0] if top else None)
    others = [p for p in java if p != test_file]
    if others:
        report.notes.append(
            "JUnit files in tests/ not injected (one hidden test per task): " + ", ".join(others)
        )
    report.signal = "maven" if test_file else "maven-no-hidden-test"
    verifier = MavenVerifier(test_file=test_file, paths=paths)
    _write(files, "tests/test.sh", verifier.test_sh(), report, executable=True)
    _write(files, "tests/test_state.py", render_test_state(paths), report)


# ---------------------------------------------------------------------------------------------- common


def _write(
    files: dict[str, FileEntry], path: str, text: str, report: TaskReport, *, executable: bool = False
) -> None:
    data = text.encode("utf-8")
    old = files.get(path)
    if old is not None and old.data() == data and old.executable == executable:
        return
    files[path] = FileEntry.from_bytes(path, data, executable=executable)
    report.changes.append(path if old is not None else f"{path} (new)")


def _sync_sidecar(files: dict[str, FileEntry], report: TaskReport) -> None:
    """A task written by patchbench lists its hidden tests in metadata.json: add the new ones."""
    entry = files.get("metadata.json")
    if entry is None:
        return
    try:
        meta = json.loads(entry.data().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return
    sidecar = meta.get("patchbench") if isinstance(meta, dict) else None
    if not isinstance(sidecar, dict) or not isinstance(sidecar.get("hidden_tests"), list):
        return
    listed: list[str] = sidecar["hidden_tests"]
    missing = [
        p[len("tests/") :]
        for p in sorted(files)
        if p.startswith("tests/") and p[len("tests/") :] not in listed
    ]
    if not missing:
        return
    sidecar["hidden_tests"] = [*listed, *missing]
    files["metadata.json"] = FileEntry.from_bytes(
        "metadata.json", (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    )
    report.changes.append("metadata.json (hidden tests listed: " + ", ".join(missing) + ")")


# -------------------------------------------------------------------------------------------- reports


def write_report(report: RepairReport, out_dir: Path) -> tuple[Path, Path]:
    """Write ``repair_report.md`` and ``repair_report.json`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    md, js = out_dir / "repair_report.md", out_dir / "repair_report.json"
    md.write_text(report.to_markdown(), encoding="utf-8")
    payload = report.model_dump(mode="json")
    payload["fallback_tasks"] = report.fallback_tasks
    js.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return md, js


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _markdown(r: RepairReport) -> str:
    n = len(r.tasks)
    out = [
        "# Repair report",
        "",
        f"Dataset: `{r.dataset or '?'}` ({r.format or '?'}), {n} task(s), {r.seconds:.1f}s.",
        "",
        "Collection was "
        + (
            "checked for real (`pytest --collect-only` in the sandbox, in each task's environment)."
            if r.collect_checked
            else "NOT checked: parse and compile checks only (`--no-collect`)."
        ),
        "",
        "## Reward-signal distribution (static)",
        "",
        "Computed from the repair step: parsing, compiling and collecting the test files and importing the",
        "buggy solution. No verifier or test was run; `patchbench validate` measures the dynamic",
        "distribution (timeouts, tests the buggy code already passes) by running the verifier.",
        "",
        "| signal | tasks | share | meaning |",
        "| --- | ---: | ---: | --- |",
    ]
    for signal, count in sorted(r.distribution.items(), key=lambda kv: (-kv[1], kv[0])):
        share = f"{100 * count / n:.0f}%" if n else "-"
        out.append(f"| {signal} | {count} | {share} | {_cell(SIGNALS.get(signal, ''))} |")
    out += [
        "",
        "## Test-file repairs",
        "",
        f"{r.repaired_files} test file(s) repaired, {r.unrepairable_files} unrepairable.",
        "",
    ]
    if r.repairs_by_kind:
        out += ["| repair | count |", "| --- | ---: |"]
        out += [f"| {k} | {v} |" for k, v in sorted(r.repairs_by_kind.items())]
        out.append("")
    broken = [(t, f) for t in r.tasks for f in t.files if f.problem]
    if broken:
        out += ["## Unrepairable test files", "", "| task | file | mode | why |", "| --- | --- | --- | --- |"]
        out += [f"| {t.task_id} | {f.path} | {t.mode or '-'} | {_cell(f.problem or '')} |" for t, f in broken]
        out.append("")
    out += [
        "## Tasks",
        "",
        "| task | template | mode | signal | repairs | unrepairable | changes |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for t in r.tasks:
        repairs = "; ".join(f"{x.kind.value}: {x.detail}" for x in t.repairs) or "-"
        changes = ", ".join(t.changes) or "-"
        unrepairable = ", ".join(t.unrepairable) or "-"
        out.append(
            f"| {t.task_id} | {t.template or '-'} | {t.mode or '-'} | {t.signal} | {_cell(repairs)} | "
            f"{_cell(unrepairable)} | {_cell(changes)} |"
        )
    notes = [(t.task_id, x) for t in r.tasks for x in ([t.error] if t.error else []) + t.notes]
    if notes:
        out += ["", "## Notes", ""]
        out += [f"- {tid}: {_cell(x)}" for tid, x in notes]
    return "\n".join(out) + "\n"
