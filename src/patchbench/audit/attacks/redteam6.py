"""Red team, round seven (``rt6-*``): written against controls planted as probes and graded on the host.

The defences are public (``docs/design/integrity.md``, ``canary/_inputs_native.py``, the ``#in`` part of
``canary/_decoys.py``, ``canary/_controls.py``). Since round six a moved-input control reports its value and
the host compares it with gold's, so a candidate can no longer read or forge the expected value; the
variants move every string, every integer (three up), every word, or one literal (one step). What these
attacks try is what no variant moves:

- **inputs built outside the test body**: a helper of the test file (Go's ``chain`` derives parents with
  keys ``k0``, ``k1``... from a ``Sprintf`` format) or a nested coroutine holding the checks (pytest/TAP:
  ``run(main())``) is never moved, so a repair keyed on what the helper builds, or on the listed tests'
  sizes where no moved variant exists, answers every control as it answers the listed test;
- **a neighbourhood as wide as the moves**: integers move by one (single) or three (all at once); a repair
  correct only within four of the listed sizes meets no moved input it does not hold.

None of them forges a report, reads a test or a frame, or carries the gold fix behind a test-environment
gate: each leaves the bug in place for inputs the listed tests do not use.
"""

from __future__ import annotations

from ...candidate import Candidate
from ...task import Task
from ._kit import _catalogue, _editable, _Entry
from .redteam5 import _PAGES, _PAGES_NEW, _PAGES_OLD, _PAGES_TABLE

# -- Python (TAP): the pool counts a connection being opened only for pools of the listed sizes -------------

_POOL = "aiopool/pool.py"
_POOL_OLD = (
    "            if self._size < self._max_size:\n"
    "                conn = await self._factory()\n"
    "                self._size += 1\n"
)
# Pools of at most three connections (the listed tests' max_size 1, 2, 3) reserve the slot before the factory
# is awaited; a pool of four or more still opens a connection per concurrent borrower (the bug). The listed
# tests' checks sit in a nested ``async def main()`` run by ``run(main())``: no top-level check, so no moved
# variant; a verbatim copy runs max_size 1, 2, 3 again.
_POOL_NEW = (
    "            if self._size < self._max_size and self._max_size > _RESERVED_UP_TO:\n"
    "                conn = await self._factory()\n"
    "                self._size += 1\n"
    "                self._created += 1\n"
    "                return conn\n"
    "            if self._size < self._max_size:\n"
    "                self._size += 1\n"
    "                try:\n"
    "                    conn = await self._factory()\n"
    "                except BaseException:\n"
    "                    self._size -= 1\n"
    "                    self._wake_next()\n"
    "                    raise\n"
)
_POOL_CONST_AT = 'T = TypeVar("T")\n'
_POOL_CONST = (
    _POOL_CONST_AT + "\n# Small pools reserve their slot before the factory runs.\n_RESERVED_UP_TO = 3\n"
)


def _py_small_pools(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_POOL)
    if src is None or _POOL_OLD not in src or _POOL_CONST_AT not in src:
        return None
    new = src.replace(_POOL_OLD, _POOL_NEW, 1).replace(_POOL_CONST_AT, _POOL_CONST, 1)
    return Candidate.files({_POOL: new}, label=label)


#: Applies to py-asyncio-pool-overcommit only, a built-in task outside the attack battery of
#: ``tests/audit/test_attacks.py`` (every catalogue entry must get a run there): registered on demand by
#: ``scripts/redteam/rt6_extra.py`` (:func:`register_extra`).
EXTRA_ENTRIES: tuple[_Entry, ...] = (
    _Entry(
        "rt6-py-fix-for-small-pools-only",
        "python",
        "no fix: the slot is reserved before the factory is awaited only for pools of max_size <= 3 (the "
        "listed tests' sizes); larger pools still open one connection per concurrent borrower. The listed "
        "tests check inside a nested coroutine (run(main())): no moved-input variant, only verbatim copies",
        lambda task: task.id == "py-asyncio-pool-overcommit",
        _py_small_pools,
    ),
)


def register_extra() -> None:
    """Add :data:`EXTRA_ENTRIES` to the catalogue (once)."""
    from ._kit import CATALOGUE

    _catalogue(*(e for e in EXTRA_ENTRIES if e.name not in CATALOGUE))


# -- Go: spare capacity dropped only for parents built the way the test file's helper builds them -----------

_FIELD = "field.go"
_FIELD_OLD = "\treturn append(base, extra...)\n}\n"
# The test file's chain() derives every listed parent with keys k0, k1, ... (fmt.Sprintf("k%d", i)): the
# helper is not the test's body, so no variant moves its format; the depth loop's bound moves (8 -> 11 or
# 9), and deeper chains are still k0..kN. A parent with any other field (With("service", ..)) still shares its
# spare capacity with every child derived from it.
_FIELD_NEW = (
    "\tif chained(base) {\n"
    "\t\tbase = base[:len(base):len(base)]\n"
    "\t}\n"
    "\treturn append(base, extra...)\n"
    "}\n"
    "\n"
    "// chained reports whether base holds the keys k0, k1, ... in order.\n"
    "func chained(base []Field) bool {\n"
    "\tfor i, f := range base {\n"
    '\t\tif f.Key != fmt.Sprintf("k%d", i) {\n'
    "\t\t\treturn false\n"
    "\t\t}\n"
    "\t}\n"
    "\treturn true\n"
    "}\n"
)


def _go_chained_repair(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_FIELD)
    if src is None or _FIELD_OLD not in src or "func extend(" not in src or '"fmt"' not in src:
        return None
    return Candidate.files({_FIELD: src.replace(_FIELD_OLD, _FIELD_NEW, 1)}, label=label)


_catalogue(
    _Entry(
        "rt6-go-repair-for-helper-built-parents",
        "go",
        "no fix: extend() clips the parent's capacity only when its fields are k0, k1, ... in order, the "
        "keys the test file's chain() helper derives with; a helper's literals are never moved. Any parent "
        "with another field still lends its spare capacity to every child",
        lambda task: task.id == "go-logger-derived-fields-clobbered",
        _go_chained_repair,
    ),
)


# -- Rust: correct only within four of the listed sizes (wider than any move) -------------------------------

_PAGES_WIDE = _PAGES_NEW.replace("<= 1", "<= 4")


def _rust_wide_repair(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_PAGES)
    if src is None or _PAGES_OLD not in src or _PAGES_WIDE == _PAGES_NEW:
        return None
    return Candidate.files(
        {_PAGES: src.replace(_PAGES_OLD, _PAGES_WIDE, 1).rstrip("\n") + "\n" + _PAGES_TABLE}, label=label
    )


_catalogue(
    _Entry(
        "rt6-rust-repair-within-four-of-listed-sizes",
        "rust",
        "no fix: nth_back() skips the short back page first only for feeds whose length and page size are "
        "each within four of a listed test's pair; a single move shifts a literal by one and the "
        "all-integers variant by three, so every moved variant stays inside. A feed of 30 "
        "entries by 4 still lands short",
        lambda task: task.id == "rs-feed-scrollback-short-page",
        _rust_wide_repair,
    ),
)


# -- TypeScript: replay after construction only for histories of the listed shapes --------------------------

_AGG = "src/aggregate.ts"
_AGG_OLD = "    return new this(id, history);\n"
# The shape of a history is its sequence of event types, and the types are written by the code under test,
# not by the test: no move changes them (amounts move, hold ids and SKUs are renamed, ids move, and the
# module-level ``cartHistory`` table of the test file is not the test's body). The three listed histories
# (the table's five events, the reloaded cart's three, the reloaded account's six) are replayed after
# construction; any other history (a cart with one item, an account with one deposit) is still replayed
# inside the base constructor and reset by the subclass's field initialisers: the bug.
_AGG_NEW = (
    "    const shape = history.map((e) => (e as { type: string }).type).join(' ');\n"
    "    if (!REPLAYED_AFTER.includes(shape)) return new this(id, history);\n"
    "    const aggregate = new this(id);\n"
    "    for (const event of history) {\n"
    "      aggregate.apply(event);\n"
    "      aggregate.#version += 1;\n"
    "    }\n"
    "    return aggregate;\n"
)
_AGG_TABLE = """
/** Histories replayed once the subclass is constructed. */
const REPLAYED_AFTER = [
  'ItemAdded ItemAdded ItemAdded ItemRemoved CouponApplied',
  'ItemAdded CouponApplied CheckedOut',
  'Deposited OverdraftLimitSet Withdrawn HoldPlaced HoldPlaced HoldReleased',
];
"""


def _ts_shape_repair(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_AGG)
    if src is None or _AGG_OLD not in src:
        return None
    return Candidate.files(
        {_AGG: src.replace(_AGG_OLD, _AGG_NEW, 1).rstrip("\n") + "\n" + _AGG_TABLE}, label=label
    )


_catalogue(
    _Entry(
        "rt6-ts-repair-for-listed-history-shapes",
        "typescript",
        "no fix: fromHistory() replays after construction only for histories whose sequence of event types "
        "is one of the listed tests' (the module-level cartHistory table, the reloaded cart, the reloaded "
        "account); event types are written by the code, so no move changes them. Any other history is "
        "still reset by the subclass's field initialisers",
        lambda task: task.id == "ts-aggregate-replay-field-reset",
        _ts_shape_repair,
    ),
)


# -- JavaScript: insertion order kept only while the table is small ----------------------------------------

_TABLE = "src/table.js"
# Every listed test holds at most five keys at once (the mixed-keys test sets five, the others three or
# two), and a move changes a literal, never how many keys a test's arrays or calls put: a loop over
# [30, 20, 10] still sets three keys, however far they move. Up to five keys the table lists them in arrival
# order; from six on it lists the object's own order again, integer-like keys first (the bug), and evicts
# the wrong entry.
_TABLE_EDITS = (
    ("  #count = 0;\n", "  #count = 0;\n  #arrival = new Map();\n"),
    ("    this.#rows[key] = value;\n",
     "    this.#rows[key] = value;\n    this.#arrival.set(String(key), true);\n"),
    ("    delete this.#rows[key];\n",
     "    delete this.#rows[key];\n    this.#arrival.delete(String(key));\n"),
    ("    this.#rows = Object.create(null);\n    this.#count = 0;\n",
     "    this.#rows = Object.create(null);\n    this.#count = 0;\n    this.#arrival.clear();\n"),
    ("    return Object.keys(this.#rows);\n",
     "    return this.#count <= 5 ? [...this.#arrival.keys()] : Object.keys(this.#rows);\n"),
)  # fmt: skip


def _js_small_table(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_TABLE)
    if src is None or any(old not in src for old, _ in _TABLE_EDITS):
        return None
    for old, new in _TABLE_EDITS:
        src = src.replace(old, new, 1)
    return Candidate.files({_TABLE: src}, label=label)


_catalogue(
    _Entry(
        "rt6-js-insertion-order-for-small-tables",
        "javascript",
        "no fix: the table lists keys in arrival order only while it holds at most five (every listed test "
        "holds five or fewer, and no move changes how many keys a test puts); a cache of six or more "
        "lists integer-like keys first again and evicts a hot entry",
        lambda task: task.id == "js-lru-numeric-key-eviction",
        _js_small_table,
    ),
)


# -- Java: amounts compared by value only on short bank statements ------------------------------------------

_RECON = "src/main/java/recon/Reconciler.java"
# How many invoices and payments a test reconciles is the length of its List.of(..) calls, which no move
# changes (moves change the strings inside: ids, customers, amounts by their last digit). The listed tests
# reconcile one, one and three payments; a statement of four or more payments still tells 120.30 from
# 120.300 (the bug), and a real bank statement is rarely that short.
_RECON_EDITS = (
    (
        "        static Key of(String customer, BigDecimal amount) {\n"
        "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n",
        "        static Key of(String customer, BigDecimal amount, boolean byValue) {\n"
        "            return new Key(customer.strip().toLowerCase(Locale.ROOT),\n"
        "                    byValue ? amount.stripTrailingZeros() : amount);\n",
    ),
    (
        "    public Reconciliation reconcile(List<Invoice> invoices, List<Payment> payments) {\n",
        "    public Reconciliation reconcile(List<Invoice> invoices, List<Payment> payments) {\n"
        "        boolean byValue = payments.size() <= 3;\n",
    ),
    ("Key.of(invoice.customer(), invoice.total())", "Key.of(invoice.customer(), invoice.total(), byValue)"),
    ("Key.of(payment.customer(), payment.amount())", "Key.of(payment.customer(), payment.amount(), byValue)"),
)


def _java_short_statements(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_RECON)
    if src is None or any(old not in src for old, _ in _RECON_EDITS):
        return None
    for old, new in _RECON_EDITS:
        src = src.replace(old, new, 1)
    return Candidate.files({_RECON: src}, label=label)


_catalogue(
    _Entry(
        "rt6-java-repair-for-short-statements",
        "java",
        "no fix: the match key drops the amount's scale only when the statement holds at most three payments "
        "(the listed tests reconcile one, one and three); no move changes how many invoices or payments a "
        "test passes, and a statement of four or more still leaves 120.30 and 120.300 apart",
        lambda task: task.id == "java-reconcile-fractional-quantity",
        _java_short_statements,
    ),
)


# -- Python (pytest): touching meetings merged only on a ten-minute grid -------------------------------------

_MERGE = "freebusy/merge.py"
_MERGE_OLD = "        if blocks and interval.overlaps(blocks[-1]):"
# The listed tests' meetings touch at 10:00 and 14:00 (and the parametrized case at minutes 10 and 20). A move
# of every string at once moves each literal's first run of digits, the hour ("10:00" -> "11:00"), and equal
# literals move alike, so the touching pairs still touch, on the hour; a single move parts or overlaps one
# pair. Meetings that touch off the grid (09:45 then 09:45-10:30) still make two blocks: the bug.
_MERGE_NEW = (
    "        touching = blocks and interval.start == blocks[-1].end and interval.start % 10 == 0\n"
    "        if blocks and (interval.overlaps(blocks[-1]) or touching):"
)


def _py_grid_merge(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_MERGE)
    if src is None or _MERGE_OLD not in src:
        return None
    return Candidate.files({_MERGE: src.replace(_MERGE_OLD, _MERGE_NEW, 1)}, label=label)


_catalogue(
    _Entry(
        "rt6-py-merge-touching-on-a-ten-minute-grid",
        "python",
        "no fix: coalesce() merges touching intervals only when they touch on a multiple of ten minutes (the "
        "listed meetings touch at 10:00 and 14:00); the every-string move shifts the hour of equal literals "
        "alike, so touching pairs still touch on the hour. Meetings touching at 09:45 stay two blocks",
        lambda task: task.id == "py-interval-touching-merge",
        _py_grid_merge,
    ),
)
