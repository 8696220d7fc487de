"""Does a repaired test file collect? ``pytest --collect-only`` in the sandbox, in the task's environment.

:class:`Collector` runs :mod:`patchbench.sandboxed.repair_collect` with the task's workspace as /app and the
tests as /tests (as the verifier sees them). When the buggy solution itself does not import (the agent must
fix that first), the file is collected against a permissive stand-in module, so that only the test file is
judged. A file that collects no test at all is unrepairable.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel

from ..envs import Prepared, env_for, env_variables, exec_in_env
from ..errors import UnsafeFileError
from ..sandbox import Bind, Limits, Sandbox, get_sandbox
from ..sandboxed import script
from ..task import Task
from ..untrusted import read_untrusted
from ..workspace import materialise

__all__ = ["CollectResult", "Collector"]


class CollectResult(BaseModel):
    """What ``pytest --collect-only`` made of one test file.

    Attributes:
        ok: the file collects at least one test and no collection error.
        collected: how many tests it collects.
        solution_imports: whether the buggy solution imports (False: collected against a stand-in).
        solution_error: the solution's import error, when it has one.
        problem: why the file does not collect, when it does not.
    """

    ok: bool
    collected: int = 0
    solution_imports: bool | None = None
    solution_error: str | None = None
    problem: str | None = None


class Collector:
    """Runs ``pytest --collect-only`` on repaired test files, in the sandbox and the task's environment.

    Args:
        sandbox: a Sandbox or a backend name (``bwrap``; ``none`` runs without isolation).
        cache_dir: the environment cache.
        timeout_s: the time limit of one collection.
    """

    def __init__(
        self, sandbox: Sandbox | str = "bwrap", cache_dir: Path | None = None, timeout_s: float = 60.0
    ) -> None:
        self.sandbox = get_sandbox(sandbox) if isinstance(sandbox, str) else sandbox
        self.cache_dir = cache_dir
        self.timeout_s = timeout_s
        self._envs: dict[str, Prepared] = {}
        self._lock = threading.Lock()

    def _env(self, task: Task) -> Prepared:
        """The task's prepared environment, looked up once per distinct environment spec."""
        spec = task.env
        key = json.dumps(
            [task.language, spec.image, sorted(spec.python_requirements), list(spec.setup_cmds)], default=str
        )
        with self._lock:
            if key not in self._envs:
                preparer = env_for(task.env.language, self.cache_dir)
                preparer.sandbox = self.sandbox
                self._envs[key] = preparer.prepare(task)
            return self._envs[key]

    def check(
        self,
        task: Task,
        solution: str,
        tests: Mapping[str, str],
        support: Mapping[str, bytes] | None = None,
    ) -> dict[str, CollectResult]:
        """Collect each of ``tests`` (path under /tests → repaired text) against the task's workspace.

        Args:
            task: the task (its workspace becomes /app, its environment runs pytest).
            solution: the solution's path in the workspace (its module is imported first).
            tests: the test files to check, repaired.
            support: the other files of tests/ (conftest.py, data), placed beside them.

        Raises:
            EnvError: the task's environment cannot be prepared.
            SandboxError: the sandbox failed.
        """
        env = self._env(task)
        module = Path(solution).name.removesuffix(".py")
        out: dict[str, CollectResult] = {}
        with tempfile.TemporaryDirectory(prefix="patchbench-collect-") as tmp:
            root = Path(tmp)
            driver = root / "driver"
            driver.mkdir()
            (driver / "collect.py").write_text(script("repair_collect.py"), encoding="utf-8")
            for path, text in tests.items():
                app, tdir, res = root / "app", root / "tests", root / "out"
                for d in (app, tdir, res):
                    shutil.rmtree(d, ignore_errors=True)
                    d.mkdir()
                materialise(task.workspace, app)
                for rel, data in (support or {}).items():
                    dest = tdir / rel
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(data)
                dest = tdir / path
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(text, encoding="utf-8")
                out[path] = self._collect(env, module, solution, path, app, tdir, res, driver)
        return out

    def _collect(
        self,
        env: Prepared,
        module: str,
        solution: str,
        path: str,
        app: Path,
        tdir: Path,
        res: Path,
        driver: Path,
    ) -> CollectResult:
        sb = self.sandbox
        b_app, b_tests = Bind(app, "/app", writable=True), Bind(tdir, "/tests", writable=True)
        b_out, b_drv = Bind(res, "/.patchbench-out", writable=True), Bind(driver, "/.patchbench-driver")
        solution_dir = str(Path(sb.path(b_app)) / Path(solution).parent)
        r = exec_in_env(
            sb,
            [
                "python",
                f"{sb.path(b_drv)}/collect.py",
                f"{sb.path(b_out)}/result.json",
                module,
                f"{sb.path(b_tests)}/{path}",
            ],
            env=env,
            cwd=sb.path(b_app),
            binds=[b_app, b_tests, b_out, b_drv],
            variables=env_variables(env, extra={"PYTHONPATH": solution_dir, "PYTHONDONTWRITEBYTECODE": "1"}),
            limits=Limits(timeout_s=self.timeout_s),
            prelude=False,
        )
        if r.timed_out:
            return CollectResult(ok=False, problem=f"collection timed out after {self.timeout_s:g}s")
        try:
            # Written by the sandboxed driver, with the dataset's code loaded: read like a report.
            data = json.loads(read_untrusted(res / "result.json", root=res, owner=r.uid).decode("utf-8"))
        except UnsafeFileError as e:
            return CollectResult(ok=False, problem=f"the collection result was tampered with: {e}")
        except (OSError, ValueError):
            tail = " ".join((r.text("stderr") or r.text("stdout")).split())[-300:]
            return CollectResult(ok=False, problem=f"collection crashed (exit {r.exit_code}): {tail}")
        items = [str(i) for i in data.get("items") or []]
        errors = [str(e) for e in data.get("errors") or []]
        rc = data.get("rc")
        common = {
            "collected": len(items),
            "solution_imports": bool(data.get("import_ok")),
            "solution_error": data.get("import_error"),
        }
        if errors or rc not in (0, 5):
            why = _collect_error(errors) if errors else f"pytest exited {rc}"
            return CollectResult(ok=False, problem=f"does not collect: {why}", **common)
        if not items:
            return CollectResult(ok=False, problem="collects no test", **common)
        return CollectResult(ok=True, **common)


def _collect_error(errors: list[str]) -> str:
    """The most telling line of pytest's collection error (the ``E   ...`` lines)."""
    for text in errors:
        lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
        if lines:
            return " ".join(lines)[-300:]
    return " ".join(errors[0].split())[-300:]
