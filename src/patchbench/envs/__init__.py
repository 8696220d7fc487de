"""Environments: per-language preparation behind one interface, in a content-addressed cache."""

from __future__ import annotations

from pathlib import Path

from ..errors import EnvError
from ._base import Env, Prepared, default_cache_dir
from .python import PythonEnv

ENVS: dict[str, type[Env]] = {"python": PythonEnv}


def env_for(language: str, cache_dir: Path | None = None) -> Env:
    """The environment preparer for a language.

    Raises:
        EnvError: no preparer handles ``language``.
    """
    for cls in ENVS.values():
        if language in cls.languages:
            return cls(cache_dir)
    raise EnvError(
        f"no environment support for language {language!r} yet (supported: "
        + ", ".join(sorted(lang for c in ENVS.values() for lang in c.languages))
        + ")"
    )


__all__ = ["ENVS", "Env", "Prepared", "default_cache_dir", "env_for"]
