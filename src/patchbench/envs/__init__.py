"""Environments: per-language preparation behind one interface, in a content-addressed cache."""

from __future__ import annotations

import importlib
from pathlib import Path

from ..errors import EnvError
from ..lifecycle import default_cache_dir
from ._base import Env, Prepared
from ._exec import BASE_PATH, env_variables, exec_in_env
from .python import PythonEnv

#: Which environment handles which language: "module:Class", imported when first needed, so an
#: ecosystem's module can be absent (its languages then get a clear EnvError).
ENV_CLASSES: dict[str, str] = {
    "python": "patchbench.envs.python:PythonEnv",
    "sql": "patchbench.envs.python:PythonEnv",
    "javascript": "patchbench.envs.node:NodeEnv",
    "typescript": "patchbench.envs.node:NodeEnv",
    "go": "patchbench.envs.go:GoEnv",
    "rust": "patchbench.envs.rust:RustEnv",
    "java": "patchbench.envs.java:JavaEnv",
}
ENVS: dict[str, type[Env]] = {"python": PythonEnv}


def env_for(language: str, cache_dir: Path | None = None) -> Env:
    """The environment preparer for a language.

    Raises:
        EnvError: no preparer handles ``language``.
    """
    spec = ENV_CLASSES.get(language.lower())
    if spec is None:
        raise EnvError(
            f"no environment support for language {language!r} (supported: {', '.join(sorted(ENV_CLASSES))})"
        )
    module, _, cls_name = spec.partition(":")
    try:
        cls: type[Env] = getattr(importlib.import_module(module), cls_name)
    except ModuleNotFoundError as e:
        if e.name != module:
            raise
        raise EnvError(f"environment support for {language!r} is not available in this build") from None
    return cls(cache_dir)


__all__ = [
    "BASE_PATH",
    "ENVS",
    "ENV_CLASSES",
    "Env",
    "Prepared",
    "default_cache_dir",
    "env_for",
    "env_variables",
    "exec_in_env",
]
