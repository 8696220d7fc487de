"""Run the honest, differently written fixes (``scripts/redteam/rt5..rt10_honest_fixes.py``) with EVERY
calibrated control of their task planted at once, or each control alone, under pinned secret shifts, and
print what each control reported against what the gold patch gave in the calibration (issue 12: a correct
fix was once rejected by a control; which one, and why?).

A normal run plants a drawn subset of the calibrated controls (``MAX_COPIES`` exact copies, and
``pick_inputs``: one key per several-literal variant group, one single move); a control on which a correct
fix deterministically differs from gold is then met only on some runs. This script lifts the draw in the
process only (monkeypatching ``canary._decoys``/``_decoys_native``/``_sql``; nothing in ``src/`` changes,
and the calibration records, keyed by the canary sources, are the ones normal runs use).

    python scripts/redteam/all_controls.py --shift 11 py-interval-touching-merge            # rt5's fix
    python scripts/redteam/all_controls.py --shift 11 --alone rt10:py-interval-touching-merge
    python scripts/redteam/all_controls.py --shift 11 --shift 59                            # every fix
    python scripts/redteam/all_controls.py --list

A fix is named ``[rtN:]task[@label]`` (without ``rtN:``, every round's fix of that task), or ``gold:task``
for the gold patch itself. ``--collide`` (Python) renames one control on moved inputs to a decoy's name
plus a digit, as a draw can (``_again4`` / ``_again42``): the pytest canary plugin matches decoys by
substring and gives that control the decoys' short failure message, so its value is lost. Per run it prints
the verdict, then one line per planted control: ``ok``/``FAIL``, its key, what it reported (Python: the
repr; native: digest|preview) and, for a control on moved inputs, gold's calibrated value. ``--times N``
repeats each all-at-once run (a control whose value is not stable). Sequential (the machine is shared).
Exit 1 when any control rejected a fix whose listed tests all passed.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import sys
import time
from collections.abc import Collection, Sequence
from typing import Any

import patchbench as pb
from patchbench import harness
from patchbench.audit.attacks._kit import _editable
from patchbench.canary import _decoys, _decoys_native, _python, _sql
from patchbench.canary._controls import reported
from patchbench.results import TestResult


def _patch(module: object, name: str, value: object) -> None:
    """Replace ``module.name`` in this process (the module does not export it; mypy would refuse)."""
    setattr(module, name, value)


def _get(module: object, name: str) -> Any:
    """``module.name``, which the module does not export."""
    return getattr(module, name)


ROUNDS = ("rt5", "rt6", "rt7", "rt8", "rt9", "rt10", "rt11", "rt12", "rt13", "rt14", "rt15", "rt16")


def all_fixes() -> dict[str, list[tuple[str, str, str]]]:
    """Every honest fix, keyed ``rtN:task[@label]``."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for rnd in ROUNDS:
        mod = importlib.import_module(f"{rnd}_honest_fixes")
        for key, edits in mod.FIXES.items():
            out[f"{rnd}:{key}"] = edits
    return out


class _Spy:
    """Lifts the per-run draw of controls and records what each planted control reported."""

    def __init__(self) -> None:
        self.only: set[str] | None = None  # plant only these control keys (None: every one)
        self.full: dict[str, Any] = {}  # the run's calibrated controls (the harness's own mapping)
        self.seen: list[tuple[str, list[TestResult], dict[str, Any] | None, bool]] = []
        self._plan = _get(harness, "plan_canary")
        self._passed = _get(harness, "control_passed")

    def install(self) -> None:
        def pick_all(keys: Collection[str], rng: Any) -> set[str]:
            return set(keys)

        _patch(_decoys, "pick_inputs", pick_all)
        _patch(_decoys_native, "pick_inputs", pick_all)
        _patch(_decoys, "MAX_COPIES", 1000)
        _patch(_decoys_native, "MAX_COPIES", 1000)
        _patch(_sql, "MAX_CONTROLS", 1000)

        def plan(*args: Any, **kwargs: Any) -> Any:
            controls = kwargs.get("controls")
            if controls and not kwargs.get("probe"):
                self.full = controls
            if controls and self.only is not None and not kwargs.get("probe"):
                kwargs["controls"] = {k: v for k, v in controls.items() if k in self.only}
            return self._plan(*args, **kwargs)

        def passed(results: Sequence[TestResult], learnt: Any) -> bool:
            ok = self._passed(results, learnt)
            self.seen.append(("", list(results), learnt, ok))
            return bool(ok)

        _patch(harness, "plan_canary", plan)
        _patch(harness, "control_passed", passed)

    def reset(self, only: set[str] | None) -> None:
        self.only, self.full, self.seen = only, {}, []


def collide(decoys: _decoys.Decoys) -> _decoys.Decoys:
    """``--collide``: one control on moved inputs renamed to a decoy's name plus a digit (a draw can give
    ``<test>_again4`` to a decoy and ``<test>_again42`` to a control of the same test)."""
    for d in decoys.names:
        base = d.rsplit("_", 1)[0]
        for c in decoys.controls:
            if c.rsplit("_", 1)[0] != base or not _decoys.is_input_key(decoys.control_keys.get(c, "")):
                continue
            path = next((p for p, t in decoys.files.items() if f"def {c}(" in t), None)
            if path is None:
                continue
            new = next(
                d + str(k) for k in range(10) if all(d + str(k) not in t for t in decoys.files.values())
            )
            files = {**decoys.files, path: decoys.files[path].replace(f"def {c}(", f"def {new}(", 1)}
            keys = {(new if n == c else n): k for n, k in decoys.control_keys.items()}
            controls = tuple(new if n == c else n for n in decoys.controls)
            print(f"      (collide: decoy {d}, control {keys[new]} renamed {c} -> {new})")
            return dataclasses.replace(decoys, files=files, controls=controls, control_keys=keys)
    return decoys


def record_for(task: Any) -> dict[str, Any] | None:
    """The task's calibration record under the pinned shifts (calibrating it when absent)."""
    from patchbench.runners import choose_runner
    from patchbench.sandbox import get_sandbox

    runner = choose_runner(task.test)
    if not harness._has_controls(runner.name, task):
        return None
    return harness._controls(task, runner.name, get_sandbox("bwrap"), None, (), True)


def one_run(
    task: Any, files: dict[str, str | None] | None, spy: _Spy, only: set[str] | None
) -> tuple[Any, int]:
    """Run the fix once; print the verdict and every control's report. Returns (verdict, controls lost)."""
    spy.reset(only)
    start = time.monotonic()
    cand = pb.Candidate.gold() if files is None else pb.Candidate.files(files, label="honest")
    v = pb.run(task, cand)
    took = time.monotonic() - start
    print(f"    {v.status.value} controls={v.controls} decoys={v.decoys} ({took:.0f} s) {v.reason[:160]}")
    lost = 0
    for _, results, learnt, ok in spy.seen:
        # the harness looks each control's record up in the mapping it planted from: find it by identity
        key = next((k for k, v in spy.full.items() if v is learnt), "?")
        got = "; ".join(f"{t.outcome.value}:{reported(t) or (t.message or '')[:200]!r}" for t in results)
        expect = (learnt or {}).get("expect")
        lost += not ok
        print(f"      {'ok  ' if ok else 'FAIL'} {key}")
        print(f"           got    {got or 'missing'}")
        if expect is not None:
            print(f"           gold   {expect}")
        elif learnt and "params" in learnt:
            print(f"           cases  {learnt['params']}")
    if v.status is pb.Status.RESOLVED and not spy.seen and v.controls:
        print("      (resolved; control reports not captured)")
    return v, lost


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("fix", nargs="*", help="[rtN:]task[@label] (default: every honest fix)")
    ap.add_argument("--shift", type=int, action="append", help="a shift to pin (repeatable; default 11)")
    ap.add_argument("--alone", action="store_true", help="also run each control planted alone")
    ap.add_argument("--times", type=int, default=1, help="all-at-once runs per fix and shift")
    ap.add_argument(
        "--collide", action="store_true", help="Python: name one control as a decoy's name plus a digit"
    )
    ap.add_argument("--list", action="store_true", help="list the fixes and exit")
    args = ap.parse_args(argv)
    fixes = all_fixes()
    # ``gold:TASK``: the gold patch itself (only when named)
    fixes.update({f: [] for f in args.fix if f.startswith("gold:")})
    if args.list:
        print("\n".join(fixes))
        return 0
    chosen = [k for k in fixes if not args.fix or k in args.fix or k.split(":", 1)[1] in args.fix]
    unknown = [f for f in args.fix if f not in fixes and not any(k.split(":", 1)[1] == f for k in fixes)]
    if unknown:
        ap.error(f"no such fix: {unknown} (see --list)")
    shifts = args.shift or [11]
    bad = [s for s in shifts if s not in harness.SHIFTS]
    if bad:
        ap.error(f"not a shift the calibration draws: {bad} (draws {harness.SHIFTS})")
    tasks = {t.id: t for t in pb.load("builtin").tasks}
    spy = _Spy()
    spy.install()
    if args.collide:
        plan = _get(_python, "plan_decoys")

        def colliding(*a: Any, **kw: Any) -> _decoys.Decoys:
            made = plan(*a, **kw)
            return made if kw.get("probe") else collide(made)

        _patch(_python, "plan_decoys", colliding)
    rejected: list[str] = []
    for shift in shifts:
        harness.SHIFTS = (shift,)
        for key in chosen:
            task = tasks[key.split(":", 1)[1].split("@", 1)[0]]
            out: dict[str, str | None] | None = None  # None: the gold patch itself
            if not key.startswith("gold:"):
                editable = _editable(task)
                out = {}
                for path, old, new in fixes[key]:
                    src = out.get(path) or editable[path]
                    assert src is not None and old in src, (key, path, old)
                    out[path] = src.replace(old, new, 1)
            print(f"[shift {shift}] {key}", flush=True)
            for n in range(args.times):
                print(f"  all at once{f' #{n + 1}' if args.times > 1 else ''}:", flush=True)
                _, lost = one_run(task, out, spy, None)
                if lost:  # the harness grades controls only once every listed test passed
                    rejected.append(f"shift {shift} {key}: {lost} control(s), all at once")
                sys.stdout.flush()
            # read after the first run, which calibrated the task if its record was not cached
            record = record_for(task) or {}
            controls = sorted(record.get("controls", {}))
            print(f"  {len(controls)} calibrated controls (record's shift {record.get('shift')})", flush=True)
            if args.alone:
                for c in controls:
                    print(f"  alone: {c}", flush=True)
                    _, lost = one_run(task, out, spy, {c})
                    if lost:
                        rejected.append(f"shift {shift} {key}: {c} alone")
                    sys.stdout.flush()
    print("\nrejected a correct fix:" if rejected else "\nno control rejected a correct fix")
    for r in rejected:
        print(f"  {r}")
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main())
