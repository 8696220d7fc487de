"""Mechanical repair of LLM-written test files (repair/testfiles.py): the corpus of seed 000's defects."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from patchbench.api import load
from patchbench.repair.collect import Collector
from patchbench.repair.testfiles import (
    RepairedFile,
    RepairKind,
    repair_test_source,
    solution_api,
    strip_markdown,
)
from patchbench.task import FileEntry, Task

FIXTURES = Path(__file__).parent.parent / "fixtures" / "repair"
CORPUS = FIXTURES / "corpus"
DEMO = FIXTURES / "bugsinpy-demo"
SOLUTION = (DEMO / "environment" / "solution.py").read_text()

K = RepairKind
#: corpus file -> (the repair kinds it must get, tests it then collects, a word of its problem or None)
EXPECTED: dict[str, tuple[set[RepairKind], int, str | None]] = {
    "fences_prose.py": ({K.FENCES, K.PROSE}, 3, None),
    "pytest_main_decorator.py": ({K.PYTEST_MAIN_DECORATOR}, 2, None),
    "non_ascii_bytes.py": ({K.NON_ASCII_BYTES}, 2, None),
    "typing_enum.py": ({K.TYPING_ENUM}, 1, None),
    "collections_abc.py": ({K.COLLECTIONS_ABC}, 2, None),
    "missing_imports.py": ({K.MISSING_IMPORT}, 4, None),
    "unrepairable_await.py": (set(), 0, "await"),
    "unrepairable_api.py": (set(), 0, "median_low"),
}


def repair(name: str) -> RepairedFile:
    return repair_test_source((CORPUS / name).read_text(), name, solution_api(SOLUTION))


def test_the_corpus_covers_every_file() -> None:
    assert {p.name for p in CORPUS.glob("*.py")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_repairs_are_recorded(name: str) -> None:
    kinds, _, problem = EXPECTED[name]
    result = repair(name)
    assert {r.kind for r in result.repairs} == kinds
    assert all(r.detail for r in result.repairs)
    if problem is None:
        assert result.problem is None
        compile(result.source, name, "exec")  # the repaired file compiles
        assert result.changed
    else:
        assert result.problem is not None and problem in result.problem


@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items() if e[2] is None))
def test_repair_is_idempotent(name: str) -> None:
    once = repair(name)
    twice = repair_test_source(once.source, name, solution_api(SOLUTION))
    assert twice.repairs == [] and not twice.changed and twice.problem is None


def test_originals_do_not_compile_or_import() -> None:
    """The corpus really is broken before the repair (collection is checked for real below)."""
    for name in ("fences_prose.py", "non_ascii_bytes.py", "unrepairable_await.py"):
        with pytest.raises(SyntaxError):
            compile((CORPUS / name).read_text(), name, "exec")


def test_fences_keep_the_python_block_and_drop_prose_and_other_blocks() -> None:
    result = repair("fences_prose.py")
    assert "```" not in result.source
    assert "Here is" not in result.source and "pytest -q" not in result.source
    fences = next(r for r in result.repairs if r.kind is K.FENCES)
    assert "bash" in fences.detail


def test_pytest_main_decorators_are_removed_everywhere() -> None:
    result = repair("pytest_main_decorator.py")
    assert "pytest.main" not in result.source
    assert len([r for r in result.repairs if r.kind is K.PYTEST_MAIN_DECORATOR]) == 2
    aliased = repair_test_source("from pytest import main\n\n@main()\ndef test_a():\n    pass\n")
    assert "@main" not in aliased.source and aliased.repairs[0].kind is K.PYTEST_MAIN_DECORATOR


def test_non_ascii_bytes_become_str_including_concatenations() -> None:
    result = repair("non_ascii_bytes.py")
    tree = ast.parse(result.source)
    consts = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert "café" in consts and "naïve" in consts
    assert not any(isinstance(c, bytes) for c in consts)  # the concatenation went str as a whole
    ascii_only = repair_test_source('X = b"\\xff"\n\ndef test_a():\n    assert X\n')
    assert ascii_only.repairs == []  # escapes are ASCII: nothing to do


def test_typing_enum_moves_to_enum_keeping_the_rest() -> None:
    result = repair("typing_enum.py")
    assert "from typing import List" in result.source
    assert "from enum import Enum" in result.source
    aliased = repair_test_source("from typing import Enum as E\n\nclass K(E):\n    A = 1\n")
    assert "from enum import Enum as E" in aliased.source
    attribute = repair_test_source("import typing\n\nclass K(typing.Enum):\n    A = 1\n")
    assert "enum.Enum" in attribute.source and "import enum" in attribute.source
    assert [r.kind for r in attribute.repairs] == [K.TYPING_ENUM]


def test_collections_abcs_move_to_collections_abc() -> None:
    result = repair("collections_abc.py")
    assert "from collections import OrderedDict" in result.source
    assert "from collections.abc import MutableMapping, Sequence" in result.source
    assert "collections.abc.Mapping" in result.source and "import collections.abc" in result.source


def test_missing_stdlib_imports_are_injected_by_name() -> None:
    result = repair("missing_imports.py")
    details = " | ".join(r.detail for r in result.repairs)
    for wanted in (
        "import os",
        "import sys",
        "import re",
        "import inspect",
        "import json",
        "import math",
        "import itertools",
        "import functools",
        "import pytest",
        "from dataclasses import dataclass",
        "from typing import List",
        "from typing import Optional",
        "from collections import defaultdict",
        "from datetime import datetime",  # datetime.now(): the class, not the module
    ):
        assert wanted in details
    assert result.source.startswith('"""Tests written without their imports."""\nimport functools\n')


def test_ambiguous_names_follow_their_use() -> None:
    src = "def test_a():\n    datetime.timedelta(days=1)\n    time.time()\n    copy.deepcopy([])\n"
    result = repair_test_source(src)
    assert {r.detail.split(" (")[0] for r in result.repairs} == {
        "import datetime",
        "import time",
        "import copy",
    }
    called = repair_test_source("def test_a():\n    assert time(1, 2) and copy([1])\n")
    assert "from datetime import time" in called.source and "from copy import copy" in called.source


def test_names_the_solution_defines_are_imported_from_it() -> None:
    result = repair_test_source(
        "def test_a():\n    assert median([1]) == 1\n", solution=solution_api(SOLUTION)
    )
    assert [r.kind for r in result.repairs] == [K.MISSING_SOLUTION_IMPORT]
    assert "from solution import median" in result.source


def test_unknown_names_and_missing_solution_api_are_unrepairable() -> None:
    unknown = repair_test_source("def test_a():\n    assert frobnicate()\n")
    assert unknown.problem is not None and "frobnicate" in unknown.problem
    attr = repair_test_source(
        "import solution\n\ndef test_a():\n    assert solution.mean([1])\n", solution=solution_api(SOLUTION)
    )
    assert attr.problem is not None and "mean" in attr.problem
    open_ended = solution_api("def __getattr__(name):\n    return 1\n")
    assert repair_test_source("from solution import anything\n", solution=open_ended).problem is None


def test_markdown_edge_cases() -> None:
    code = "from solution import median\n\ndef test_a():\n    assert median([1]) == 1\n"
    for text in (
        "```python\n" + code,  # never closed
        code + "```\n\nThis checks a single value.\n",  # never opened
        "Sure! Here is the updated test file:\n\n" + code + "\nLet me know if you need anything else.\n",
        "Here:\n```\n" + code + "```\n",
        "1. Save it:\n\n    ```python\n" + "".join("    " + ln for ln in code.splitlines(True)) + "    ```\n",
        "Solution:\n```python\ndef median(xs):\n    return 0\n```\nTests:\n```python\n" + code + "```\n",
    ):
        out, repairs = strip_markdown(text)
        assert out == code, text
        assert repairs
    assert strip_markdown(code) == (code, [])
    # a multi-line docstring is not prose
    doc = '"""Tests for median.\n\nMany cases.\n"""\n' + code
    assert strip_markdown(doc) == (doc, [])


def test_solution_api_reads_top_level_names() -> None:
    api = solution_api("import os\nfrom x import y as z\nA = 1\nif True:\n    B = 2\ndef f():\n    C = 3\n")
    assert api is not None
    assert api.defined == {"A", "B", "f"} and api.imported == {"os", "z"} and not api.open_ended
    assert solution_api("def broken(:\n") is None
    assert solution_api("from x import *\n").open_ended  # type: ignore[union-attr]


# ------------------------------------------------------------------------------------- real collection


def demo_task(solution: str | None = None) -> Task:
    task = load(DEMO).tasks[0]
    if solution is None:
        return task
    return task.model_copy(update={"workspace": (FileEntry(path="solution.py", content=solution),)})


@pytest.fixture(scope="module")
def collector() -> Collector:
    return Collector("bwrap")


@pytest.mark.slow
def test_repaired_corpus_collects_and_originals_do_not(collector: Collector) -> None:
    task = demo_task()
    repaired = {name: repair(name).source for name in EXPECTED}
    results = collector.check(task, "solution.py", repaired)
    for name, (_, count, problem) in EXPECTED.items():
        r = results[name]
        if problem is None:
            assert r.ok and r.collected == count, (name, r)
        else:
            assert not r.ok and r.problem, (name, r)
        assert r.solution_imports is True
    originals = collector.check(task, "solution.py", {n: (CORPUS / n).read_text() for n in EXPECTED})
    assert not any(r.ok for r in originals.values())
    assert "median_low" in (results["unrepairable_api.py"].problem or "")


@pytest.mark.slow
def test_a_solution_that_does_not_import_is_stood_in_for(collector: Collector) -> None:
    task = demo_task("import no_such_module\n\ndef median(xs):\n    return xs[0]\n")
    source = (
        "from solution import median, Stack\n\nclass TestStack(Stack):\n    def test_a(self):\n        pass\n"
    )
    r = collector.check(task, "solution.py", {"test_solution.py": source})["test_solution.py"]
    assert r.ok and r.collected == 1
    assert r.solution_imports is False and "no_such_module" in (r.solution_error or "")


@pytest.mark.slow
def test_a_file_without_tests_does_not_count(collector: Collector) -> None:
    r = collector.check(demo_task(), "solution.py", {"test_x.py": "from solution import median\n"})[
        "test_x.py"
    ]
    assert not r.ok and r.problem == "collects no test"
