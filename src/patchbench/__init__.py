"""patchbench: trustworthy, fast, default-fail grading of bug-fix tasks."""

from __future__ import annotations

__version__ = "0.1.0"
