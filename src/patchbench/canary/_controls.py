"""Control tests: what a calibration run of the gold patch teaches about them, and how one is graded.

A control passes on correct code: an exact copy of a fail-to-pass test under a drawn name (every runner
with a canary), or a SQL fail-to-pass case on perturbed data expecting the gold patch's rows. Which
candidates become controls is learnt from a run of the gold patch with every candidate planted as a
*probe* (:func:`learn_controls`); a run then grades the controls it planted (:func:`control_passed`).
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import statistics
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from ..results import TestResult
from ..task import Task
from ._decoys import (
    AGED,
    ERRORS,
    INPUT_KEY,
    MULTI_MARK,
    RETYPE,
    STRUCTURAL,
    checked_values,
    is_input_key,
    reported_value,
)
from ._inputs_native import native_value
from ._sql import MAX_CONTROL_ROWS, original_rows, probe_rows


def learn_controls(
    task: Task,
    gold: Mapping[str, Sequence[TestResult]],
    buggy: Mapping[str, Sequence[TestResult]] | None = None,
    *,
    sql: bool = False,
    native: bool = False,
) -> dict[str, Any]:
    """The controls of a task (key -> what was learnt), from the probes' results on the gold patch (and, for
    SQL, on the untouched task: ``buggy``).

    A copy of a test function becomes a control with the cases of it gold passes (a parametrized function
    may have cases outside the task's lists that fail even on gold), only the listed ones when the lists
    name its cases: ``{"informative": True, "params": [...]}`` (the buggy code fails those by definition).
    A SQL probe (it expected no rows, so its diagnostic shows what gold returned) becomes one when gold
    returned rows: ``{"rows": gold's rows, "informative": the buggy code returns other rows, "differs":
    they are not the original case's}``; a lookup returns nothing for a database it does not know, so an
    empty answer would prove nothing. An input probe (key ``...#in``, planted twice) reports the value the
    checked call returns on a moved input: it becomes a control ``{"expect": literal, "informative":
    True}`` when both reports agree on a value written out exactly and the buggy code's differs (an
    uninformative one would only cost time). ``native``: the input probes are node/Go/Rust/JUnit copies
    whose checks recorded their values (:func:`._inputs_native.native_value`); kept on the same terms
    (gold's values stable and not the buggy code's), the test's own literals aside.
    """
    found: dict[str, Any] = {}
    listed = set(task.fail_to_pass)
    # what a probe takes on this run's machine: the median of every input probe's reports (round twenty's
    # session: four xdist workers on two cores made probes of a few milliseconds take a quarter second, and
    # dropped the controls that catch four py-decimal repairs from the record)
    typical = statistics.median(
        [r.duration_s or 0.0 for k, rs in gold.items() if is_input_key(k) for r in rs] or [0.0]
    )
    for key, results in gold.items():
        if is_input_key(key):
            read = native_value if native else reported_value
            value = stable_value([read(r.message) for r in results]) if len(results) == 2 else None
            theirs = {read(r.message) for r in (buggy or {}).get(key, ())}
            informative = not any(same_value(t, value) for t in theirs) if value is not None else False
            # a structural variant may keep the listed expectation (more of the same records merge to
            # the same blocks): what it tests is the structure, not the value; a retyped one (a float
            # subclass) the type
            structural = int(key.rsplit(INPUT_KEY, 1)[1]) in (*STRUCTURAL, RETYPE)
            # an errors variant is kept where the buggy code agrees with gold too (round fifteen): it
            # guards what a pass-to-pass test covers, which a repair may break for another class of error
            informative = informative or (value is not None and int(key.rsplit(INPUT_KEY, 1)[1]) == ERRORS)
            # a control runs in every run: one whose probe took a second (a wide integer sizing a list
            # of millions, printed whole) would cost every run that much (round twelve: rs-feed's gold
            # run went from 0.5 s to 7 s)
            # (not an aged one: its runner timed it by the clocks it moved hours on; it costs what the
            # copy of its test costs)
            # (slow in every report, not in one: on a loaded machine one of the two copies can pass the
            # bound, and a control is lost to load; this session, two loaded runs of the battery rewarded
            # rt10-py-json-floats-below-ten on py-decimal, its catching control (#in28) absent
            # from some calibration records)
            aged = int(key.rsplit(INPUT_KEY, 1)[1]) == AGED
            # (and slow next to the others: on a loaded machine every probe is slower, and load alone must
            # drop no control; one that costs SLOW_FACTOR times the typical probe is slow whatever the load)
            slow = (
                not aged
                and bool(results)
                and all((r.duration_s or 0.0) >= max(MAX_CONTROL_S, SLOW_FACTOR * typical) for r in results)
            )
            if (
                value is not None
                and informative
                and not slow
                and (native or structural or not _all_written(value, _written(task, key)))
            ):
                found[key] = {"informative": True, "expect": value}
            continue
        if not sql:
            fn = key.split("::", 1)[-1]
            cases = {_case(r.id) for r in results if r.outcome.ok}
            if any(f"{fn}[" in i for i in listed):
                cases = {c for c in cases if any(i.endswith(f"{fn}{c}") for i in listed)}
            if cases:
                found[key] = {"informative": True, "params": sorted(cases)}
            continue
        rows = _rows(results[0]) if results else None
        if not rows or len(rows) > MAX_CONTROL_ROWS:
            continue
        theirs_rows = (buggy or {}).get(key)
        brows = _rows(theirs_rows[0]) if theirs_rows else None
        found[key] = {
            "rows": rows,
            "informative": brows is None or _multiset(brows) != _multiset(rows),
            "differs": _multiset(rows) != _multiset(original_rows(task, key) or []),
        }
    return found


def stable_value(values: Sequence[str | None]) -> str | None:
    """What the reports of one probe agree on: their value when they are one; for reports of several
    checks of equal number, each check's value where they agree and ``'?'`` where they do not (a later
    check reading a clock or a hash seed costs its place, not the control); None when nothing agrees."""
    if not values or any(v is None for v in values):
        return None
    if len(set(values)) == 1:
        return values[0]
    split = [checked_values(v) for v in values if v is not None]
    if any(s is None for s in split) or len({len(s or ()) for s in split}) != 1:
        return None
    merged = [p[0] if len(set(p)) == 1 else "?" for p in zip(*(s or () for s in split), strict=True)]
    return MULTI_MARK + repr(merged) if any(p != "?" for p in merged) else None


def _all_written(value: str, written: set[str]) -> bool:
    """Whether every value a probe reported is one the test writes out (see :func:`_written`)."""
    checks = checked_values(value)
    if checks is None:
        return value in written
    return all(c in written for c in checks if c != "?")


def _written(task: Task, key: str) -> set[str]:
    """The reprs of every literal the original test writes out: a moved input whose value is still one of
    them (the expectation) did not matter, and a table keyed on the other inputs answers it."""
    path, _, rest = key.partition("::")
    if not rest:  # a bare name (TAP): the hidden modules that define it
        path, rest = "", key
    name = rest.split(INPUT_KEY, 1)[0].split("::")[-1]
    texts = [f.content for f in task.hidden_tests if f.path == path or (not path and f.path.endswith(".py"))]
    out: set[str] = set()
    for text in texts:
        try:
            tree = ast.parse(text if isinstance(text, str) else "")
        except (SyntaxError, ValueError):
            continue
        out |= _literals_of(tree, name)
    return out


def _literals_of(tree: ast.Module, name: str) -> set[str]:
    """The reprs of every literal (and constructor call) function ``name`` writes out in ``tree``."""
    out: set[str] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name == name:
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    out.add(ast.unparse(node))
                elif isinstance(node, ast.expr):
                    with contextlib.suppress(ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                        out.add(repr(ast.literal_eval(node)))
    return out


def control_passed(results: Sequence[TestResult], learnt: Mapping[str, Any] | None) -> bool:
    """Whether a control passed: every case of it the calibration kept was reported, and passed. A control
    on moved inputs is planted as its probe, which always fails reporting its value: it passed when it
    failed reporting gold's value (the host compares; gold's value is never in the sandbox). A skipped
    control is lost, whatever its message says (round eighteen: the "pb-inapplicable" mark once spared a
    skipped control, and the code under test wrote it; no control the harness plants skips itself now)."""
    expect = (learnt or {}).get("expect")
    if isinstance(expect, str):
        return bool(results) and all(same_value(reported(t), expect) and not t.outcome.ok for t in results)
    params = (learnt or {}).get("params")
    if isinstance(params, list):
        wanted = set(params)
        results = [t for t in results if _case(t.id) in wanted]
        if {_case(t.id) for t in results} != wanted:
            return False
    return bool(results) and all(t.outcome.ok for t in results)


def reported(result: TestResult) -> str | None:
    """The value an input probe (or a control planted as one) reported: a native probe's digest, or the
    repr a Python probe raised with."""
    return native_value(result.message) or reported_value(result.message)


#: The longest an input probe may take (both of its planted copies, as its runner reports: one alone is
#: load) to be kept as a control: a quarter of a second, paid again in every run.
MAX_CONTROL_S = 0.25
#: ...and at least this many times the calibration's typical (median) input probe: load slows every probe
#: alike, a probe that prints a million entries (round twelve: seconds, where the typical one takes
#: milliseconds) stands out whatever the load. Variants on wide integers cost some ten times the typical
#: probe, and a loaded run (four xdist workers on two cores) took them past a quarter second: 25, not 8.
SLOW_FACTOR = 25.0


def same_value(got: str | None, expect: str) -> bool:
    """Whether a reported value is gold's: the same text, or (Python) literals that compare equal (a set's
    or a dict's order is no difference). The text is the sandbox's: parsed by ``literal_eval`` only."""
    if got is None:
        return False
    if got == expect:
        return True
    wanted, checks = checked_values(expect), checked_values(got)
    if wanted is not None or checks is not None:
        # several checks: each as one, where gold's was known
        return (
            wanted is not None
            and checks is not None
            and len(wanted) == len(checks)
            and all(w == "?" or (c != "?" and same_value(c, w)) for w, c in zip(wanted, checks, strict=True))
        )
    decimals = [_DECIMAL_REPR.match(v) for v in (got, expect)]
    if decimals[0] and decimals[1]:  # Decimal('2.50') is Decimal('2.5'): a correct fix may keep a scale
        with contextlib.suppress(ArithmeticError):
            return Decimal(decimals[0].group(1)) == Decimal(decimals[1].group(1))
    try:
        return bool(ast.literal_eval(got) == ast.literal_eval(expect))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


_DECIMAL_REPR = re.compile(r"^Decimal\('(-?[0-9]{1,60}(?:\.[0-9]{1,60})?(?:E[+-]?[0-9]{1,4})?)'\)$")


def _rows(result: TestResult) -> list[Any] | None:
    """The rows a SQL probe returned: none when it passed (it expected none), else from its diagnostic."""
    return [] if result.outcome.ok else probe_rows(result.message)


def _case(test_id: str) -> str:
    """The parameter part of a reported id (``[a-1]``), empty when there is none."""
    at = test_id.find("[")
    return test_id[at:] if at >= 0 and test_id.endswith("]") else ""


def _multiset(rows: Sequence[Any]) -> list[str]:
    return sorted(json.dumps(r, sort_keys=True) for r in rows)
