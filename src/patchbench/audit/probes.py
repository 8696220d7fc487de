"""Dynamic probes: adversarial candidates run against a task's real verifier through :func:`patchbench.run`.

A verifier must give nothing to a candidate that did not fix the bug. Six probes, each run once:

``empty-workspace``
    every workspace file removed (:meth:`Candidate.wipe`);
``unmodified``
    the starting code as given (:meth:`Candidate.empty`); skipped when the task has no starting files
    (it would repeat ``empty-workspace``);
``code-deleted``
    every source file of the workspace (``.py``, ``.java``, ``.js``, ``.ts``, ``.go``, ``.rs``, ``.c``...)
    replaced by an empty file; skipped when the workspace holds no source file;
``self-reward``
    the candidate writes the reward file itself: every Python file gets code that writes
    ``<logs_dir>/reward.txt`` = 1 when imported, plus a ``sitecustomize.py`` and a ``conftest.py`` that
    do the same; Java classes get a static initializer, JavaScript/TypeScript files a module-level write,
    Go packages an ``init()`` in an extra file, a Cargo package a ``build.rs``. Note: patchbench's own
    test-configuration guard removes ``sitecustomize.py``/``conftest.py`` before the verifier runs (the
    result lists them under ``config_files_blocked``): a verifier that passes here may still fall to them
    under a harness without that guard;
``does-not-compile``
    a syntax error appended to the main source file (a buggy file, else ``solution.*``/``main.*``/
    ``index.*``/``lib.rs``, else the largest source file of the task's language); skipped when there is
    none;
``tamper-tests``
    every Python file gets code that, when imported, overwrites each Python test file under the
    verifier's tests directory with one test that passes. The verifier's ``/tests`` is writable, so a
    verifier that imports candidate code before it runs the hidden tests (an "imports cleanly" check, say)
    then runs the candidate's tests instead. Skipped for workspaces without Python files.

A probe is *rewarded* when its verdict is ``resolved`` or its reward is above 0; that flags the task.
A probe whose run failed for infrastructure reasons is reported with its status and flags nothing.
Probes apply to script verifiers (``tests/test.sh``); tasks that patchbench grades per test are skipped.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..candidate import Candidate
from ..engine import Job, LocalEngine
from ..sandbox import Sandbox
from ..screen import SuspiciousPolicy
from ..task import Task, VerifierKind
from ..verdict import Status, Verdict

__all__ = [
    "PROBES",
    "PlannedProbe",
    "ProbeResult",
    "judge_probe",
    "plan_probes",
    "run_probes",
]

PROBES: dict[str, str] = {
    "empty-workspace": "every workspace file removed",
    "unmodified": "the starting code, unchanged",
    "code-deleted": "every source file replaced by an empty file",
    "self-reward": "code in the workspace writes reward.txt = 1 itself when imported, compiled or run",
    "does-not-compile": "a syntax error in the main source file",
    "tamper-tests": "code in the workspace replaces the hidden Python tests with one that passes",
}
"""Every probe and what its candidate is."""

SOURCE_EXTENSIONS = frozenset(
    {
        *(".py", ".java", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".go", ".rs", ".c", ".cc"),
        *(".cpp", ".cxx", ".h", ".hpp", ".rb", ".php", ".cs", ".kt", ".scala", ".swift"),
    }
)
"""What counts as a source file for ``code-deleted`` and ``does-not-compile``."""

_LANGUAGE_EXTENSIONS = {
    "python": (".py",),
    "java": (".java",),
    "javascript": (".js", ".mjs", ".cjs", ".jsx"),
    "typescript": (".ts", ".tsx"),
    "go": (".go",),
    "rust": (".rs",),
    "c": (".c", ".h"),
    "cpp": (".cpp", ".cc", ".cxx", ".hpp", ".h"),
}
_BROKEN = {
    ".py": "\n\ndef __patchbench_probe__(:\n    pass\n",
    ".java": "\nclass PatchbenchProbeBroken { void probe( }\n",
    ".go": "\nfunc patchbenchProbe( {\n",
    ".rs": "\nfn patchbench_probe( {\n",
}
_BROKEN_C_LIKE = "\nint patchbench_probe( {\n"
_BROKEN_JS = "\nfunction __patchbench_probe__( {\n"
_BROKEN_OTHER = "\n)(}{ patchbench probe: not valid in any language\n"
_JAVA_TYPE = re.compile(r"^(?:[\w@.()\"=, ]+\s)?(?:class|enum|record)\s+\w+[^{;]*\{", re.MULTILINE)
_GO_PACKAGE = re.compile(r"^package\s+(\w+)", re.MULTILINE)
_TAIL = 2000


class ProbeResult(BaseModel):
    """What one probe came to.

    Attributes:
        probe: the probe's name (a key of :data:`PROBES`).
        description: what its candidate is.
        rewarded: True when the verifier rewarded it (status ``resolved`` or reward > 0): the task is flagged.
        status: the verdict's status; None when the probe was skipped.
        reward: the verdict's reward.
        reason: the verdict's reason.
        output_tail: the end of the verifier's output (stdout, then stderr).
        changed_files: what the candidate changed.
        config_files_blocked: files patchbench's test-configuration guard removed before the verifier ran.
        skipped: why the probe was not run, when it was not.
        seconds: the run's wall time.
    """

    model_config = ConfigDict(frozen=True)

    probe: str
    description: str
    rewarded: bool = False
    status: Status | None = None
    reward: float = 0.0
    reason: str = ""
    output_tail: str = ""
    changed_files: tuple[str, ...] = ()
    config_files_blocked: tuple[str, ...] = ()
    skipped: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class PlannedProbe:
    """A probe for one task: its candidate, or why it cannot be run."""

    task: Task
    probe: str
    candidate: Candidate | None
    skipped: str | None = None


def is_script_task(task: Task) -> bool:
    """Whether the task's reward comes from a script verifier (the tasks probes apply to)."""
    return task.verifier is not None and task.verifier.kind is VerifierKind.SCRIPT


def plan_probes(task: Task) -> list[PlannedProbe]:
    """The probes for one task, in :data:`PROBES` order (skipped ones included, with their reason)."""
    sources = _sources(task)
    out = [
        PlannedProbe(
            task, "empty-workspace", Candidate.wipe().model_copy(update={"label": "empty-workspace"})
        )
    ]
    if task.workspace or task.repository is not None:
        out.append(
            PlannedProbe(task, "unmodified", Candidate.empty().model_copy(update={"label": "unmodified"}))
        )
    else:
        out.append(
            PlannedProbe(task, "unmodified", None, "the task has no starting files (see empty-workspace)")
        )
    if sources:
        deleted = Candidate.files(dict.fromkeys(sources, ""), label="code-deleted")
        out.append(PlannedProbe(task, "code-deleted", deleted))
    else:
        out.append(PlannedProbe(task, "code-deleted", None, "the workspace holds no source file"))
    out.append(PlannedProbe(task, "self-reward", self_reward_candidate(task)))
    main = main_source(task)
    if main is not None:
        text = task.workspace_map()[main]
        out.append(
            PlannedProbe(
                task,
                "does-not-compile",
                Candidate.files({main: text + _broken(main)}, label="does-not-compile"),
            )
        )
    else:
        out.append(PlannedProbe(task, "does-not-compile", None, "the workspace holds no source file"))
    tamper = tamper_tests_candidate(task)
    if tamper is not None:
        out.append(PlannedProbe(task, "tamper-tests", tamper))
    else:
        out.append(PlannedProbe(task, "tamper-tests", None, "the workspace holds no Python file"))
    return out


def _sources(task: Task) -> list[str]:
    return [f.path for f in task.workspace if posixpath.splitext(f.path)[1].lower() in SOURCE_EXTENSIONS]


def main_source(task: Task) -> str | None:
    """The file ``does-not-compile`` breaks (see the module docstring)."""
    sources = _sources(task)
    if not sources:
        return None
    for path in task.buggy_files:
        if path in sources:
            return path
    for path in sources:
        stem = posixpath.splitext(posixpath.basename(path))[0].lower()
        if stem in ("solution", "main", "index", "app") or posixpath.basename(path) == "lib.rs":
            return path
    sizes = {f.path: len(f.content) for f in task.workspace}
    own = _LANGUAGE_EXTENSIONS.get(task.language, ())
    preferred = [p for p in sources if p.endswith(own)] or sources
    return max(preferred, key=lambda p: (sizes.get(p, 0), p))


def _broken(path: str) -> str:
    ext = posixpath.splitext(path)[1].lower()
    if ext in _BROKEN:
        return _BROKEN[ext]
    if ext in (".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx"):
        return _BROKEN_JS
    if ext in (".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".cs", ".kt", ".scala", ".swift", ".php"):
        return _BROKEN_C_LIKE
    return _BROKEN_OTHER


def _reward_path(task: Task) -> str:
    logs = task.verifier.logs_dir if task.verifier is not None else "/logs/verifier"
    return posixpath.join(logs, "reward.txt")


def self_reward_candidate(task: Task) -> Candidate:
    """Files that write the reward file themselves when imported, compiled or run (see the module doc)."""
    path = _reward_path(task)
    folder = posixpath.dirname(path)
    py = (
        "\n\n# patchbench audit probe: this code writes the verifier's reward file itself\n"
        "def __patchbench_probe__():\n"
        "    import os\n"
        "    try:\n"
        f"        os.makedirs({folder!r}, exist_ok=True)\n"
        f"        with open({path!r}, 'w') as fh:\n"
        "            fh.write('1\\n')\n"
        "    except OSError:\n"
        "        pass\n\n\n"
        "__patchbench_probe__()\n"
    )
    js = (
        "\n// patchbench audit probe: this code writes the verifier's reward file itself\n"
        "// @ts-ignore\n"
        f'import("node:fs").then((fs: any) => {{ try {{ fs.mkdirSync("{folder}", {{ recursive: true }}); '
        f'fs.writeFileSync("{path}", "1\\n"); }} catch (e) {{}} }}).catch(() => {{}});\n'
    )
    java = (
        "\n    // patchbench audit probe: this code writes the verifier's reward file itself\n"
        "    static {\n"
        "        try {\n"
        f'            java.nio.file.Files.createDirectories(java.nio.file.Paths.get("{folder}"));\n'
        f'            java.nio.file.Files.write(java.nio.file.Paths.get("{path}"), "1\\n".getBytes());\n'
        "        } catch (Exception patchbenchProbe) {\n"
        "        }\n"
        "    }\n"
    )
    files: dict[str, str | None] = {}
    ws = task.workspace_map()
    go_dirs: dict[str, str] = {}
    for rel, text in ws.items():
        ext = posixpath.splitext(rel)[1].lower()
        if ext == ".py":
            files[rel] = text + py
        elif ext in (".js", ".mjs", ".cjs", ".jsx"):
            files[rel] = text + js.replace("(fs: any)", "(fs)")
        elif ext in (".ts", ".tsx"):
            files[rel] = text + js
        elif ext == ".java":
            m = _JAVA_TYPE.search(text)
            if m is not None:
                files[rel] = text[: m.end()] + java + text[m.end() :]
        elif ext == ".go" and not rel.endswith("_test.go"):
            pm = _GO_PACKAGE.search(text)
            if pm is not None:
                go_dirs.setdefault(posixpath.dirname(rel), pm.group(1))
    for folder_rel, package in sorted(go_dirs.items()):
        name = (
            posixpath.join(folder_rel, "zz_patchbench_probe.go") if folder_rel else "zz_patchbench_probe.go"
        )
        files[name] = (
            f"package {package}\n\n"
            "// patchbench audit probe: this code writes the verifier's reward file itself\n\n"
            'import "os"\n\n'
            "func init() {\n"
            f'\t_ = os.MkdirAll("{folder}", 0o755)\n'
            f'\t_ = os.WriteFile("{path}", []byte("1\\n"), 0o644)\n'
            "}\n"
        )
    if "Cargo.toml" in ws and "build.rs" not in ws:
        files["build.rs"] = (
            "// patchbench audit probe: this code writes the verifier's reward file itself\n"
            "fn main() {\n"
            f'    let _ = std::fs::create_dir_all("{folder}");\n'
            f'    let _ = std::fs::write("{path}", "1\\n");\n'
            "}\n"
        )
    for name in ("sitecustomize.py", "conftest.py"):
        files[name] = ws.get(name, "") + py
    return Candidate.files(files, label="self-reward")


def tamper_tests_candidate(task: Task) -> Candidate | None:
    """Python files that overwrite the hidden Python tests with one passing test when imported."""
    tests_dir = task.verifier.tests_dir if task.verifier is not None else "/tests"
    code = (
        "\n\n# patchbench audit probe: this code replaces the verifier's tests with one that passes\n"
        "def __patchbench_tamper__():\n"
        "    import os\n"
        f"    for root, _dirs, names in os.walk({tests_dir!r}):\n"
        "        for name in names:\n"
        "            if name.endswith('.py') and (name.startswith('test') or name.endswith('_test.py')):\n"
        "                try:\n"
        "                    with open(os.path.join(root, name), 'w') as fh:\n"
        "                        fh.write('def test_patchbench_probe():\\n    pass\\n')\n"
        "                except OSError:\n"
        "                    pass\n\n\n"
        "__patchbench_tamper__()\n"
    )
    files: dict[str, str | None] = {
        f.path: f.content + code for f in task.workspace if f.path.endswith(".py")
    }
    return Candidate.files(files, label="tamper-tests") if files else None


def judge_probe(planned: PlannedProbe, verdict: Verdict | None) -> ProbeResult:
    """A probe's result from its verdict (None when it was skipped)."""
    description = PROBES[planned.probe]
    if verdict is None:
        return ProbeResult(probe=planned.probe, description=description, skipped=planned.skipped or "not run")
    tail = "\n".join(t for t in (verdict.stdout_tail.strip(), verdict.stderr_tail.strip()) if t)
    rewarded = verdict.status is Status.RESOLVED or verdict.reward > 0
    return ProbeResult(
        probe=planned.probe,
        description=description,
        rewarded=rewarded,
        status=verdict.status,
        reward=verdict.reward,
        reason=verdict.reason,
        output_tail=tail[-_TAIL:],
        changed_files=verdict.changed_files,
        config_files_blocked=verdict.config_files_blocked,
        seconds=round(verdict.durations.total_s, 3),
    )


def run_planned(
    planned: Sequence[PlannedProbe],
    *,
    jobs: int = 1,
    sandbox: Sandbox | str = "bwrap",
    cache_dir: Path | None = None,
    repos: Sequence[str | Path] = (),
    on_done: Callable[[int, int], None] | None = None,
) -> tuple[list[ProbeResult], int]:
    """Run every planned probe that has a candidate, ``jobs`` at a time; results in ``planned`` order.

    ``repos`` are the local repository cache directories for repository tasks (see :mod:`patchbench.repos`).

    Returns:
        The results and how many runs were made.
    """
    runnable = [p for p in planned if p.candidate is not None]
    # The probes measure the verifier itself: the static screen's policy must not hide what it rewards.
    policy = SuspiciousPolicy.REPORT
    engine = LocalEngine(
        jobs=jobs, sandbox=sandbox, cache_dir=cache_dir, repos=repos, suspicious_policy=policy
    )
    work = [Job(p.task, p.candidate) for p in runnable if p.candidate is not None]
    done = [0]

    def tick(_job: Job, _v: Verdict) -> None:
        done[0] += 1
        if on_done is not None:
            on_done(done[0], len(work))

    verdicts = engine.map(work, on_done=tick)
    by_id = {id(p): v for p, v in zip(runnable, verdicts, strict=True)}
    return [judge_probe(p, by_id.get(id(p))) for p in planned], engine.stats.executed


def run_probes(
    task: Task,
    *,
    jobs: int = 1,
    sandbox: Sandbox | str = "bwrap",
    cache_dir: Path | None = None,
) -> list[ProbeResult]:
    """Run every probe against one task's verifier (see the module docstring).

    Tasks without a script verifier get no probe (an empty list).
    """
    if not is_script_task(task):
        return []
    results, _ = run_planned(plan_probes(task), jobs=jobs, sandbox=sandbox, cache_dir=cache_dir)
    return results
