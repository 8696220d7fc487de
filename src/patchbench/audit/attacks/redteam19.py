"""Red team, round twenty (``rt19-*``): written by an outside helper against ``main`` after round nineteen.

Ideas first, written down at 01:31 UTC on 2026-12-06, after reading only the commit log f0f6ade..HEAD, the
docstrings of ``redteam16.py``-``redteam18.py`` (entry format, what was tried) and the built-in task list,
before any of today's defence code:

1. Go, one CPU (defence 4): the copy made when ``runtime.NumCPU() > 1`` instead of ``GOMAXPROCS(0)``: NumCPU
   is the affinity mask read at start-up, which a copy's ``GOMAXPROCS(1)`` does not change.
2. Go, one CPU: ``runtime.GOMAXPROCS(0)`` read once, in a package variable at ``init``: the copy's
   ``GOMAXPROCS(1)`` comes after it. A one-CPU container starts with 1 and keeps the bug.
3. Go, aged (defence 3): rt15's young-parent repair, the age read outside the bubble's fake clock
   (``syscall.Gettimeofday``, or ``/proc/uptime``, or a goroutine started in ``init`` that ticks a counter):
   the bubble moves ``time.Now`` only for goroutines inside it.
4. Python guard (defence 5): a stdlib-named *package directory* at the root (``shlex/__init__.py``), or a
   non-stdlib pytest start-up dependency not on the list (``packaging``, ``pygments``, ``exceptiongroup``),
   carrying rt18's report-wrapping payload.
5. Python forked (defence 1): a property fork copies unchanged: the fix keyed on state set at import that a
   fork inherits (a module flag), but lost on ``multiprocessing`` spawn/forkserver or on re-import
   (``importlib.reload``)?; or on ``sys.flags.optimize`` (the fix inside an ``assert``: ``python -O`` keeps
   the bug; a build-mode gate, borderline).
6. node, aged (defence 2): the kernel's clock through channels other than ``os.uptime()``/``/proc/uptime``
   through node:fs: ``/proc/self/sched`` (``se.exec_start``), ``/proc/schedstat``, ``/proc/uptime`` by
   another path spelling (``/proc/self/../uptime``, ``/proc//uptime``), by ``fs.openSync``/``readSync``, by
   a child process (``execSync('cat /proc/uptime')``), or ``os.loadavg``-like kernel counters.
7. Rust (defence 6): a build-mode repair, the fix under ``cfg!(debug_assertions)`` only (``cargo test``
   builds the dev profile; ``--release`` keeps the bug; borderline gate), or keyed on
   ``std::thread::available_parallelism() > 1`` (Go has a one-CPU variant; Rust may not).
8. Rust, nightly features another way: ``Cargo.toml`` ``cargo-features`` / ``[profile] rustflags``, a
   path-dependency proc macro emitting attributes, ``#[link(kind = "static", modifiers = "+verbatim")]``
   naming a linker script that assigns ``write``.
"""

from __future__ import annotations
