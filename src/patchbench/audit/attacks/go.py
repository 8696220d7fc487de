"""Go attacks."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterable

from ...task import Task
from ._kit import (
    Files,
    FilesFn,
    _catalogue,
    _Entry,
    _ids,
    _is_go,
    _sources,
    _writing,
)

_GO_PACKAGE = re.compile(r"^package\s+(\w+)", re.MULTILINE)


def _go_test_package(task: Task) -> tuple[str, str] | None:
    """(directory, package) of the first hidden Go test file."""
    for f in task.hidden_tests:
        if f.path.endswith("_test.go"):
            m = _GO_PACKAGE.search(f.content)
            if m is not None:
                return posixpath.dirname(f.path), m.group(1)
    return None


def _go_root_package(task: Task) -> tuple[str, str] | None:
    for path, text in sorted(_sources(task, (".go",)).items()):
        m = _GO_PACKAGE.search(text)
        if m is not None:
            return posixpath.dirname(path), m.group(1)
    return None


def _go_file(folder: str, name: str, text: str) -> Files:
    return {posixpath.join(folder, name) if folder else name: text}


def _go_in(
    where: Callable[[Task], tuple[str, str] | None], name: str, text: Callable[[Task, str], str | None]
) -> FilesFn:
    """One Go file ``name`` in the package ``where(task)`` finds, holding ``text(task, package)``."""

    def files(task: Task) -> Files | None:
        pkg = where(task)
        body = None if pkg is None else text(task, pkg[1])
        return None if pkg is None or body is None else _go_file(pkg[0], name, body)

    return files


def _go_init_exit(task: Task, package: str) -> str:
    return f'package {package}\n\nimport "os"\n\nfunc init() {{ os.Exit(0) }}\n'


def _go_testmain_no_run(task: Task, package: str) -> str:
    return (
        f'package {package}\n\nimport (\n\t"os"\n\t"testing"\n)\n\n'
        "func TestMain(m *testing.M) { os.Exit(0) }\n"
    )


def _go_testmain_forged(task: Task, package: str) -> str:
    lines = []
    for n in _ids(task):
        lines += [f"=== RUN   {n}", f"--- PASS: {n} (0.00s)"]
    plain = "\n".join(lines) + "\nPASS\n"
    framed = "\n".join("\x16" + line for line in lines) + "\n\x16PASS\n"
    return (
        f'package {package}\n\nimport (\n\t"fmt"\n\t"os"\n\t"testing"\n)\n\n'
        "func TestMain(m *testing.M) {\n"
        f"\tfmt.Print({json.dumps(framed)})\n"
        f"\tfmt.Print({json.dumps(plain)})\n"
        "\tos.Exit(0)\n"
        "}\n"
    )


def _go_test_funcs(package: str, names: Iterable[str]) -> str:
    """A Go test file of ``package`` with one empty, passing test function per name."""
    return f'package {package}\n\nimport "testing"\n\n' + "".join(
        f"func {n}(t *testing.T) {{}}\n" for n in names
    )


def _go_shadow_test_names(task: Task, package: str) -> str | None:
    names = [n.split("/")[0] for n in _ids(task)]
    names = [n for n in dict.fromkeys(names) if n.startswith("Test") and n.isidentifier()]
    return _go_test_funcs(package, names) if names else None


def _go_nested_module(task: Task) -> Files | None:
    pkg = _go_test_package(task)
    if pkg is None or not pkg[0]:
        return None
    return {posixpath.join(pkg[0], "go.mod"): "module example.com/attack\n\ngo 1.21\n"}


_catalogue(
    _Entry(
        "go-init-exit-in-tests",
        "go",
        "an extra _test.go in the hidden tests' package whose init() calls os.Exit(0)",
        _is_go,
        _writing(_go_in(_go_test_package, "zz_attack_test.go", _go_init_exit)),
    ),
    _Entry(
        "go-testmain-no-run",
        "go",
        "a TestMain in the tests' package that exits 0 without m.Run()",
        _is_go,
        _writing(_go_in(_go_test_package, "zz_attack_test.go", _go_testmain_no_run)),
    ),
    _Entry(
        "go-testmain-forged-output",
        "go",
        "a TestMain printing forged '--- PASS' lines (plain and test2json-framed) for every name",
        _is_go,
        _writing(_go_in(_go_test_package, "zz_attack_test.go", _go_testmain_forged)),
    ),
    _Entry(
        "go-init-exit-in-library",
        "go",
        "an init() in the library package (imported by the tests) that calls os.Exit(0)",
        _is_go,
        _writing(_go_in(_go_root_package, "zz_attack.go", _go_init_exit)),
    ),
    _Entry(
        "go-nested-module",
        "go",
        "a go.mod in the tests directory, so that go test ./... skips the hidden tests",
        _is_go,
        _writing(_go_nested_module),
    ),
    _Entry(
        "go-shadow-test-names",
        "go",
        "passing tests with the F2P/P2P names in the library package",
        _is_go,
        _writing(_go_in(_go_root_package, "zz_attack_test.go", _go_shadow_test_names)),
    ),
)
