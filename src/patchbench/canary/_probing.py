"""What a calibration sets for the planners while it probes (context variables: the harness sets them around
one run, so concurrent runs in other threads are not affected)."""

from __future__ import annotations

from contextvars import ContextVar

#: False while a calibration probes the exact copies only (its first try, with every variant planted,
#: did not build or did not pass on gold): then no variant on moved inputs is planted.
PROBE_INPUTS: ContextVar[bool] = ContextVar("PROBE_INPUTS", default=True)

#: How far the several-literal input variants move numbers (every integer, and the last run of digits of
#: every string): drawn at random by each task's calibration and kept in its host-side record, so code
#: correct only *near* the listed inputs, or on a grid they share, cannot know how near is enough.
INPUT_SHIFT: ContextVar[int] = ContextVar("INPUT_SHIFT", default=3)
