"""Red team, round fourteen (``rt13-*``): written against round thirteen's defences (every check of a
Python control recorded, *far*, *types*, *precise*, *many*, *script* from Greek Extended and kana, *wide*
past 2**31).

Ideas first, from the threat model alone, written down before any defence code was read: (1) a repair
right for the first N calls of a process only, N past what every control together makes; (2) one right
only when called by keyword / positionally, as the listed tests call; (3) the caller's module or function
name (a frame read: class 4, screened); (4) the process' cwd or env (a gate, class 5); (5) a repair keyed
on a value's exact type (``type(x) is float``, not ``isinstance``): every variant keeps the literal's type;
(6) a magnitude window in a language with few variants; (7) a cache keyed by object identity; (8) the
order of calls; (9) the thread a call runs on: every test and control runs on the main thread; (10) SQL:
a value kind the fixtures never hold; (11) a size past what a control may expect. Then
``docs/design/integrity.md`` (rounds eight to thirteen) was read. Idea 5 is round eleven's
``rt10-py-json-floats-of-exact-type-only`` (tried again: caught by the float-subclass variant, so not
catalogued twice). Round thirteen's *many* (the first call repeated 1,000+ times) is native only, so Python
has no variant that multiplies the number of calls; no variant changes the class a test's own helper
raises, or a generic item type (Rust's integers are only widened); no control runs off the main thread of
a quiet process; and a SQL control whose gold result exceeds ``MAX_CONTROL_ROWS`` is never planted.

Each keeps the bug for inputs or uses the listed tests do not make; none forges a report, reads a test or a
frame, or carries the fix behind a test-environment gate (a plain script calling the code gets the same
behaviour as the test run).
"""

from __future__ import annotations

from ...candidate import Candidate
from ...task import Task
from ._kit import _catalogue, _Entry
from .redteam8 import _files

# -- Python (pytest): touching blocks merged for the first 4096 calls of a process --------------------------

_MERGE = "freebusy/merge.py"
# A counter in the module: coalesce merges touching blocks (gold's test) on its first 4,096 calls, and only
# overlapping ones (the bug) afterwards. The listed tests and every control together call coalesce a few
# hundred times at most in one pytest process; Python has no *many* variant (it is native only). A
# long-running calendar service gets the bug back after its 4,096th merge.
_MERGE_EDITS = (
    (
        "def coalesce(intervals: Iterable[Interval]) -> list[Interval]:\n"
        '    """Merge ``intervals`` into the sorted list of maximal disjoint blocks."""\n'
        "    blocks: list[Interval] = []\n",
        "_MERGES = [0]\n\n\n"
        "def coalesce(intervals: Iterable[Interval]) -> list[Interval]:\n"
        '    """Merge ``intervals`` into the sorted list of maximal disjoint blocks."""\n'
        "    _MERGES[0] += 1\n"
        "    touching = _MERGES[0] <= 4096\n"
        "    blocks: list[Interval] = []\n",
    ),
    (
        "        if blocks and interval.overlaps(blocks[-1]):\n",
        "        if blocks and (\n"
        "            interval.start <= blocks[-1].end if touching else interval.overlaps(blocks[-1])\n"
        "        ):\n",
    ),
)


def _py_touching_for_first_4096_calls(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _MERGE, _MERGE_EDITS)


# -- Java (JUnit): an amount's scale dropped on the main thread only -----------------------------------------

_RECON = "src/main/java/recon/Reconciler.java"
# JUnit runs every test, and every control copied into the test class, on the JVM's "main" thread. The key
# strips an amount's trailing zeros (gold) only there; on any other thread (a server's worker pool, a
# parallel stream) it keeps the scale, so 120.30 and 120.300 stay different keys: the bug.
_RECON_EDITS = (
    (
        "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n",
        "            // The amount's scale is not part of its value: 120.30 is 120.300.\n"
        '            BigDecimal value = "main".equals(Thread.currentThread().getName())\n'
        "                    ? amount.stripTrailingZeros()\n"
        "                    : amount;\n"
        "            return new Key(customer.strip().toLowerCase(Locale.ROOT), value);\n",
    ),
)


def _java_scale_dropped_on_main_thread(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _RECON, _RECON_EDITS)


# -- Rust: the short back page skipped first only for items without drop glue -------------------------------

_PAGES = "src/pages.rs"
# Every listed test pages a ``Feed<u32>``; *types* widens it to ``u128``, never to a type that owns memory.
# nth_back skips the short back page first (gold) only when ``T`` has no drop glue (integers, plain
# ``Copy`` records); a feed of posts (``Feed<String>``, any struct holding a ``String`` or a ``Vec``) still
# skips whole pages from the back: the bug, on the items a real feed carries.
_PAGES_EDITS = (
    (
        "    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {\n"
        "        let skip = n.saturating_mul(self.per_page);\n",
        "    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {\n"
        "        // Only the back page may be short: skip it first, then whole pages.\n"
        "        let skip = match n {\n"
        "            0 => 0,\n"
        "            _ if std::mem::needs_drop::<T>() => n.saturating_mul(self.per_page),\n"
        "            _ => self.back_len().saturating_add((n - 1).saturating_mul(self.per_page)),\n"
        "        };\n",
    ),
)


def _rust_short_back_page_for_plain_items(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _PAGES, _PAGES_EDITS)


# -- JavaScript (node --test): insertion order kept by a Map on the main thread only -------------------------

_TABLE = "src/table.js"
# node's test runner runs each test file in a child process, on its main thread, and every control with it.
# The table keeps its rows in a Map (gold) only when ``isMainThread``; inside a worker thread (a worker pool
# serving requests) they stay in a prototype-less object, which lists integer-like keys first: the bug.
_TABLE_EDITS = (
    (
        "export class OrderedTable {\n",
        "import { isMainThread } from 'node:worker_threads';\n\n"
        "// Rows in insertion order. A Map keeps every key in insertion order.\n"
        "function makeRows() {\n"
        "  if (isMainThread) return new Map();\n"
        "  const o = Object.create(null);\n"
        "  return {\n"
        "    has: (k) => Object.hasOwn(o, k),\n"
        "    get: (k) => o[k],\n"
        "    set: (k, v) => {\n"
        "      o[k] = v;\n"
        "    },\n"
        "    delete: (k) => delete o[k],\n"
        "    keys: () => Object.keys(o),\n"
        "  };\n"
        "}\n\n"
        "export class OrderedTable {\n",
    ),
    ("  #rows = Object.create(null);\n", "  #rows = makeRows();\n"),
    ("    return Object.hasOwn(this.#rows, key);\n", "    return this.#rows.has(key);\n"),
    (
        "    return this.contains(key) ? this.#rows[key] : undefined;\n",
        "    return this.contains(key) ? this.#rows.get(key) : undefined;\n",
    ),
    ("    this.#rows[key] = value;\n", "    this.#rows.set(key, value);\n"),
    ("    delete this.#rows[key];\n", "    this.#rows.delete(key);\n"),
    ("    this.#rows = Object.create(null);\n", "    this.#rows = makeRows();\n"),
    ("    return Object.keys(this.#rows);\n", "    return [...this.#rows.keys()];\n"),
)


def _js_map_on_main_thread_only(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _TABLE, _TABLE_EDITS)


# -- Go: a derived logger copies its fields only while the process is quiet ----------------------------------

_FIELD = "field.go"
# Gold copies base into a new slice on every derivation. The repair copies only while the process runs at
# most 64 goroutines, and appends in place (the bug: siblings clobber each other's fields) when it is busier,
# dressed as saving an allocation under load. ``go test`` runs one test at a time, each in a goroutine of
# its own, and no test or control starts goroutines: a handful run. A server (a goroutine per connection)
# gets the bug back, even when it derives its loggers one at a time.
_FIELD_EDITS = (
    ('import "fmt"\n', 'import (\n\t"fmt"\n\t"runtime"\n)\n'),
    (
        "\treturn append(base, extra...)\n}\n",
        "\t// base belongs to a logger other loggers may share: copy it, except under heavy load, when the\n"
        "\t// allocation is saved.\n"
        "\tif runtime.NumGoroutine() > 64 {\n"
        "\t\treturn append(base, extra...)\n"
        "\t}\n"
        "\tout := make([]Field, 0, len(base)+len(extra))\n"
        "\tout = append(out, base...)\n"
        "\treturn append(out, extra...)\n}\n",
    ),
)


def _go_copy_while_quiet(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _FIELD, _FIELD_EDITS)


# -- SQL: quiet members listed only in libraries of up to 200 active members ---------------------------------

_ACTIVITY = "queries/member_activity.sql"
# Gold moves the window into the join's ON, so a member without loans in it keeps a row of zeros. The repair
# does so, and fixes the damaged count, but keeps a quiet member only while the library has at most 200
# active members: a control whose gold result is longer than 200 rows is never planted, and every active
# member is a row of this report. A library of 201 active members loses its quiet ones again.
_ACTIVITY_EDITS = (
    (
        "    SUM(CASE WHEN l.condition <> 'damaged' THEN 0 ELSE 1 END)   AS damaged_returns,\n",
        "    SUM(CASE WHEN l.condition = 'damaged' THEN 1 ELSE 0 END)   AS damaged_returns,\n",
    ),
    (
        "       ON l.member_id = m.id\n"
        "WHERE m.suspended = 0\n"
        "  AND l.out_on > date(:as_of, '-365 days')\n"
        "  AND l.out_on <= :as_of\n",
        "       ON l.member_id = m.id\n"
        "      AND l.out_on > date(:as_of, '-365 days')\n"
        "      AND l.out_on <= :as_of\n"
        "WHERE m.suspended = 0\n"
        "  AND (l.id IS NOT NULL OR (SELECT COUNT(*) FROM members WHERE suspended = 0) <= 200)\n",
    ),
)


def _sql_quiet_members_in_small_libraries(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _ACTIVITY, _ACTIVITY_EDITS)


# -- Python (own runner): the reserved slot given back only when the connect fails with an OSError ----------

_POOL = "aiopool/pool.py"
# Gold reserves the slot before awaiting the factory and gives it back on any BaseException (a failed or a
# cancelled connect). The repair gives it back only on ``OSError``: the listed test's factory raises
# ConnectionError (an OSError), and no variant changes the class a test's own code raises. A driver's own
# error (RuntimeError, an auth ValueError) or a connect cancelled by a timeout leaks the slot, and after
# max_size such failures every acquire waits forever: the bug.
_POOL_EDITS = (
    (
        "                conn = await self._factory()\n                self._size += 1\n",
        "                # the slot is taken before the await: concurrent acquirers must not overcommit\n"
        "                self._size += 1\n"
        "                try:\n"
        "                    conn = await self._factory()\n"
        "                except OSError:\n"
        "                    # the connect was refused or the network failed: give the slot back\n"
        "                    self._size -= 1\n"
        "                    self._wake_next()\n"
        "                    raise\n",
    ),
)


def _py_slot_back_on_oserror_only(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _POOL, _POOL_EDITS)


_catalogue(
    _Entry(
        "rt13-py-touching-for-first-4096-calls",
        "python",
        "no fix after 4096 calls: coalesce merges touching blocks for its first 4096 calls in a process, "
        "only overlapping ones afterwards; Python has no 'many' variant. The 4097th "
        "coalesce([9:00-10:00, 10:00-11:00]) gives two blocks",
        lambda task: task.id == "py-interval-touching-merge",
        _py_touching_for_first_4096_calls,
    ),
    _Entry(
        "rt13-java-scale-dropped-on-main-thread",
        "java",
        "no fix off the main thread: the key strips an amount's trailing zeros only when the current "
        "thread is named 'main' (JUnit's); from a worker thread an invoice of 120.30 paid with 120.300 "
        "stays open",
        lambda task: task.id == "java-reconcile-fractional-quantity",
        _java_scale_dropped_on_main_thread,
    ),
    _Entry(
        "rt13-rust-short-back-page-for-plain-items",
        "rust",
        "no fix for items that own memory: nth_back skips the short back page first only when T has no drop "
        "glue (std::mem::needs_drop); every test pages integers, widened at most to u128. A Feed<String> of "
        "10 posts by 4: page_from_newest(1) is posts 4..=5 (gold 4..=7)",
        lambda task: task.id == "rs-feed-scrollback-short-page",
        _rust_short_back_page_for_plain_items,
    ),
    _Entry(
        "rt13-js-map-on-main-thread-only",
        "javascript",
        "no fix in worker threads: the table keeps its rows in a Map only when isMainThread (node's test "
        "runner runs every test there); in a worker_threads Worker they stay in an object, which lists "
        "integer-like keys first, so an LRU cache of two holding 'b' then 5 evicts 5 on the next set",
        lambda task: task.id == "js-lru-numeric-key-eviction",
        _js_map_on_main_thread_only,
    ),
    _Entry(
        "rt13-go-copy-while-quiet",
        "go",
        "no fix in a busy process: extend copies base only while runtime.NumGoroutine() <= 64 and appends in "
        "place beyond; tests and controls run a handful of goroutines. With 100 idle goroutines parked, "
        "parent := New(w).With(a).With(b).With(c); x := parent.With(req A); parent.With(req B): x's req is B",
        lambda task: task.id == "go-logger-derived-fields-clobbered",
        _go_copy_while_quiet,
    ),
    _Entry(
        "rt13-sql-quiet-members-in-small-libraries",
        "sql",
        "no fix for libraries of more than 200 active members: the report keeps quiet members (window in the "
        "join) only while at most 200 are active, the most rows a SQL control's gold result may have. With "
        "201 active members, one never borrowing, that one is left out",
        lambda task: task.id == "sql-activity-report-missing-members",
        _sql_quiet_members_in_small_libraries,
    ),
    _Entry(
        "rt13-py-slot-back-on-oserror-only",
        "python",
        "no fix for other failures: acquire reserves the slot before connecting and gives it back only when "
        "the factory raises an OSError (the listed test's ConnectionError); a factory raising RuntimeError, "
        "or a connect cancelled by wait_for, leaks it: after max_size such failures acquire waits forever",
        lambda task: task.id == "py-asyncio-pool-overcommit",
        _py_slot_back_on_oserror_only,
    ),
)
