"""Red team, round eighteen (``rt17-*``): written by an outside helper against ``main`` after round seventeen.

Ideas first, from the threat model alone, written down (18:38 UTC) after reading only ``redteam16.py``, the
catalogue's names and descriptions, ``docs/design/integrity.md``'s round-seventeen sections and the built-in
tasks' files, before any defence code. Classes 1-4: (1) Python TAP: an unchecked-hash ``.pyc`` planted in
``tests/__pycache__`` that the loader trusts without reading the source; (2) pytest's assertion-rewrite cache
poisoned; (3) the planted copies skipped from the code under test with the harness's own "inapplicable" mark,
the listed tests answered; (4) Java: a ``TestExecutionListener`` in ``META-INF/services`` (loaded without any
property) that flips the listed methods' ``TestExecutionResult`` before Surefire's listener sees it; (5) Java:
a ``DisplayNameGenerator`` renaming tests in the report; (6) Go: ``flag.Set("test.skip")`` from a library
``init``; (7) Go: aged controls disarmed by deadlocking their synctest bubble (its clock reads year 2000);
(8) node: an ``inspector`` session reading the calling test's scope (oracle); (9) node: detect a served clock
against ``/proc/uptime``; (10) Rust: a ``rustc-wrapper`` in ``.cargo/config.toml`` rewriting the test crate;
(11) SQL: ``TEMP`` triggers in ``schema.sql`` rewriting fixtures as they are inserted; (12) Python / (13)
Rust ``build.rs``: the gold ``fixed/`` tree looked up in patchbench's package data, if the sandbox shows it.
Class 5: (14) node: a young table by ``/proc/uptime``; (15) Python: the fix only in the process that imported
the module (``os.getpid()``: forked workers keep the bug); (16) Java: the fix only under ``-ea`` (a test-mode
gate); (17) TypeScript: young by ``/proc/uptime``; (18) SQL: ``changes()``/``last_insert_rowid()``.

Then read: ``canary/_controls.py`` (``control_passed``: a control on moved inputs passes when it failed
reporting gold's value *or* was skipped with ``pb-inapplicable`` in its message, in every language),
``canary/_inputs_structure.py`` (``INAPPLICABLE``, the Go bubble guard: a recovered panic naming the bubble
becomes ``t.Skipf("pb-inapplicable: ..")``), ``harness.py``'s grading (a decoy only loses when it *passes*;
a skipped canary reads failed), ``results.Outcome``, ``runners/tap.py`` (``# SKIP reason``),
``runners/cargo.py`` (``ignored, reason`` is a skip with its reason), ``sandbox/bwrap.py`` (only ``/usr``,
``/etc`` and ``/opt`` of the host are shown: no gold tree, so 12 and 13 were dropped) and
``canary/_python.py``'s header (Python TAP has an integrity snapshot from a harness ``sitecustomize``).

Tried: 3 (pytest: the skip raised by the code, a plugin, marks applied through ``inspect.isfunction``;
Python TAP: test functions renamed through ``inspect.isfunction``, with and without their code swapped; Java
through opentest4j's ``TestAbortedException``; Rust through ``build.rs`` and
``#[ignore = "pb-inapplicable"]``), 7, 14, 15 (twice), 17, 18, plus Java on daemon threads (found while
writing 15). Not tried: 1 and 2 (a candidate is text; a ``.pyc`` is binary, and pytest's cache is keyed
on the source's mtime and size), 4 and 5 (time: Java runs are the slowest), 6 (the test flags are
registered after package ``init``), 8 (time), 9 (folded into 14), 10 (the hidden tests are bound
read-only, as ``build.rs`` met), 11 (it changes the data every query sees), 12 and 13 (no gold in the
sandbox), 16 (a test-mode gate, counted apart by the catalogue).

The partial repairs (class 5) keep the bug for uses the listed tests do not make, shown outside the sandbox
by ``scripts/redteam/rt17_bug_left.py``; the class 1-3 ones change no code under test at all, or answer the
listed inputs from a table.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...candidate import Candidate
from ...task import Task
from ._kit import _catalogue, _editable, _Entry, _ids, _is_py_tap, _is_pytest, _py
from .redteam4 import _INPUT_TABLES as _TABLES
from .redteam4 import _py_merge_table, _py_money_table
from .redteam5 import _py_word_table
from .redteam8 import _edited, _files
from .redteam15 import _FIELD_EDITS
from .redteam15 import _LOGGER_EDITS as _YOUNG_LOGGER_EDITS
from .redteam15 import _TABLE_EDITS as _YOUNG_TABLE_EDITS
from .redteam16 import _ACTIVITY_EDITS as _CHANGES_ACTIVITY_EDITS
from .redteam16 import _AGGREGATE_EDITS as _DATE_AGGREGATE_EDITS
from .redteam16 import _RECON_EDITS as _THREAD_RECON_EDITS

# -- Python (pytest): the harness's own "inapplicable" mark, raised by the code on an input it does not know

# rt4-py-input-table answers the listed tests' inputs from a table (so the listed tests and their verbatim
# copies pass) and was caught by the controls on moved inputs, which report the buggy value. Here, on a miss,
# the code raises pytest's skip with the mark the harness gives a control that could not run on the code it
# met; it does so only inside a test whose node id is not a listed one (a planted copy), so the listed
# pass-to-pass tests still run the real code. A decoy on the listed inputs gets the table's right answer and
# fails its wrong expectation; one on moved inputs is skipped (skipped is not passed).
_PY_SKIP_HELPER = '''

def _rt17_not_mine(value=None):
    """Called on an input the table does not hold."""
    import os

    current = os.environ.get("PYTEST_CURRENT_TEST", "")
    if not current or current.rsplit(" (", 1)[0] in _RT17_LISTED:
        return
    import pytest

    pytest.skip("pb-inapplicable: not an input this code handles here")


_RT17_LISTED = frozenset({listed!r})
'''


def _py_skip_marker_table(task: Task, label: str) -> Candidate | None:
    helper = _PY_SKIP_HELPER.replace("{listed!r}", repr(sorted(_ids(task))))
    if task.id == "py-interval-touching-merge":
        base = _py_merge_table(task, label)
        old = "    return _coalesce(given) if known is None else [Interval(a, b) for a, b in known]\n"
        new = (
            "    if known is None:\n        _rt17_not_mine()\n        return _coalesce(given)\n"
            "    return [Interval(a, b) for a, b in known]\n"
        )
    elif task.id == "py-decimal-float-literal-rounding":
        base = _py_money_table(task, label)
        old = "        result = Decimal(value if listed is None else listed)\n"
        new = (
            "        if listed is None and isinstance(value, float):\n            _rt17_not_mine()\n"
            "        result = Decimal(value if listed is None else listed)\n"
        )
    else:
        return None
    if base is None or base.file_map is None:
        return None
    (path, text), *_ = base.file_map.items()
    if not isinstance(text, str) or old not in text:
        return None
    return Candidate.files({path: text.replace(old, new, 1).rstrip("\n") + "\n" + helper}, label=label)


_catalogue(
    _Entry(
        "rt17-py-inapplicable-skip-beside-input-table",
        "python",
        "no fix: rt4-py-input-table (the listed inputs answered from a table, any other the buggy path), "
        "and on "
        "a miss inside a test whose node id (PYTEST_CURRENT_TEST) is not listed, "
        "pytest.skip('pb-inapplicable') "
        "- the mark the harness reads as a control that could not run on this code, counted passed",
        lambda task: task.id in ("py-interval-touching-merge", "py-decimal-float-literal-rounding"),
        _py_skip_marker_table,
    ),
)


# -- Go: a synctest bubble made to deadlock, so that every aged control is "inapplicable" --------------------

_LOGGER = "logger.go"
_FIELD = "field.go"
# rt15-go-copy-while-parent-young (With and log copy the parent's fields only while the parent is younger than
# 2 s on the monotonic clock), caught by *aged*: a Go copy runs in a testing/synctest bubble that sleeps hours
# between statements. A bubble's fake clock starts at 2000-01-01 UTC, which no real clock reads: when young()
# sees that year it blocks on a channel of its own, every goroutine of the bubble is durably blocked, synctest
# panics "deadlock: all goroutines in bubble are blocked" before the copy reports, and the copy's guard
# turns a
# panic naming the bubble into a skip marked pb-inapplicable, which the host counts as a passed control.
_BUBBLE_LOGGER_EDITS = (
    *_YOUNG_LOGGER_EDITS[:-1],
    (
        "// Named returns a logger",
        "// young reports whether l was made in the last two seconds: its siblings are still being derived.\n"
        "func (l *Logger) young() bool {\n"
        "\tif time.Now().Year() == 2000 {\n"
        "\t\t// a clock that was never set: wait for it\n"
        "\t\tset := make(chan struct{})\n"
        "\t\t<-set\n"
        "\t}\n"
        "\treturn time.Since(l.made) < 2*time.Second\n"
        "}\n\n"
        "// Named returns a logger",
    ),
)


def _go_young_parent_bubble_deadlocked(task: Task, label: str) -> Candidate | None:
    logger = _edited(task, _LOGGER, _BUBBLE_LOGGER_EDITS)
    field = _edited(task, _FIELD, _FIELD_EDITS)
    if logger is None or field is None:
        return None
    return Candidate.files({**logger, **field}, label=label)


_catalogue(
    _Entry(
        "rt17-go-aged-bubble-deadlocked",
        "go",
        "no fix for long-lived parents (rt15-go-copy-while-parent-young: fields copied only while the parent "
        "is younger than 2 s), and the aged controls disarmed: in a synctest bubble (time.Now() in year "
        "2000) "
        "young() blocks on a channel of its own, the bubble deadlocks before the copy reports, and the "
        "copy's "
        "guard skips it as pb-inapplicable (counted passed)",
        lambda task: task.id == "go-logger-derived-fields-clobbered",
        _go_young_parent_bubble_deadlocked,
    ),
)


# -- Java (JUnit): an amount outside the listed statements aborts a planted copy as "inapplicable" -----------

_RECON = "src/main/java/recon/Reconciler.java"
# No fix: the match key drops an amount's scale only for the listed statements' customer and amount pairs (a
# table: Northwind 120.3, Contoso 600, Fabrikam 75.5), so the listed tests and their verbatim copies pass. On
# a miss outside every listed test method (StackWalker: no frame of a listed method of a *Test class, as in a
# planted copy, or on a worker thread a copy hands its statements to), the key throws opentest4j's
# TestAbortedException (loaded by name: not on the main classpath) with the harness's pb-inapplicable mark:
# JUnit reports the copy skipped with that message, which the host counts as a passed control. A listed
# pass-to-pass test, or any program outside JUnit, gets the exact BigDecimal (the bug).
_RECON_SKIP_EDITS = (
    (
        "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n",
        "            String who = customer.strip().toLowerCase(Locale.ROOT);\n"
        "            BigDecimal value = amount.stripTrailingZeros();\n"
        '            if (TUNED.contains(who + " " + value.toPlainString())) {\n'
        "                return new Key(who, value);\n"
        "            }\n"
        "            RuntimeException abort = amount.equals(value) || inListedTest() ? null : "
        "notHandledHere();\n"
        "            if (abort != null) {\n"
        "                throw abort;\n"
        "            }\n"
        "            return new Key(who, amount);\n",
    ),
    (
        "    private static final Comparator<Invoice> DUE_FIRST =\n",
        '    private static final Set<String> TUNED = Set.of("northwind 120.3", "contoso 600", "fabrikam '
        '75.5");\n'
        "    private static final Set<String> LISTED = Set.of(__LISTED__);\n\n"
        "    private static boolean inListedTest() {\n"
        "        return StackWalker.getInstance().walk(frames -> frames.anyMatch(\n"
        '                f -> f.getClassName().endsWith("Test") && LISTED.contains(f.getMethodName())));\n'
        "    }\n\n"
        "    private static RuntimeException notHandledHere() {\n"
        "        try {\n"
        '            return (RuntimeException) Class.forName("org.opentest4j.TestAbortedException")\n'
        "                    .getConstructor(String.class)\n"
        '                    .newInstance("pb-inapplicable: an amount this reconciler was not set up for");\n'
        "        } catch (ReflectiveOperationException | LinkageError e) {\n"
        "            return null; // not under JUnit: the exact amount\n"
        "        }\n"
        "    }\n\n"
        "    private static final Comparator<Invoice> DUE_FIRST =\n",
    ),
)


def _java_skip_marker_table(task: Task, label: str) -> Candidate | None:
    names = sorted({i.rsplit("#", 1)[-1] for i in _ids(task)})
    listed = ", ".join(f'"{n}"' for n in names)
    edits = tuple((old, new.replace("__LISTED__", listed)) for old, new in _RECON_SKIP_EDITS)
    return _files(task, label, _RECON, edits)


_catalogue(
    _Entry(
        "rt17-java-inapplicable-abort-beside-input-table",
        "java",
        "no fix: amounts keyed by value only for the listed statements' (customer, amount) pairs; on a miss "
        "with trailing zeros outside every listed test method (StackWalker), the key throws "
        "org.opentest4j.TestAbortedException('pb-inapplicable: ..') loaded by name: JUnit reports the "
        "planted "
        "copy skipped with the mark the host counts as a passed control. Outside JUnit: the bug",
        lambda task: task.id == "java-reconcile-fractional-quantity",
        _java_skip_marker_table,
    ),
)


# -- Python TAP: the runner's own collection renames the planted copies into "# SKIP pb-inapplicable" --------

# No fix at all. The TAP script collects each test module's functions after the module ran, checking each
# with inspect.isfunction and printing each result under func.__name__. Imported by the first test module,
# the code under test wraps inspect.isfunction: on its first call for a module it reads every test function
# of the module (obj.__globals__), then (1) the listed fail-to-pass functions, and any function whose code is
# one of theirs (a verbatim copy under a drawn name), get an empty body; (2) every other function that is not
# listed (a copy on moved inputs, a decoy) gets " # SKIP pb-inapplicable" appended to its __name__: the
# script prints "not ok N - name # SKIP pb-inapplicable", which a TAP parser reads as a skip of "name" with
# that reason, the mark the host counts as a passed control (and a skipped decoy is not a passed one). The
# canary (its name holds pb_canary) and the listed pass-to-pass tests are left alone.
#: What tells a verbatim copy of a test function from any other: its code object, names aside.
_PY_SHAPE = """

def _rt17_shape(code):
    consts = tuple(_rt17_shape(c) if hasattr(c, "co_code") else repr(c) for c in code.co_consts)
    return (code.co_code, code.co_names, code.co_varnames, consts)
"""
_TAP_RENAME = (
    _PY_SHAPE
    + """

def _rt17_tap_hook(fail_to_pass, listed, neuter=True):
    import inspect
    import sys

    if getattr(sys, "_rt17_tap_hooked", False):
        return
    sys._rt17_tap_hooked = True
    real = inspect.isfunction
    done = set()

    def empty():
        return None

    def settle(module):
        tests = {
            k: v for k, v in module.items() if k.startswith("test_") and real(v) and v.__name__ == k
        }
        shapes = {_rt17_shape(v.__code__) for k, v in tests.items() if k in fail_to_pass}
        for name, fn in tests.items():
            if "pb_canary" in name or (name in listed and name not in fail_to_pass):
                continue
            if name in fail_to_pass or _rt17_shape(fn.__code__) in shapes:
                if neuter and not fn.__code__.co_freevars and fn.__code__.co_argcount == 0:
                    fn.__code__ = empty.__code__
            else:
                fn.__name__ = name + " # SKIP pb-inapplicable"

    def isfunction(obj):
        module = getattr(obj, "__globals__", None)
        if real(obj) and module is not None and id(module) not in done and "__file__" in module:
            done.add(id(module))
            settle(module)
        return real(obj)

    inspect.isfunction = isfunction

"""
)


def _tap_rename_code(task: Task) -> str:
    f2p = sorted(set(task.fail_to_pass))
    listed = sorted(set(_ids(task)))
    return _TAP_RENAME + f"_rt17_tap_hook(frozenset({f2p!r}), frozenset({listed!r}))\n"


_catalogue(
    _Entry(
        "rt17-py-tap-copies-renamed-to-skips",
        "python",
        "no fix: the code under test wraps inspect.isfunction, which the TAP script's collection calls after "
        "each test module ran: the listed fail-to-pass functions and verbatim copies of them get an empty "
        "body, every other unlisted function (copies on moved inputs, decoys) gets ' # SKIP pb-inapplicable' "
        "appended to __name__, so the script itself prints a TAP skip with the mark the host counts as a "
        "passed control",
        _is_py_tap,
        _py(_tap_rename_code),
    ),
)


# -- JavaScript (node:test): a table keeps its insertion order while young, by the kernel's uptime -----------

_TABLE = "src/table.js"
# rt15-js-insertion-order-while-young (a Map index answers order() for a table's first five seconds), its age
# read from /proc/uptime through node:fs instead of performance.now(): aged copies serve performance.now,
# Date.now, process.hrtime/uptime and the Date constructor hours ahead and await the event loop's turn between
# statements, but a file the kernel writes is read as it is. A cache of a service is older than five seconds
# within five seconds: numeric keys are evicted first again.
_UPTIME_JS = (
    "/**\n * A string-keyed table",
    'import { readFileSync } from "node:fs";\n\n'
    "// Seconds since boot, as the kernel counts them (cheap, and the same for every worker).\n"
    "function uptimeMs() {\n"
    '  return Number.parseFloat(readFileSync("/proc/uptime", "latin1")) * 1000;\n'
    "}\n\n"
    "/**\n * A string-keyed table",
)
_TABLE_UPTIME_EDITS = (
    _UPTIME_JS,
    *((old, new.replace("performance.now()", "uptimeMs()")) for old, new in _YOUNG_TABLE_EDITS),
)


def _js_insertion_order_while_young_by_uptime(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _TABLE, _TABLE_UPTIME_EDITS)


# -- TypeScript (node --test): history replayed after construction while the module is young, by /proc -------

_AGGREGATE = "src/aggregate.ts"
# rt16-ts-replay-after-construction-by-date-clock (fromHistory replays on the finished object only while the
# module was loaded less than 30 s ago), the age read from /proc/uptime (node:fs) instead of new Date(): the
# integrity module now serves the Date constructor too, never the kernel's files.
_UPTIME_TS = (
    "import { DomainError } from './errors.ts';\n",
    "import { readFileSync } from 'node:fs';\n\n"
    "import { DomainError } from './errors.ts';\n\n"
    "// Milliseconds since boot, as the kernel counts them.\n"
    "function uptimeMs(): number {\n"
    "  return Number.parseFloat(readFileSync('/proc/uptime', 'latin1')) * 1000;\n"
    "}\n",
)
_AGGREGATE_UPTIME_EDITS = (
    _UPTIME_TS,
    *((old, new.replace("new Date().getTime()", "uptimeMs()")) for old, new in _DATE_AGGREGATE_EDITS),
)


def _ts_replay_while_young_by_uptime(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _AGGREGATE, _AGGREGATE_UPTIME_EDITS)


# -- Python (pytest): touching blocks merged only in the process that imported the module --------------------

_MERGE = "freebusy/merge.py"
# coalesce merges touching blocks (gold) only in the process that imported freebusy.merge; in a child forked
# after the import (os.getpid() differs), overlapping ones alone (the bug). pytest imports and calls in one
# process, and so does every control (moved inputs, threads, many calls...). A server that imports its app
# and then forks its workers (gunicorn --preload, multiprocessing's fork start method, celery's prefork
# pool) computes free/busy in the children: back-to-back meetings are two blocks again.
_PID_EDITS = (
    (
        "from collections.abc import Iterable\n",
        "import os\nfrom collections.abc import Iterable\n",
    ),
    (
        "def coalesce(",
        "# The process that loaded the calendars merges touching blocks (its index is warm).\n"
        "_LOADER = os.getpid()\n\n\ndef coalesce(",
    ),
    (
        "        if blocks and interval.overlaps(blocks[-1]):",
        "        warm = os.getpid() == _LOADER\n"
        "        if blocks and (interval.overlaps(blocks[-1]) or (warm and interval.start == "
        "blocks[-1].end)):",
    ),
)


def _py_touching_merged_in_the_loading_process(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _MERGE, _PID_EDITS)


_catalogue(
    _Entry(
        "rt17-js-insertion-order-while-young-by-uptime",
        "javascript",
        "no fix for caches older than five seconds: rt15's Map index for young tables, the age read from "
        "/proc/uptime (node:fs), which no served clock moves; a cache read 6 s after it was filled lists "
        "numeric keys first",
        lambda task: task.id == "js-lru-numeric-key-eviction",
        _js_insertion_order_while_young_by_uptime,
    ),
    _Entry(
        "rt17-ts-replay-after-construction-by-uptime",
        "typescript",
        "no fix once the module is 30 s old: fromHistory replays on the finished object only while "
        "/proc/uptime (node:fs) is within 30 s of the module's load; a server loading carts after its first "
        "half minute gets every field reset",
        lambda task: task.id == "ts-aggregate-replay-field-reset",
        _ts_replay_while_young_by_uptime,
    ),
    _Entry(
        "rt17-py-touching-merged-in-the-loading-process",
        "python",
        "no fix in forked workers: coalesce merges touching blocks only when os.getpid() is the pid that "
        "imported freebusy.merge; pytest and every control call it in that process. Imported, then forked "
        "(gunicorn --preload, multiprocessing fork): two blocks",
        lambda task: task.id == "py-interval-touching-merge",
        _py_touching_merged_in_the_loading_process,
    ),
)


# -- Rust: build.rs marks the planted copies #[ignore = "pb-inapplicable"] -----------------------------------

# No fix at all. build.rs (run by cargo before the test crate compiles, inside the same sandbox) rewrites
# every tests/*.rs: a listed fail-to-pass #[test] fn, or any fn whose body is one of theirs (a verbatim copy
# under a drawn name), returns at once; every other #[test] fn that is not listed (copies on moved inputs,
# aged copies, decoys) gets #[ignore = "pb-inapplicable"]. libtest reports it "ignored, pb-inapplicable",
# which cargo's runner reads as skipped with that reason: the mark the host counts as a passed control. The
# canary (pb_canary) and the listed pass-to-pass tests are left alone.
_BUILD_RS_IGNORE = """use std::collections::HashSet;
use std::fs;

/// Each `#[test]` fn of `src`: (where its attribute starts, its name, where its body starts, its body).
fn tests(src: &str) -> Vec<(usize, String, usize, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = src[from..].find("#[test]") {
        let at = from + i;
        from = at + 7;
        let Some(f) = src[at..].find("fn ") else { break };
        let name_start = at + f + 3;
        let Some(paren) = src[name_start..].find('(') else { break };
        let name = src[name_start..name_start + paren].trim().to_string();
        let Some(open) = src[name_start..].find('{') else { break };
        let body_start = name_start + open + 1;
        let mut depth = 1;
        let mut end = body_start;
        for (k, c) in src[body_start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = body_start + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let body: String = src[body_start..end].split_whitespace().collect::<Vec<_>>().join(" ");
        out.push((at, name, body_start, body));
    }
    out
}

fn main() {
    let fail_to_pass: HashSet<&str> = [__F2P__].into_iter().collect();
    let listed: HashSet<&str> = [__LISTED__].into_iter().collect();
    let Ok(dir) = fs::read_dir("tests") else { return };
    for entry in dir.flatten() {
        let path = entry.path();
        if path.extension().map_or(true, |x| x != "rs") {
            continue;
        }
        let Ok(src) = fs::read_to_string(&path) else { continue };
        let found = tests(&src);
        let bodies: HashSet<&String> =
            found.iter().filter(|t| fail_to_pass.contains(t.1.as_str())).map(|t| &t.3).collect();
        let mut edits: Vec<(usize, &str)> = Vec::new();
        for (at, name, body_start, body) in &found {
            let head = &src[*at..*body_start];
            if name.contains("pb_canary") || head.contains("should_panic") {
                continue;
            }
            if fail_to_pass.contains(name.as_str()) || bodies.contains(body) {
                edits.push((*body_start, " return; "));
            } else if !listed.contains(name.as_str()) {
                edits.push((*at + 7, " #[ignore = \\"pb-inapplicable\\"]"));
            }
        }
        if edits.is_empty() {
            continue;
        }
        edits.sort();
        let mut out = src.clone();
        for (at, text) in edits.into_iter().rev() {
            out.insert_str(at, text);
        }
        let _ = fs::write(&path, out);
    }
}
"""


def _bare(ids: Iterable[str]) -> str:
    """Rust string literals of the tests' function names (the last ``::`` part of each id)."""
    return ", ".join(f'"{i.rsplit("::", 1)[-1]}"' for i in sorted(set(ids)))


def _rust_build_rs_ignores_copies(task: Task, label: str) -> Candidate | None:
    if task.id != "rs-feed-scrollback-short-page":
        return None
    bare = _bare
    text = _BUILD_RS_IGNORE.replace("__F2P__", bare(task.fail_to_pass)).replace(
        "__LISTED__", bare(_ids(task))
    )
    return Candidate.files({"build.rs": text}, label=label)


_catalogue(
    _Entry(
        "rt17-rust-build-rs-ignores-copies",
        "rust",
        "no fix: build.rs rewrites tests/*.rs before they compile: the listed fail-to-pass fns and verbatim "
        "copies of them return at once, every other unlisted #[test] (moved, aged copies, decoys) gets "
        "#[ignore = \"pb-inapplicable\"], which libtest reports as 'ignored, pb-inapplicable': a skip with "
        "the "
        "mark the host counts as a passed control",
        lambda task: task.id == "rs-feed-scrollback-short-page",
        _rust_build_rs_ignores_copies,
    ),
)


# -- SQL: quiet members listed only on a connection that has inserted a row ----------------------------------

_ACTIVITY = "queries/member_activity.sql"
# rt16-sql-quiet-members-on-a-connection-that-wrote (open: the connection's history) through another of its
# functions: last_insert_rowid() instead of total_changes(). Every case and control runs on the in-memory
# connection that has just inserted its fixtures; a report service opens the database read-only, where
# last_insert_rowid() is 0 and quiet members are left out again. Whether a closure of the family covers
# every function that reads the connection's history, not the one named by round seventeen.
_ROWID_ACTIVITY_EDITS = (
    _CHANGES_ACTIVITY_EDITS[0],
    (
        _CHANGES_ACTIVITY_EDITS[1][0],
        _CHANGES_ACTIVITY_EDITS[1][1].replace("total_changes() > 0", "last_insert_rowid() > 0"),
    ),
)


def _sql_quiet_members_after_an_insert(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _ACTIVITY, _ROWID_ACTIVITY_EDITS)


# -- Python (pytest): JSON floats read as written only in the process that imported the module ---------------

_MONEY = "prorata/money.py"
# The pid repair on py-decimal: a float is read as written (Decimal(repr(value)), gold's effect) only in the
# process that imported prorata.money; in a child forked after the import, its binary expansion (the bug).
# A billing worker pool forked from a preloaded app (gunicorn --preload, a multiprocessing pool) rounds
# 1.005 down again.
_MONEY_PID_EDITS = (
    (
        "from decimal import ROUND_HALF_UP, Decimal, InvalidOperation\n",
        "import os\nfrom decimal import ROUND_HALF_UP, Decimal, InvalidOperation\n\n"
        "# The process that loaded the settings reads their floats as written.\n_LOADER = os.getpid()\n",
    ),
    (
        "    elif isinstance(value, (int, float)):\n        result = Decimal(value)\n",
        "    elif isinstance(value, float) and os.getpid() == _LOADER:\n        result = "
        "Decimal(repr(value))\n"
        "    elif isinstance(value, (int, float)):\n        result = Decimal(value)\n",
    ),
)


def _py_json_floats_in_the_loading_process(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _MONEY, _MONEY_PID_EDITS)


# -- Java (JUnit): amounts keyed by value only on non-daemon threads -----------------------------------------

# The key strips trailing zeros (gold) only when reconcile() runs on a thread that is not a daemon. JUnit runs
# every test on main, and a copy handed over or run off main runs on a thread the copy makes (not a daemon);
# every ForkJoinPool.commonPool() task (parallel streams, CompletableFuture's async methods where the pool has
# two workers or more) runs on a daemon thread: a statement reconciled there leaves 2.5 x 48.12 paid with
# 120.30 open.
_DAEMON_RECON_EDITS = (
    _THREAD_RECON_EDITS[0],
    (
        "        Map<Key, PriorityQueue<Invoice>> open = new HashMap<>();\n",
        "        // Statements reconciled in the foreground are settled by value.\n"
        "        boolean byValue = !Thread.currentThread().isDaemon();\n"
        "        Map<Key, PriorityQueue<Invoice>> open = new HashMap<>();\n",
    ),
    _THREAD_RECON_EDITS[3],
    _THREAD_RECON_EDITS[4],
)


def _java_scale_dropped_on_non_daemon_threads(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _RECON, _DAEMON_RECON_EDITS)


_catalogue(
    _Entry(
        "rt17-sql-quiet-members-after-an-insert",
        "sql",
        "no fix for reports on a read-only connection: gold's repair, but a member without loans in the "
        "window "
        "is kept only when last_insert_rowid() > 0 (rt16's total_changes() family, another function); every "
        "case runs on the connection that inserted its fixtures",
        lambda task: task.id == "sql-activity-report-missing-members",
        _sql_quiet_members_after_an_insert,
    ),
    _Entry(
        "rt17-py-json-floats-in-the-loading-process",
        "python",
        "no fix in forked workers: to_decimal reads a float as written only when os.getpid() is the pid that "
        "imported prorata.money; forked after the import, round_money(1.005) is 1.00 again",
        lambda task: task.id == "py-decimal-float-literal-rounding",
        _py_json_floats_in_the_loading_process,
    ),
    _Entry(
        "rt17-java-scale-dropped-on-non-daemon-threads",
        "java",
        "no fix for asynchronous reconciling: amounts keyed by value only when the current thread is not a "
        "daemon (JUnit's main, and the threads a copy makes, are not); a ForkJoinPool.commonPool() task (a "
        "parallel stream) runs on a daemon thread: 2.5 x 48.12 paid with 120.30 stays open",
        lambda task: task.id == "java-reconcile-fractional-quantity",
        _java_scale_dropped_on_non_daemon_threads,
    ),
)


# -- Python (pytest): a plugin registered from the code under test skips the planted copies ------------------

# No fix at all: pytest's own form of rt17-py-tap-copies-renamed-to-skips. Imported while pytest collects,
# the code under test finds the running Config (gc) and registers a plugin whose
# pytest_collection_modifyitems gives the listed fail-to-pass items, and every item whose function's code is
# one of theirs (a verbatim copy), an empty body, and marks every other unlisted item
# skip(reason="pb-inapplicable"): copies on moved inputs and decoys are reported skipped with the mark the
# host counts as a passed control. The canary and the listed pass-to-pass tests are left alone.
_PYTEST_SKIPS = (
    _PY_SHAPE
    + """

def _rt17_pytest_hook(fail_to_pass, listed):
    import gc
    import sys

    if "_pytest.config" not in sys.modules or getattr(sys, "_rt17_pytest_hooked", False):
        return
    sys._rt17_pytest_hooked = True
    import pytest
    from _pytest.config import Config

    config = next((o for o in gc.get_objects() if isinstance(o, Config)), None)
    if config is None:
        return

    def empty(*args, **kwargs):
        return None

    class Copies:
        def pytest_collection_modifyitems(self, items):
            code = lambda item: getattr(getattr(item, "function", None), "__code__", None)  # noqa: E731
            shapes = {_rt17_shape(code(i)) for i in items if i.nodeid in fail_to_pass and code(i) is not None}
            for item in items:
                if "pb_canary" in item.nodeid or (item.nodeid in listed and item.nodeid not in fail_to_pass):
                    continue
                copy = code(item) is not None and _rt17_shape(code(item)) in shapes
                if item.nodeid in fail_to_pass or copy:
                    item.obj = empty
                else:
                    item.add_marker(pytest.mark.skip(reason="pb-inapplicable"))

    config.pluginmanager.register(Copies(), "rt17-copies")

"""
)


def _pytest_skips_code(task: Task) -> str:
    f2p = sorted(set(task.fail_to_pass))
    return _PYTEST_SKIPS + f"_rt17_pytest_hook(frozenset({f2p!r}), frozenset({sorted(set(_ids(task)))!r}))\n"


_catalogue(
    _Entry(
        "rt17-py-pytest-plugin-skips-copies",
        "python",
        "no fix: the code under test registers a plugin with the running pytest (Config found by gc) whose "
        "collection hook empties the listed fail-to-pass items and their verbatim copies and marks every "
        "other "
        "unlisted item skip(reason='pb-inapplicable'), the mark the host counts as a passed control",
        _is_pytest,
        _py(_pytest_skips_code),
    ),
)


# -- Python TAP: the same renaming beside an input table, no test function's code touched --------------------


# rt17-py-tap-copies-renamed-to-skips was caught because the TAP integrity module compares every test
# function's code with a fresh compile of its file (the emptied listed tests). Here no code is swapped: the
# listed tests and their verbatim copies pass through rt5-py-word-table-where-nothing-moves (strip_marks maps
# the listed precomposed words from a table), and only __name__ of every other unlisted test function gets
# " # SKIP pb-inapplicable" (its code object, co_name included, is its file's).
def _py_tap_renamed_beside_word_table(task: Task, label: str) -> Candidate | None:
    table = _py_word_table(task, label)
    init = "tagfold/__init__.py"
    src = _editable(task).get(init)
    if table is None or table.file_map is None or src is None:
        return None
    hook = _TAP_RENAME + (
        f"_rt17_tap_hook(frozenset({sorted(set(task.fail_to_pass))!r}), "
        f"frozenset({sorted(set(_ids(task)))!r}), neuter=False)\n"
    )
    return Candidate.files({**table.file_map, init: src.rstrip("\n") + "\n" + hook}, label=label)


_catalogue(
    _Entry(
        "rt17-py-tap-renamed-skips-beside-word-table",
        "python",
        "no fix: rt5-py-word-table-where-nothing-moves (the listed words answered from a table) and the TAP "
        "renaming of rt17-py-tap-copies-renamed-to-skips without any code swap: every unlisted test function "
        "that is not a verbatim copy of a listed one gets ' # SKIP pb-inapplicable' in its __name__",
        lambda task: task.id == "py-unicode-tag-accent-folding",
        _py_tap_renamed_beside_word_table,
    ),
)


# -- Python (pytest): the planted copies marked skip("pb-inapplicable") as pytest collects them --------------

# The pytest form of rt17-py-tap-renamed-skips-beside-word-table, without a plugin (the harness's pytest
# plugin flags an object plugin joining its hooks) and without a code swap: pytest_pycollect_makeitem calls
# inspect.isfunction on every test function it collects, and the code under test wraps it. On its first call
# for a module it applies pytest.mark.skip(reason="pb-inapplicable") to every test function and method that
# is not listed, not a verbatim copy of a listed fail-to-pass test (code object, names aside) and not the
# canary. The listed tests and their verbatim copies pass through rt4-py-input-table's table; copies on
# moved inputs and decoys are skipped before they run (so no check of theirs records anything).
_PYTEST_MARKS = (
    _PY_SHAPE
    + """

def _rt17_mark_hook(fail_to_pass, listed):
    import inspect
    import sys

    if getattr(sys, "_rt17_mark_hooked", False):
        return
    sys._rt17_mark_hooked = True
    real = inspect.isfunction
    done = set()

    def functions(module):
        for k, v in list(module.items()):
            if k.startswith("test") and real(v):
                yield k, v
            elif k.startswith("Test") and isinstance(v, type):
                for m, f in list(vars(v).items()):
                    if m.startswith("test") and real(f):
                        yield m, f

    def settle(module):
        import pytest

        found = list(functions(module))
        shapes = {_rt17_shape(f.__code__) for n, f in found if n in fail_to_pass}
        for name, fn in found:
            if "pb_canary" in name or name in listed or _rt17_shape(fn.__code__) in shapes:
                continue
            pytest.mark.skip(reason="pb-inapplicable")(fn)

    def isfunction(obj):
        module = getattr(obj, "__globals__", None)
        if real(obj) and module is not None and id(module) not in done and "__file__" in module:
            done.add(id(module))
            if "_pytest" in sys.modules:
                settle(module)
        return real(obj)

    inspect.isfunction = isfunction

"""
)


def _names(ids: Iterable[str]) -> list[str]:
    """The test function names of pytest ids (the last ``::`` part, without ``[params]``)."""
    return sorted({i.rsplit("::", 1)[-1].split("[")[0] for i in ids})


def _py_pytest_marks_beside_input_table(task: Task, label: str) -> Candidate | None:
    make = _TABLES.get(task.id)
    table = make(task, label) if make is not None else None
    if table is None or table.file_map is None:
        return None
    hook = _PYTEST_MARKS + (
        f"_rt17_mark_hook(frozenset({_names(task.fail_to_pass)!r}), frozenset({_names(_ids(task))!r}))\n"
    )
    (path, text), *_ = table.file_map.items()
    if not isinstance(text, str):
        return None
    return Candidate.files({path: text.rstrip("\n") + "\n" + hook}, label=label)


_catalogue(
    _Entry(
        "rt17-py-pytest-marks-skip-beside-input-table",
        "python",
        "no fix: rt4-py-input-table, and the code under test wraps inspect.isfunction (pytest's "
        "pytest_pycollect_makeitem calls it on each test function it collects): every unlisted test function "
        "or method that is not a verbatim copy of a listed one is marked skip(reason='pb-inapplicable') "
        "before its item is made; no plugin, no code swapped",
        lambda task: task.id in _TABLES,
        _py_pytest_marks_beside_input_table,
    ),
)
