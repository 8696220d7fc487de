"""Regenerate the built-in PatchBench-format dataset and the git bundle it runs against.

    python scripts/make_builtin_repo.py

Writes src/patchbench/data/patchbench/repos/patchbench-examples/stockroom.bundle (a small repository with
history: an initial commit, the commit that introduced the bug = base_commit, and the later fix, which the
harness must never let a candidate see) and src/patchbench/data/patchbench/{tasks,gold}/ (one row whose
context_files hold only the buggy file). Dates and authors are fixed, so the output is reproducible.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from patchbench import EnvSpec, FileEntry, Repository, Task, TestCommand, TestSpec  # noqa: E402
from patchbench.formats import write  # noqa: E402

ENV = {
    "GIT_AUTHOR_NAME": "Stockroom Dev",
    "GIT_AUTHOR_EMAIL": "dev@stockroom.invalid",
    "GIT_COMMITTER_NAME": "Stockroom Dev",
    "GIT_COMMITTER_EMAIL": "dev@stockroom.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/tmp",
}

INIT = '''"""stockroom: a small inventory ledger (lots, costing, reports)."""
'''
LOTS = '''"""Stock lots: quantities received at a unit cost, consumed first in, first out."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Lot:
    """A delivery of ``units`` items costing ``cost_cents`` in total."""

    lot_id: str
    units: int
    cost_cents: int
    remaining: int = -1

    def __post_init__(self) -> None:
        if self.units <= 0:
            raise ValueError("a lot holds at least one unit")
        if self.remaining < 0:
            self.remaining = self.units


def consume(lots: list[Lot], quantity: int) -> list[tuple[str, int]]:
    """Take ``quantity`` units from ``lots`` in order; returns (lot id, units taken) pairs."""
    if quantity > sum(lot.remaining for lot in lots):
        raise ValueError("not enough stock")
    taken: list[tuple[str, int]] = []
    for lot in lots:
        if quantity == 0:
            break
        step = min(lot.remaining, quantity)
        if step:
            lot.remaining -= step
            quantity -= step
            taken.append((lot.lot_id, step))
    return taken
'''
COSTING_OK = '''"""Costing: what the units taken from lots cost, in whole cents."""

from __future__ import annotations

from .lots import Lot


def unit_cost_cents(lot: Lot) -> int:
    """The cost of one unit of ``lot`` in whole cents."""
    return {expr}


def cost_of(lots: list[Lot], taken: list[tuple[str, int]]) -> int:
    """The cost in cents of the (lot id, units) pairs ``taken`` from ``lots``."""
    by_id = {{lot.lot_id: lot for lot in lots}}
    return sum(unit_cost_cents(by_id[lot_id]) * units for lot_id, units in taken)


def average_cost_cents(lots: list[Lot]) -> int:
    """The average unit cost of everything still in stock, in whole cents (0 when empty)."""
    units = sum(lot.remaining for lot in lots)
    if units == 0:
        return 0
    total = sum(unit_cost_cents(lot) * lot.remaining for lot in lots)
    return {avg}
'''
# v1: exact-ish division; the bug commit switches to floor division; the fix rounds half up.
V1 = COSTING_OK.format(expr="round(lot.cost_cents / lot.units)", avg="round(total / units)")
BUGGY = COSTING_OK.format(expr="lot.cost_cents // lot.units", avg="total // units")
FIXED = COSTING_OK.format(
    expr="(2 * lot.cost_cents + lot.units) // (2 * lot.units)", avg="(2 * total + units) // (2 * units)"
)
REPORT = '''"""Plain-text stock reports."""

from __future__ import annotations

from .costing import average_cost_cents
from .lots import Lot


def stock_line(name: str, lots: list[Lot]) -> str:
    """One report line: item name, units in stock, average unit cost."""
    units = sum(lot.remaining for lot in lots)
    cents = average_cost_cents(lots)
    return f"{name}: {units} in stock at {cents // 100}.{cents % 100:02d} each"
'''
README = "# stockroom\n\nAn inventory ledger: lots received, consumed FIFO, costed in whole cents.\n"
REPO_TESTS = """from stockroom.lots import Lot, consume


def test_fifo():
    lots = [Lot("a", 2, 200), Lot("b", 5, 500)]
    assert consume(lots, 3) == [("a", 2), ("b", 1)]
"""
HIDDEN = """import pytest

from stockroom.costing import average_cost_cents, cost_of, unit_cost_cents
from stockroom.lots import Lot, consume
from stockroom.report import stock_line


def cents(value):
    \"\"\"An amount in whole cents: an int, not something that merely compares equal to one.\"\"\"
    assert type(value) is int, f"expected whole cents (int), got {type(value).__name__}"
    return value


def test_unit_cost_of_an_even_split():
    assert cents(unit_cost_cents(Lot("a", 4, 1000))) == 250


def test_unit_cost_rounds_to_the_nearest_cent():
    assert cents(unit_cost_cents(Lot("a", 3, 2000))) == 667  # 666.67


def test_unit_cost_half_cent_rounds_up():
    assert cents(unit_cost_cents(Lot("a", 2, 1001))) == 501  # 500.5


def test_average_cost_rounds_to_the_nearest_cent():
    lots = [Lot("a", 3, 300), Lot("b", 3, 305)]  # 100 and 102 (101.67) -> 606 / 6 = 101
    assert cents(average_cost_cents(lots)) == 101
    lots = [Lot("a", 2, 200), Lot("b", 1, 102)]  # 100, 100, 102 -> 302 / 3 = 100.67
    assert cents(average_cost_cents(lots)) == 101


def test_cost_of_fifo_consumption():
    lots = [Lot("a", 2, 200), Lot("b", 5, 500)]
    assert cents(cost_of(lots, consume(lots, 3))) == 300


def test_consume_refuses_more_than_in_stock():
    with pytest.raises(ValueError):
        consume([Lot("a", 1, 100)], 2)


def test_empty_stock_costs_nothing():
    lot = Lot("a", 1, 100)
    consume([lot], 1)
    assert cents(average_cost_cents([lot])) == 0


def test_stock_line_formats_cents():
    line = stock_line("bolts", [Lot("a", 4, 1000)])
    assert type(line) is str and line == "bolts: 4 in stock at 2.50 each"
"""
F2P = (
    "tests/test_costing.py::test_unit_cost_rounds_to_the_nearest_cent",
    "tests/test_costing.py::test_unit_cost_half_cent_rounds_up",
    "tests/test_costing.py::test_average_cost_rounds_to_the_nearest_cent",
)
P2P = (
    "tests/test_costing.py::test_unit_cost_of_an_even_split",
    "tests/test_costing.py::test_cost_of_fifo_consumption",
    "tests/test_costing.py::test_consume_refuses_more_than_in_stock",
    "tests/test_costing.py::test_empty_stock_costs_nothing",
    "tests/test_costing.py::test_stock_line_formats_cents",
)
PROMPT = """Stock valuations come out a cent low.

Our month-end report values a delivery of 3 widgets that cost 20.00 in total at 6.66 per widget; the
supplier's invoice and our accountant both say 6.67. A delivery of 2 units for 10.01 shows 5.00 each where
5.01 is expected (half a cent rounds up in our books). The average cost printed on each stock line is off
by a cent in the same way. Unit costs and averages should be whole cents, rounded to the nearest cent, with
exact halves rounding up. Quantities and FIFO consumption are correct and must stay as they are.
"""


def git(cwd: Path, *args: str, date: str) -> str:
    env = {**os.environ, **ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def build_repo(repo: Path) -> tuple[str, str]:
    """Create the repository; returns (base_commit, fix_commit)."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main", date="2026-01-01T10:00:00Z")
    files = {
        "README.md": README,
        "stockroom/__init__.py": INIT,
        "stockroom/lots.py": LOTS,
        "stockroom/costing.py": V1,
        "stockroom/report.py": REPORT,
        "tests/test_lots.py": REPO_TESTS,
    }
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A", date="2026-01-01T10:00:00Z")
    git(repo, "commit", "-q", "-m", "Initial ledger, lots and costing", date="2026-01-01T10:00:00Z")
    (repo / "stockroom/costing.py").write_text(BUGGY)
    git(repo, "commit", "-q", "-am", "Use integer arithmetic for costs", date="2026-02-01T10:00:00Z")
    base = git(repo, "rev-parse", "HEAD", date="2026-02-01T10:00:00Z")
    (repo / "stockroom/costing.py").write_text(FIXED)
    git(repo, "commit", "-q", "-am", "Round unit costs to the nearest cent", date="2026-03-01T10:00:00Z")
    fix = git(repo, "rev-parse", "HEAD", date="2026-03-01T10:00:00Z")
    git(repo, "tag", "v1.1", date="2026-03-01T10:00:00Z")
    return base, fix


def main() -> None:
    data = ROOT / "src" / "patchbench" / "data" / "patchbench"
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "stockroom"
        base, _fix = build_repo(repo)
        bundle = data / "repos" / "patchbench-examples" / "stockroom.bundle"
        bundle.parent.mkdir(parents=True, exist_ok=True)
        git(repo, "bundle", "create", str(bundle), "--all", date="2026-03-01T10:00:00Z")
        diff = subprocess.run(
            ["git", "diff", base, "HEAD", "--", "stockroom/costing.py"],
            cwd=repo,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    task = Task(
        id="patchbench-python-synthetic-0001",
        prompt=PROMPT,
        language="python",
        repository=Repository(repo="patchbench-examples/stockroom", base_commit=base),
        context_files=(FileEntry(path="stockroom/costing.py", content=BUGGY),),
        buggy_files=("stockroom/costing.py",),
        hidden_tests=(FileEntry(path="tests/test_costing.py", content=HIDDEN),),
        test=TestSpec(
            commands=(TestCommand(shell="python -m pytest -q tests/test_costing.py"),), time_limit_s=120
        ),
        env=EnvSpec(language="python"),
        fail_to_pass=F2P,
        pass_to_pass=P2P,
        gold_patch=diff,
        metadata={"source": "synthetic", "origin": "patchbench-builtin"},
    )
    write([task], data, "patchbench")
    print(f"base_commit {base}; wrote {bundle} and {data}/tasks, {data}/gold")


if __name__ == "__main__":
    main()
