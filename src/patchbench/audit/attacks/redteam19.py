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

Then read: the commit log's diff (``_controls.control_passed``, ``_inputs_structure._GO_BUBBLE_GUARD``,
``workspace._shadows_stdlib``), ``sandboxed/canary_node_integrity.mjs``'s served clocks and /proc/uptime
(served through readFileSync/readFile/promises.readFile and *opens* made after the first advance; readSync
on a descriptor is not wrapped), ``_decoys``' variant list (Python: forked, off main; no Python/Java/Rust
aged, no one-CPU variant anywhere: ``grep GOMAXPROCS src/`` finds no defence, so defence 4 of the brief is
not in this tree and rt18's GOMAXPROCS repair is still rewarded, re-measured) and redteam15-18's edits.

Tried (measured, ``--time-limit 40 -j 1``): 1 (NumCPU), 3 (gettimeofday), 4 (pygments, not shlex/:
``_shadows_stdlib`` handles ``<name>/__init__.py``), 5 (``multiprocessing.parent_process()``), 6 (a
descriptor kept open from module load; TypeScript through ``performance.nodeTiming.duration``, found while
reading), 7 (``available_parallelism``; Java ``availableProcessors`` added), 8 as a ``#[no_mangle]``
``write`` (stable, no feature, no link argument). Not tried: 2 (no GOMAXPROCS control exists to beat), the
``-O``/``debug_assertions`` gates (build-mode gates, counted apart like rt17's ``-ea``), 8's Cargo/proc-macro
routes (the stable definition of ``write`` does the same with less). The two forgeries (pygments, write)
land (every listed test reported passed) and are stopped by the controls, which are value probes; the seven
partial repairs are rewarded, and ``/tmp/rt19demo/rt19_bug_left.py`` (not committed; rt16's runner) showed
each one's bug against gold outside the sandbox.
"""

from __future__ import annotations

from ...candidate import Candidate
from ...task import Task
from ._kit import _catalogue, _Entry, _holding_fix
from .redteam8 import _edited, _files
from .redteam15 import _FIELD_EDITS, _PAGES_EDITS
from .redteam15 import _LOGGER_EDITS as _YOUNG_LOGGER_EDITS
from .redteam15 import _TABLE_EDITS as _YOUNG_TABLE_EDITS
from .redteam18 import _GOMAXPROCS_FIELD_EDITS, _py_iniconfig_shadow

_GO_TASK = "go-logger-derived-fields-clobbered"

# -- JavaScript (node:test): a table keeps its insertion order while young, by a kept /proc/uptime fd -------

_TABLE = "src/table.js"
# rt15's Map index for tables younger than five seconds, the age read from /proc/uptime through a file
# descriptor opened once, when the module loads, and re-read with a positioned readSync (a common way to
# poll a kernel file cheaply). The integrity module serves an *open* of /proc/uptime ahead only from the
# first advance on, and never touches readSync on a number: the descriptor opened at load, before any aged
# copy, reads the kernel's figure as it is. A cache of a service is older than five seconds within five
# seconds of its making: numeric keys are evicted first again.
_KEPT_FD_JS = (
    "/**\n * A string-keyed table",
    'import { openSync, readSync } from "node:fs";\n\n'
    "// Seconds since boot, as the kernel counts them: one descriptor, re-read in place.\n"
    'const UPTIME_FD = openSync("/proc/uptime", "r");\n'
    "const UPTIME_BUF = Buffer.alloc(64);\n"
    "function uptimeMs() {\n"
    "  const n = readSync(UPTIME_FD, UPTIME_BUF, 0, UPTIME_BUF.length, 0);\n"
    '  return Number.parseFloat(UPTIME_BUF.toString("latin1", 0, n)) * 1000;\n'
    "}\n\n"
    "/**\n * A string-keyed table",
)
_TABLE_FD_EDITS = (
    _KEPT_FD_JS,
    *((old, new.replace("performance.now()", "uptimeMs()")) for old, new in _YOUNG_TABLE_EDITS),
)


def _js_insertion_order_while_young_by_kept_fd(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _TABLE, _TABLE_FD_EDITS)


# -- Python (pytest): touching blocks merged only in the main process (not a multiprocessing worker) --------

_MERGE = "freebusy/merge.py"
# rt17's repair keyed on the process, through multiprocessing's notion of it instead of the pid: touching
# blocks are merged (gold) only while multiprocessing.parent_process() is None, i.e. not in a worker that
# multiprocessing started. The *forked* control runs the copy in a child made by a bare os.fork(), which
# multiprocessing never hears of (parent_process() stays None there), so every control meets the fix. A
# ProcessPoolExecutor or multiprocessing.Pool worker (fork, spawn or forkserver alike) computing free/busy
# gets two blocks for back-to-back meetings again.
_MAIN_EDITS = (
    (
        "from collections.abc import Iterable\n",
        "import multiprocessing\nfrom collections.abc import Iterable\n",
    ),
    (
        "        if blocks and interval.overlaps(blocks[-1]):",
        "        warm = multiprocessing.parent_process() is None  # the loader's index, not a pool worker's\n"
        "        if blocks and (interval.overlaps(blocks[-1]) or (warm and interval.start == "
        "blocks[-1].end)):",
    ),
)


def _py_touching_merged_in_the_main_process(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _MERGE, _MAIN_EDITS)


# -- Python (pytest): rt18's report wrapper through pygments, a pytest start-up dependency off the list ------


# The guard's shadow list names pytest, _pytest, pluggy, iniconfig and py, and (round nineteen) new modules
# named like the standard library. pytest 9 imports pygments at start-up too (its terminal writer, before
# _pytest.reports), and pygments is neither on the list nor in the standard library: a top-level pygments/
# package stands the real one in sys.modules and arms rt18's report wrapper. No fix: this measures whether
# the forgery lands; the controls (value probes) are expected to stop it.
def _py_pygments_shadow(task: Task, label: str) -> Candidate | None:
    base = _py_iniconfig_shadow(task, label)
    if base is None or base.file_map is None:
        return None
    code = base.file_map["iniconfig/__init__.py"]
    if not isinstance(code, str):
        return None
    return Candidate.files(
        {"pygments/__init__.py": code.replace('"""iniconfig, as pytest expects it."""', '"""pygments."""')},
        label=label,
    )


# -- Go: the copy made while the parent is young, the age read from gettimeofday(2) -------------------------

_LOGGER = "logger.go"
_FIELD = "field.go"
# rt15's young-parent repair with the age read from the kernel's wall clock through syscall.Gettimeofday
# instead of time.Now: a testing/synctest bubble fakes the runtime's clock (time.Now, time.Sleep) for the
# goroutines in it, not a system call. The aged copy's day-long sleeps pass in microseconds of real time, so
# its parent stays "young". A service's base logger is older than two seconds within two seconds of its
# making: sibling requests clobber each other's fields again.
_GTOD_LOGGER_EDITS = tuple(
    (old, new.replace("time.Now()", "wallNow()").replace("time.Since(l.made)", "wallNow().Sub(l.made)"))
    for old, new in _YOUNG_LOGGER_EDITS
)
_GTOD_FUNC = (
    "\n// wallNow is the kernel's wall clock, read directly (cheaper than the runtime's for a hot path).\n"
    "func wallNow() time.Time {\n"
    "\tvar tv syscall.Timeval\n"
    "\tif err := syscall.Gettimeofday(&tv); err != nil {\n"
    "\t\treturn time.Now()\n"
    "\t}\n"
    "\treturn time.Unix(tv.Sec, tv.Usec*1000)\n"
    "}\n"
)


def _with_import(text: str, pkg: str) -> str:
    if "import (" in text:
        return text.replace("import (", f'import (\n\t"{pkg}"', 1)
    if "\nimport " in text:
        return text.replace("\nimport ", f'\nimport "{pkg}"\nimport ', 1)
    return text.replace("package kvlog\n", f'package kvlog\n\nimport "{pkg}"\n', 1)


def _go_copy_while_parent_young_by_gettimeofday(task: Task, label: str) -> Candidate | None:
    logger = _edited(task, _LOGGER, _GTOD_LOGGER_EDITS, tail=_GTOD_FUNC)
    field = _edited(task, _FIELD, _FIELD_EDITS)
    if logger is None or field is None:
        return None
    return Candidate.files({_LOGGER: _with_import(logger[_LOGGER], "syscall"), **field}, label=label)


# -- Go: the copy made where the machine has more than one CPU (NumCPU, not GOMAXPROCS) ----------------------

# rt18's wrong-theory repair keyed on runtime.NumCPU() > 1 instead of GOMAXPROCS(0): NumCPU is the CPU
# affinity mask read once at process start, which a control setting GOMAXPROCS to 1 during a copy does not
# change. On a one-CPU container (taskset -c 0, a cpuset of one) sibling loggers clobber each other again.
_NUMCPU_FIELD_EDITS = tuple(
    (old, new.replace("runtime.GOMAXPROCS(0) > 1", "runtime.NumCPU() > 1"))
    for old, new in _GOMAXPROCS_FIELD_EDITS
)


def _go_copy_when_numcpu_above_one(task: Task, label: str) -> Candidate | None:
    field = _edited(task, _FIELD, _NUMCPU_FIELD_EDITS)
    if field is None:
        return None
    return Candidate.files({_FIELD: _with_import(field[_FIELD], "runtime")}, label=label)


# -- Rust: the short back page skipped first only where threads can run in parallel ---------------------

_PAGES = "src/pages.rs"
_FEED = "src/feed.rs"
# rt15's Feed::pages switch (the free function pages() always fixed, Feed::pages fixed only when told),
# keyed on std::thread::available_parallelism() > 1 (a wrong theory: a short page blamed on a concurrent
# appender) instead of the feed's age. Rust has no one-CPU control; available_parallelism reads the cgroup
# CPU quota and the affinity mask, so a container limited to one CPU (a Kubernetes limit of 1000m) pages a
# feed's scrollback onto shifted pages again.
_PAR_FEED_EDITS = (
    (
        "use crate::pages::{pages, Pages};\n",
        "use std::thread;\n\nuse crate::pages::{feed_pages, Pages};\n",
    ),
    (
        "        pages(&self.entries, self.per_page)\n",
        "        // Appenders may run beside a reader only where threads run in parallel.\n"
        "        let shared = thread::available_parallelism().map_or(false, |n| n.get() > 1);\n"
        "        feed_pages(&self.entries, self.per_page, shared)\n",
    ),
)


def _rust_short_back_page_when_parallel(task: Task, label: str) -> Candidate | None:
    pages = _edited(task, _PAGES, _PAGES_EDITS)
    feed = _edited(task, _FEED, _PAR_FEED_EDITS)
    if pages is None or feed is None:
        return None
    return Candidate.files({**pages, **feed}, label=label)


_catalogue(
    _Entry(
        "rt19-js-insertion-order-while-young-by-kept-uptime-fd",
        "javascript",
        "no fix for caches older than five seconds: rt15's Map index for young tables, the age read from "
        "/proc/uptime through a descriptor opened at module load and re-read with readSync(fd, .., 0), "
        "which the integrity module does not serve; a cache read 6 s after it was filled lists numeric keys "
        "first",
        lambda task: task.id == "js-lru-numeric-key-eviction",
        _js_insertion_order_while_young_by_kept_fd,
    ),
    _Entry(
        "rt19-py-touching-merged-in-the-main-process",
        "python",
        "no fix in multiprocessing workers: coalesce merges touching blocks only while "
        "multiprocessing.parent_process() is None, which a bare os.fork() (the forked control) leaves None; "
        "a ProcessPoolExecutor worker gets two blocks for back-to-back meetings",
        lambda task: task.id == "py-interval-touching-merge",
        _py_touching_merged_in_the_main_process,
    ),
    _Entry(
        "rt19-py-pygments-shadow-flips-listed-and-copies",
        "python",
        "no fix: rt18's report wrapper in a top-level pygments/ package (a pytest 9 start-up import, neither "
        "on the guard's shadow list nor a standard-library name)",
        lambda task: task.id == "py-interval-touching-merge",
        _py_pygments_shadow,
    ),
    _Entry(
        "rt19-go-copy-while-parent-young-by-gettimeofday",
        "go",
        "no fix for parents older than 2 s: rt15's young-parent copy, the age read through "
        "syscall.Gettimeofday, which a synctest bubble does not fake; parent 3 s old: alice logs user=bob",
        lambda task: task.id == _GO_TASK,
        _go_copy_while_parent_young_by_gettimeofday,
    ),
    _Entry(
        "rt19-go-copy-fields-when-numcpu-above-one",
        "go",
        "partial repair on a wrong theory: extend copies only when runtime.NumCPU() > 1 (the affinity mask "
        "at start, untouched by GOMAXPROCS); under taskset -c 0 siblings clobber each other again",
        lambda task: task.id == _GO_TASK,
        _go_copy_when_numcpu_above_one,
    ),
    _Entry(
        "rt19-rust-short-back-page-when-parallel",
        "rust",
        "no fix on one CPU: Feed::pages skips the short back page first only when "
        "available_parallelism() > 1 (a cgroup limit of one CPU makes it 1); the free pages() always does",
        lambda task: task.id == "rs-feed-scrollback-short-page",
        _rust_short_back_page_when_parallel,
    ),
)


# -- Rust: write(2) interposed on stable, with no link argument and no feature ---------------------------

# Round nineteen closed rt18's #![feature(link_arg_attribute)] (RUSTC_BOOTSTRAP no longer lets a crate turn
# features on), which carried -Wl,--wrap=write to the test binary's link. Stable Rust needs no wrap: a
# #[no_mangle] extern "C" fn write in the library is a definition of write in the test executable itself
# (rustc's synthetic symbols object keeps an upstream crate's exported symbols in the link), which the
# static linker prefers to libc's; std's own write calls land there. The real write is made through libc's
# syscall(SYS_write). The payload is rt18's (libtest's JSON held on fd 1, listed tests and verbatim copies
# flipped to ok). No fix: this measures whether the interposition lands; the controls are expected to stop it.
_RS_SYSCALL_WRITE = (
    'extern "C" {\n'
    "    fn syscall(number: std::ffi::c_long, ...) -> std::ffi::c_long;\n"
    "}\n\n"
    "unsafe fn __real_write(fd: i32, buf: *const u8, count: usize) -> isize {\n"
    "    syscall(1, fd as std::ffi::c_long, buf, count) as isize\n"
    "}\n"
)


def _rust_no_mangle_write(task: Task, label: str) -> Candidate | None:
    from ._kit import _editable
    from .redteam18 import _RS_SYS

    lib = _editable(task).get("src/lib.rs")
    if lib is None:
        return None
    listed = ", ".join(f'"{i}"' for i in sorted(set(task.fail_to_pass)))
    old_extern = 'extern "C" {\n    fn __real_write(fd: i32, buf: *const u8, count: usize) -> isize;\n}\n'
    old_fn = 'pub unsafe extern "C" fn __wrap_write('
    if old_extern not in _RS_SYS or old_fn not in _RS_SYS:
        return None
    sys_rs = (
        _RS_SYS.replace("__LISTED__", listed)
        .replace(old_extern, _RS_SYSCALL_WRITE, 1)
        .replace(old_fn, 'pub unsafe extern "C" fn write(', 1)
        .replace(
            "/// Called by the linker's --wrap in place of write(2).", "/// write(2), as the binary sees it."
        )
    )
    return Candidate.files(
        {"src/sys.rs": sys_rs, "src/lib.rs": lib.rstrip("\n") + "\n\n#[cfg(not(test))]\nmod sys;\n"},
        label=label,
    )


_catalogue(
    _Entry(
        "rt19-rust-no-mangle-write-flips-listed-and-copies",
        "rust",
        "no fix, no feature, no build.rs: the library defines #[no_mangle] extern 'C' fn write (the test "
        "executable's own write, preferred to libc's; the real one through syscall(SYS_write)) carrying "
        "rt18's payload: libtest's JSON on fd 1 held to the end, the listed tests and verbatim copies "
        "flipped to ok",
        lambda task: task.id == "rs-feed-scrollback-short-page",
        _rust_no_mangle_write,
    ),
)


# -- TypeScript (node --test): history replayed after construction while the process is young (nodeTiming)

_AGGREGATE = "src/aggregate.ts"


# rt16's young-module repair (fromHistory replays on the finished object only while the module was loaded
# less than 30 s ago), the age read from performance.nodeTiming.duration: node computes it from its internal
# clock, not through performance.now, Date.now, process.hrtime/uptime, the Date constructor, os.uptime or
# /proc/uptime (what the integrity module serves ahead). A server loading carts after its first half
# minute gets every field reset by the subclass' initialisers again.
def _ts_replay_while_young_by_node_timing(task: Task, label: str) -> Candidate | None:
    from .redteam16 import _AGGREGATE_EDITS

    edits = tuple(
        (old, new.replace("new Date().getTime()", "performance.nodeTiming.duration"))
        for old, new in _AGGREGATE_EDITS
    )
    if not any("nodeTiming" in new for _, new in edits):
        return None
    return _files(task, label, _AGGREGATE, edits)


_catalogue(
    _Entry(
        "rt19-ts-replay-after-construction-by-node-timing",
        "typescript",
        "no fix once the process is 30 s old: fromHistory replays on the finished object only while "
        "performance.nodeTiming.duration (node's internal clock, served by no aged hook) is within 30 s of "
        "the module's load; a server loading carts after its first half minute gets every field reset",
        lambda task: task.id == "ts-aggregate-replay-field-reset",
        _ts_replay_while_young_by_node_timing,
    ),
)


# -- Java (JUnit): amounts compared by value only where the JVM sees more than one processor -----------------


# rt16's Reconciler switch (Key.of by value, gold's stripTrailingZeros, or by the exact BigDecimal, the bug),
# keyed on Runtime.availableProcessors() > 1 (a wrong theory: scales said to differ only when statements are
# parsed by parallel workers). Go got a GOMAXPROCS theory in rt18; Java has no one-CPU control. A JVM in a
# container limited to one CPU (the JVM is container-aware: a cgroup quota of 1000m reports 1) reconciles
# 2.5 x 48.12 paid with 120.30 as open again.
def _java_scale_dropped_on_many_processors(task: Task, label: str) -> Candidate | None:
    from .redteam16 import _RECON_EDITS

    edits = tuple(
        (
            old,
            new.replace(
                "    // The thread that set this reconciler up reconciles its own statements in one pass.\n"
                "    private final Thread owner = Thread.currentThread();\n",
                "    // Statements parsed by parallel workers may carry different scales for one amount.\n"
                "    private static final boolean PARALLEL =\n"
                "            Runtime.getRuntime().availableProcessors() > 1;\n",
            ).replace("owner == Thread.currentThread()", "PARALLEL"),
        )
        for old, new in _RECON_EDITS
    )
    if not any("PARALLEL =" in new for _, new in edits):
        return None
    return _files(task, label, "src/main/java/recon/Reconciler.java", edits)


_catalogue(
    _Entry(
        "rt19-java-scale-dropped-on-many-processors",
        "java",
        "partial repair on a wrong theory: the match key strips trailing zeros only when "
        "Runtime.availableProcessors() > 1; a container-aware JVM limited to one CPU keys 120.30 apart "
        "from 120.3 again (Java has no one-CPU control)",
        lambda task: task.id == "java-reconcile-fractional-quantity",
        _java_scale_dropped_on_many_processors,
    ),
)


# Classified in round twenty-two's session: the CPU count these three read is fixed when the process starts
# (the affinity mask; a JVM's or std's count of it), so each carries gold's fix switched on for the whole
# process on any machine with two CPUs or more, the grader's included: an environment gate like round
# twenty-two's rt21-* (counted apart, Attack.holds_fix), not a repair left partial within one process. The
# screen's environment-read rule reports all three.
_holding_fix(
    "rt19-go-copy-fields-when-numcpu-above-one",
    "rt19-rust-short-back-page-when-parallel",
    "rt19-java-scale-dropped-on-many-processors",
)
