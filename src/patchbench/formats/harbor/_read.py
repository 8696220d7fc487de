"""Harbor task files -> Task: task.toml, instruction, the Dockerfile's workspace, hidden tests, gold."""

from __future__ import annotations

import json
import os
import posixpath
import re
import stat
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ...envs import ENV_CLASSES
from ...errors import DatasetError
from ...task import (
    EnvSpec,
    FileEntry,
    Task,
    TestCommand,
    TestSpec,
    VerifierKind,
    VerifierSpec,
    check_relpath,
)
from .._dockerfile import ImageSpec, uvx_packages, workspace_dir
from .._dockerfile import parse as parse_dockerfile

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib
from ._common import (
    _EXTENSIONS,
    _IMAGE_HINTS,
    _LANGUAGE_ALIASES,
    _UNRESOLVED_KEY,
    GOLD_PATCH,
    Files,
    _brief,
    _Sidecar,
)


def task_from_files(task_id: str, files: Mapping[str, tuple[bytes, bool]], *, source: str, row: str) -> Task:
    """One Task from a task directory held in memory (see the module docstring for the mapping).

    Args:
        task_id: the directory name or ``path`` column.
        files: ``{relative path: (content, executable)}``.
        source: the dataset path, for error messages.
        row: the row label (task id) for error messages.

    Raises:
        DatasetError: task.toml, tests/test.sh or instruction.md is missing or unreadable, or the task is
            otherwise invalid.
    """

    def bad(message: str) -> DatasetError:
        return DatasetError(message, source=source, row=row)

    for required in ("task.toml", "tests/test.sh", "instruction.md"):
        if required not in files:
            raise bad(f"no {required}")
    try:
        task_toml = tomllib.loads(files["task.toml"][0].decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise bad(f"task.toml: {_brief(e)}") from e
    try:
        prompt = files["instruction.md"][0].decode("utf-8")
    except UnicodeDecodeError as e:
        raise bad("instruction.md is not UTF-8") from e
    meta_json: dict[str, Any] = {}
    if "metadata.json" in files:
        try:
            parsed = json.loads(files["metadata.json"][0].decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            parsed = None  # still kept verbatim in extra_files; only its keys are not merged
        if isinstance(parsed, dict):
            meta_json = parsed

    extra_files = tuple(
        FileEntry.from_bytes(p, content, executable=executable)
        for p, (content, executable) in sorted(files.items())
    )
    tests = {p[len("tests/") :]: v for p, v in files.items() if p.startswith("tests/")}
    docker, app_dir, unresolved = _parse_dockerfile(files)
    workspace = tuple(
        FileEntry.from_bytes(p, content, executable=executable)
        for p, (content, executable) in sorted(_workspace_files(docker, app_dir).items())
    )

    try:
        if "patchbench" in meta_json:
            try:
                sidecar = _Sidecar.model_validate(meta_json["patchbench"])
            except ValidationError as e:
                raise bad(f"metadata.json 'patchbench': {_brief(e)}") from e
            missing = [p for p in sidecar.hidden_tests if p not in tests]
            if missing:
                raise bad(f"metadata.json lists hidden tests missing from tests/: {', '.join(missing)}")
            hidden = tuple(
                FileEntry.from_bytes(p, tests[p][0], executable=tests[p][1]) for p in sidecar.hidden_tests
            )
            rank = {p: i for i, p in enumerate(sidecar.workspace_order)}
            workspace = tuple(sorted(workspace, key=lambda f: (rank.get(f.path, len(rank)), f.path)))
            context = workspace if sidecar.context_files == "workspace" else sidecar.context_files
            return Task(
                id=task_id,
                prompt=prompt,
                language=sidecar.language,
                workspace=workspace,
                hidden_tests=hidden,
                test=sidecar.test,
                env=sidecar.env,
                fail_to_pass=sidecar.fail_to_pass,
                pass_to_pass=sidecar.pass_to_pass,
                gold_patch=sidecar.gold_patch,
                verifier=sidecar.verifier,
                context_files=context,
                buggy_files=sidecar.buggy_files,
                metadata=dict(sidecar.metadata),
                source_format="harbor",
                extra_files=extra_files,
            )

        timeout = _verifier_timeout(task_toml)
        metadata: dict[str, Any] = {**meta_json, "task_toml": task_toml}
        if unresolved:
            metadata[_UNRESOLVED_KEY] = unresolved
        hidden = tuple(FileEntry.from_bytes(p, c, executable=x) for p, (c, x) in sorted(tests.items()))
        language = _guess_language(task_toml, meta_json, workspace, docker.image, hidden)
        test_kwargs: dict[str, Any] = {"commands": (TestCommand(argv=("bash", "/tests/test.sh")),)}
        if timeout is not None:
            test_kwargs["time_limit_s"] = timeout
        gold = files.get(GOLD_PATCH)
        return Task(
            id=task_id,
            prompt=prompt,
            language=language,
            workspace=workspace,
            hidden_tests=hidden,
            test=TestSpec(**test_kwargs),
            env=EnvSpec(
                language=_env_language(language, hidden),
                image=docker.image,
                system_deps=tuple(docker.system_deps),
                python_requirements=_requirements(docker.python_requirements, tests),
            ),
            verifier=VerifierSpec(kind=VerifierKind.SCRIPT, script="tests/test.sh", app_dir=app_dir),
            gold_patch=gold[0].decode("utf-8", errors="replace") if gold else None,
            metadata=metadata,
            source_format="harbor",
            extra_files=extra_files,
        )
    except ValidationError as e:
        raise bad(_brief(e)) from e


def _is_single_task_dir(path: Path) -> bool:
    """A task directory (possibly broken) rather than a collection of them."""
    markers = (path / "task.toml", path / "instruction.md", path / "tests" / "test.sh")
    return any(m.exists() for m in markers)


def _read_task_dir(task_dir: Path, *, source: str, row: str) -> Files:
    """Every file of a task directory; a symlink is read through only when it stays inside the directory."""
    root = task_dir.resolve()
    files: Files = {}
    for current, dirnames, filenames in os.walk(task_dir, followlinks=False):
        for name in dirnames:
            if os.path.islink(os.path.join(current, name)):
                rel = os.path.relpath(os.path.join(current, name), task_dir)
                raise DatasetError(f"{rel!r} is a symlinked directory (unsupported)", source=source, row=row)
        for name in filenames:
            full = Path(current) / name
            rel = full.relative_to(task_dir).as_posix()
            real = full.resolve()
            if real != root and root not in real.parents:
                raise DatasetError(f"{rel!r} is a symlink pointing outside the task", source=source, row=row)
            try:
                st = real.stat()
                if not stat.S_ISREG(st.st_mode):
                    raise DatasetError(f"{rel!r} is not a regular file", source=source, row=row)
                files[rel] = (real.read_bytes(), bool(st.st_mode & 0o111))
            except OSError as e:
                raise DatasetError(f"cannot read {rel!r} ({_brief(e)})", source=source, row=row) from e
    return files


def _verifier_timeout(task_toml: Mapping[str, Any]) -> float | None:
    verifier = task_toml.get("verifier")
    if not isinstance(verifier, dict):
        return None
    value = verifier.get("timeout_sec")
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    return float(value)


def _guess_language(
    task_toml: Mapping[str, Any],
    meta_json: Mapping[str, Any],
    workspace: Sequence[FileEntry],
    image: str | None,
    tests: Sequence[FileEntry],
) -> str:
    toml_meta = task_toml.get("metadata")
    sources = [toml_meta if isinstance(toml_meta, dict) else {}, meta_json]
    for meta in sources:
        named = meta.get("language")
        if isinstance(named, str) and named.strip().lower() in _LANGUAGE_ALIASES:
            return _LANGUAGE_ALIASES[named.strip().lower()]
    for meta in sources:
        tags = meta.get("tags")
        if isinstance(tags, list):
            for tag in tags:
                if isinstance(tag, str) and tag.strip().lower() in _LANGUAGE_ALIASES:
                    return _LANGUAGE_ALIASES[tag.strip().lower()]
    by_extension = _language_of_files(workspace)
    if by_extension:
        return by_extension
    if image:
        # "docker.io/library/eclipse-temurin:17-jdk" -> {"eclipse", "temurin"}: whole words only, so that
        # e.g. "ubuntu:trusty" does not read as rust.
        name = image.lower().rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0]
        words = set(re.split(r"[^a-z0-9]+", name))
        for hint, language in _IMAGE_HINTS:
            if hint in words:
                return language
    return _language_of_files(tests) or "python"


def _requirements(image: Sequence[str], tests: Mapping[str, tuple[bytes, bool]]) -> tuple[str, ...]:
    """The Dockerfile's ``pip install`` packages, then what ``tests/test.sh`` runs through ``uvx``
    (Harbor's task template: ``uvx --with pytest==8.4.1 --with pytest-json-ctrf==0.3.5 pytest ...``),
    which the sandbox cannot download at verify time: the setup phase installs them, the uvx shim runs
    them."""
    script = tests.get("test.sh")
    extra = uvx_packages(script[0].decode("utf-8", errors="replace")) if script else []
    out = list(image)
    names = {_package_name(r) for r in image}
    for requirement in extra:
        if _package_name(requirement) not in names:  # the first spelling of a package wins
            names.add(_package_name(requirement))
            out.append(requirement)
    return tuple(out)


def _package_name(requirement: str) -> str:
    return re.split(r"[<>=!~\[;@ ]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _env_language(language: str, tests: Sequence[FileEntry]) -> str:
    """The environment that runs the verifier: the task's language when patchbench can prepare it, else
    the tests' (a C project checked by ``tests/test_outputs.py`` needs Python and pytest), else python."""
    if language in ENV_CLASSES:
        return language
    of_tests = _language_of_files(tests)
    return of_tests if of_tests in ENV_CLASSES else "python"


def _language_of_files(files: Sequence[FileEntry]) -> str | None:
    counts = Counter(
        _EXTENSIONS[ext] for f in files if (ext := posixpath.splitext(f.path)[1].lower()) in _EXTENSIONS
    )
    if not counts:
        return None
    best = max(counts.values())
    return sorted(lang for lang, n in counts.items() if n == best)[0]


def _parse_dockerfile(files: Mapping[str, tuple[bytes, bool]]) -> tuple[ImageSpec, str, list[str]]:
    """The image ``environment/Dockerfile`` builds (build context ``environment/``), the workspace
    directory, and the ``COPY``/``ADD`` lines that could not be resolved."""
    raw = files.get("environment/Dockerfile")
    if raw is None:
        spec = ImageSpec()
        return spec, workspace_dir(spec), []
    try:
        text = raw[0].decode("utf-8")
    except UnicodeDecodeError:
        spec = ImageSpec()
        return spec, workspace_dir(spec), ["environment/Dockerfile is not UTF-8"]
    context = {p[len("environment/") :]: v for p, v in files.items() if p.startswith("environment/")}
    spec = parse_dockerfile(text, context)
    return spec, workspace_dir(spec), list(spec.unresolved)


def _workspace_files(spec: ImageSpec, app_dir: str) -> dict[str, tuple[bytes, bool]]:
    """The files the image puts under ``app_dir``, relative to it (unsafe paths left out)."""
    out: dict[str, tuple[bytes, bool]] = {}
    prefix = app_dir.rstrip("/") + "/"
    for target, entry in spec.files.items():
        if target.startswith(prefix):
            try:
                out[check_relpath(target[len(prefix) :])] = entry
            except ValueError:
                continue
    return out
