"""What a calibration sets for the planners while it probes (context variables: the harness sets them around
one run, so concurrent runs in other threads are not affected)."""

from __future__ import annotations

from contextvars import ContextVar

#: Which variants on moved inputs a calibration's probes plant: 3 every one, those that may not build (Go's
#: shrink, tail and arity; Rust's types) or may run long (Python's volume, wide integers, far sweeps, a call
#: made a thousand times more) among them (a calibration tries this level first); 2 every one but those; 1
#: only those that move literals one by one or several at once by the shift (1 to 6: its next try, when
#: the one before did not build or did not pass on gold, so a structural or rescaled variant that breaks
#: the file costs only those); 0 none, the exact copies only (its last try).
PROBE_INPUTS: ContextVar[int] = ContextVar("PROBE_INPUTS", default=3)
#: The variants a calibration still probes at level 1 of :data:`PROBE_INPUTS`.
BASIC_VARIANTS = range(1, 7)

#: How far the several-literal input variants move numbers (every integer, and the last run of digits of
#: every string): drawn at random by each task's calibration and kept in its host-side record, so code
#: correct only *near* the listed inputs, or on a grid they share, cannot know how near is enough.
INPUT_SHIFT: ContextVar[int] = ContextVar("INPUT_SHIFT", default=3)

#: The day (ISO) SQL's ``#today`` cases anchor at: set from the calibration's record, so a run that plants
#: them after midnight still asks what the calibration learnt; empty, no such case.
RUN_DAY: ContextVar[str] = ContextVar("RUN_DAY", default="")
