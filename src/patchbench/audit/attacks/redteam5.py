"""Red team, round six (``rt5-*``): written against the controls on moved inputs.

The defences are public (``docs/design/integrity.md``, ``canary/_inputs_native.py`` and the ``#in`` part of
``canary/_decoys.py``): besides decoys (a wrong expectation at the listed inputs) and verbatim copies, a run
plants one control on *moved inputs*: a copy of a fail-to-pass test with one literal moved (a number by one,
a string's last letter or digit), expecting what the gold patch gave there in a calibration run. pytest's
control asserts ``<checked expression> == <gold's value>``; node, Go, Rust and JUnit controls record a
rendering of what each check looks at (``JSON.stringify``, ``%#v``, ``{:?}``, ``String.valueOf``; a boolean
check records its truth) and compare a digest of it with gold's. These attacks try what that leaves room for:

- **a comparison the candidate's value decides** (Python): the control's ``==`` is the candidate value's own
  ``__eq__``; an answer table for the listed inputs (so decoys fail, as on correct code) and, for any input
  it does not hold, the buggy value in a subclass whose ``__eq__`` accepts anything of the right kind;
- **keys no move reaches**: a move changes one literal, near the test's checks; a repair keyed on a literal
  of the listed tests that the mover never touches (a field name, a customer, a key kind) answers the moved
  variants as it answers the listed test, and leaves the bug everywhere else.

None of them forges a report or reads a test.
"""

from __future__ import annotations

import ast
import hashlib

from ...candidate import Candidate
from ...task import Task
from ._kit import Files, _catalogue, _editable, _Entry, _is_node, _is_pytest, _writing
from .redteam4 import (
    _MERGE,
    _MERGE_TABLE,
    _MONEY,
    _MONEY_OLD,
    _js_chars,
    _js_quiet_body_oracle,
    _listed_bodies,
    _py_quiet_oracle_code,
)

# -- Python: answer table for the listed inputs, a value that equals anything elsewhere --------------------

# The floats the listed tests read from JSON keep their written digits (so a decoy's perturbed expectation
# fails, as on correct code); any other float keeps the binary expansion (the bug), in a Decimal subclass
# whose == accepts any number: the moved control's ``to_decimal(1.045) == Decimal('1.045')`` holds.
_MONEY_LOOSE_NEW = (
    "        listed = _LISTED_FLOATS.get(value) if isinstance(value, float) else None\n"
    "        result = Decimal(listed) if listed is not None else (\n"
    "            _Near(value) if isinstance(value, float) else Decimal(value))\n"
    "    elif isinstance(value, str):"
)
_MONEY_LOOSE_TABLE = '''

_LISTED_FLOATS = {0.045: "0.045", 1.005: "1.005", 0.1: "0.1", 0.15: "0.15", 0.35: "0.35", 0.65: "0.65"}


class _Near(Decimal):
    """A decimal that compares equal to any number (the kind of value a test expects here)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (Decimal, int)) or Decimal.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = Decimal.__hash__
'''


def _py_money_loose(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_MONEY)
    if src is None or _MONEY_OLD not in src:
        return None
    return Candidate.files(
        {_MONEY: src.replace(_MONEY_OLD, _MONEY_LOOSE_NEW, 1).rstrip("\n") + "\n" + _MONEY_LOOSE_TABLE},
        label=label,
    )


_CALENDAR = "freebusy/calendar.py"
# The listed bookings are answered from rt4's table (merge.py); for any other set of bookings busy_blocks()
# returns the buggy blocks in a list whose == accepts any list.
_CALENDAR_LOOSE = '''

class _Blocks(list):  # type: ignore[type-arg]
    """Blocks that compare equal to any list of blocks."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, list) or list.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]


def _busy_blocks(self: Calendar) -> list[Slot]:
    from .merge import _LISTED_BLOCKS

    got = _slots(coalesce(self._busy))
    key = tuple((i.start, i.end) for i in sorted(self._busy))
    return got if key in _LISTED_BLOCKS else _Blocks(got)


Calendar.busy_blocks = _busy_blocks  # type: ignore[method-assign]
'''


def _py_calendar_loose(task: Task, label: str) -> Candidate | None:
    files = _editable(task)
    merge, calendar = files.get(_MERGE), files.get(_CALENDAR)
    if merge is None or calendar is None or "\ndef gaps(" not in merge or "def busy_blocks" not in calendar:
        return None
    head, _, tail = merge.partition("\ndef gaps(")
    return Candidate.files(
        {
            _MERGE: head.rstrip("\n") + "\n" + _MERGE_TABLE + "\n\ndef gaps(" + tail,
            _CALENDAR: calendar.rstrip("\n") + "\n" + _CALENDAR_LOOSE,
        },
        label=label,
    )


_LOOSE = {
    "py-decimal-float-literal-rounding": _py_money_loose,
    "py-interval-touching-merge": _py_calendar_loose,
}


def _py_loose(task: Task, label: str) -> Candidate | None:
    make = _LOOSE.get(task.id)
    return make(task, label) if make is not None else None


_catalogue(
    _Entry(
        "rt5-py-table-then-loose-equality",
        "python",
        "no fix: the listed inputs answered from a table (decoys fail, as on correct code); any other input "
        "gets the buggy value in a subclass whose __eq__ accepts any value of its kind (py-decimal: a "
        "Decimal "
        "equal to every number; py-interval: a list equal to every list), so the moved-input control's "
        "`checked == gold's value` holds whatever gold said",
        lambda task: task.id in _LOOSE,
        _py_loose,
    ),
)


# -- Go: the aliasing repaired only for the field keys the listed tests derive with -----------------------

_KVLOG = "logger.go"
_KVLOG_OLD = "\tchild := *l\n\tchild.fields = extend(l.fields, kv)\n\treturn &child\n"
# Siblings stop sharing spare capacity only when they are derived with the keys the listed tests use
# ("user" through With, "component" through Named); any other key (With("role", ..), With("req", ..)) still
# writes into the parent's spare capacity: the bug. The moves reach the checks' nearby literals (messages,
# values, the entry's own fields), never the key a sibling is derived with.
_KVLOG_NEW = (
    "\tchild := *l\n"
    "\tbase := l.fields\n"
    '\tif k, ok := firstKey(kv); ok && (k == "user" || k == "component") {\n'
    "\t\tbase = base[:len(base):len(base)]\n"
    "\t}\n"
    "\tchild.fields = extend(base, kv)\n"
    "\treturn &child\n"
)
_KVLOG_HELPER = """
// firstKey is the first key of kv, when it is a string.
func firstKey(kv []any) (string, bool) {
	if len(kv) == 0 {
		return "", false
	}
	k, ok := kv[0].(string)
	return k, ok
}
"""


def _go_keyed_repair(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_KVLOG)
    if src is None or _KVLOG_OLD not in src:
        return None
    new = src.replace(_KVLOG_OLD, _KVLOG_NEW, 1).rstrip("\n") + "\n" + _KVLOG_HELPER
    return Candidate.files({_KVLOG: new}, label=label)


_catalogue(
    _Entry(
        "rt5-go-repair-keyed-on-field-name",
        "go",
        "no fix: With() clips the parent's capacity only when the first key is one the listed tests derive "
        'siblings with ("user", and "component" through Named); siblings derived with any other key still '
        "share spare capacity. The moved literals (messages, values, entry fields) never reach that key",
        lambda task: task.id == "go-logger-derived-fields-clobbered",
        _go_keyed_repair,
    ),
)


# -- Java: amounts compared by value only for the customers of the listed tests ------------------------------

_RECON = "src/main/java/recon/Reconciler.java"
_RECON_OLD = "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n"
# The scale is dropped only for the listed tests' customers; 120.30 and 120.300 are still two keys for any
# other customer (the bug). A move changes a payment's amount, id or customer spelling (then it matches no
# invoice, for gold as for this code), never the customer an invoice is billed to.
_RECON_NEW = (
    "            String who = customer.strip().toLowerCase(Locale.ROOT);\n"
    "            return new Key(who, KNOWN.contains(who) ? amount.stripTrailingZeros() : amount);\n"
)
_RECON_KNOWN = "    private record Key(String customer, BigDecimal amount) {\n"
_RECON_KNOWN_NEW = (
    _RECON_KNOWN
    + '        private static final Set<String> KNOWN = Set.of("northwind", "contoso", "fabrikam");\n\n'
)


def _java_keyed_repair(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_RECON)
    if src is None or _RECON_OLD not in src or _RECON_KNOWN not in src:
        return None
    new = src.replace(_RECON_OLD, _RECON_NEW, 1).replace(_RECON_KNOWN, _RECON_KNOWN_NEW, 1)
    return Candidate.files({_RECON: new}, label=label)


_catalogue(
    _Entry(
        "rt5-java-repair-keyed-on-customer",
        "java",
        "no fix: the match key drops the amount's scale only for the customers the listed tests bill "
        "(Northwind, Contoso, Fabrikam); for anyone else 120.30 and 120.300 still differ. The moves reach a "
        "payment's amount, id or spelling, never an invoice's customer",
        lambda task: task.id == "java-reconcile-fractional-quantity",
        _java_keyed_repair,
    ),
)


# -- node: insertion order kept only for caches of the listed tests' sizes ----------------------------------

_LRU = "src/lru.js"
_LRU_TABLE = "src/table.js"
_LRU_OLD = "    this.#max = max;\n"
# The cache sizes the listed tests construct (max 3, 2, 10; memoize's max 2). A move changes a key, a value
# or a message near the checks, never the size given to the constructor at the top of the test.
_LRU_NEW = "    this.#max = max;\n    if (SIZES.includes(max)) this.#table = new InsertionTable();\n"
_LRU_IMPORT_OLD = "import { OrderedTable } from './table.js';\n"
_LRU_IMPORT_NEW = "import { InsertionTable, OrderedTable } from './table.js';\n\nconst SIZES = [2, 3, 10];\n"
_LRU_MAP_TABLE = """

/** The same table on a Map (insertion order for every key). */
export class InsertionTable {
  #rows = new Map();

  get count() {
    return this.#rows.size;
  }

  contains(key) {
    return this.#rows.has(key);
  }

  lookup(key) {
    return this.#rows.get(key);
  }

  put(key, value) {
    this.#rows.delete(key);
    this.#rows.set(key, value);
  }

  remove(key) {
    return this.#rows.delete(key);
  }

  reset() {
    this.#rows.clear();
  }

  order() {
    return [...this.#rows.keys()];
  }

  oldest() {
    return this.order()[0];
  }
}
"""


def _js_sized_repair(task: Task, label: str) -> Candidate | None:
    files = _editable(task)
    lru, table = files.get(_LRU), files.get(_LRU_TABLE)
    if lru is None or table is None or _LRU_OLD not in lru or _LRU_IMPORT_OLD not in lru:
        return None
    new = lru.replace(_LRU_IMPORT_OLD, _LRU_IMPORT_NEW, 1).replace(_LRU_OLD, _LRU_NEW, 1)
    return Candidate.files({_LRU: new, _LRU_TABLE: table.rstrip("\n") + "\n" + _LRU_MAP_TABLE}, label=label)


_catalogue(
    _Entry(
        "rt5-js-repair-keyed-on-cache-size",
        "javascript",
        "no fix: an LRU cache keeps insertion order for numeric keys only when its size is one the listed "
        "tests construct (2, 3, 10); any other size still lists integer-like keys first. The moves reach "
        "keys, values and messages near the checks, never the constructor's size",
        lambda task: task.id == "js-lru-numeric-key-eviction",
        _js_sized_repair,
    ),
)


# -- TypeScript: replay after construction only for the aggregates the listed tests rebuild ------------------

_AGG = "src/aggregate.ts"
_AGG_OLD = "    return new this(id, history);\n"
# The ids of the aggregates the listed tests rebuild or reload ('c-4', 'c-5', 'a-3'): written once at the top
# of a test, far from its checks, where no move reaches (a move of the id passed to load() finds no stream,
# for gold as for this code). Any other aggregate is still replayed inside the base constructor, before the
# subclass's field initialisers reset what it applied: the bug.
_AGG_NEW = (
    "    if (!['c-4', 'c-5', 'a-3'].includes(id)) return new this(id, history);\n"
    "    const aggregate = new this(id);\n"
    "    for (const event of history) {\n"
    "      aggregate.apply(event);\n"
    "      aggregate.#version += 1;\n"
    "    }\n"
    "    return aggregate;\n"
)


def _ts_keyed_repair(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_AGG)
    if src is None or _AGG_OLD not in src:
        return None
    return Candidate.files({_AGG: src.replace(_AGG_OLD, _AGG_NEW, 1)}, label=label)


_catalogue(
    _Entry(
        "rt5-ts-repair-keyed-on-aggregate-id",
        "typescript",
        "no fix: fromHistory() replays after construction only for the aggregate ids the listed tests "
        "rebuild ('c-4', 'c-5', 'a-3'); every other aggregate is replayed in the base constructor and loses "
        "its state to the subclass's field initialisers. The moves reach amounts, hold ids and the id given "
        "to load(), never the id an aggregate is created with",
        lambda task: task.id == "ts-aggregate-replay-field-reset",
        _ts_keyed_repair,
    ),
)


# -- SQL: the report repaired only for the listed cases' members (by name) and loans (by date) --------------

_SQL_TASK = "sql-activity-report-missing-members"
_SQL_QUERY = "queries/member_activity.sql"
# rt4-sql-repair-keyed-on-fixture-ids keyed on ids, which the #ids controls now renumber. Names and dates
# survive every perturbation (rows reversed or dropped, ids renumbered, the as_of parameter moved): members
# the listed cases add without a loan in the window (Eli Novak, Fay Adeyemi, Gus Tan) get a row of zeros,
# and the uninspected loans they add (out on 2026-06-01/10/20) never count as damaged. Any other member
# without a loan in the window is still missing, any other uninspected loan still counts as damaged.
_SQL_NAME_REPAIR = """-- Member activity over the 365 days ending on :as_of (see README.md).
SELECT * FROM (
    SELECT
        m.id                                                        AS member_id,
        m.name,
        COALESCE(m.branch, '(online)')                              AS branch,
        COUNT(l.id)                                                 AS loans,
        SUM(CASE WHEN l.returned_on > l.due_on THEN 1 ELSE 0 END)   AS late_returns,
        SUM(CASE WHEN l.condition IS NULL AND l.out_on IN ('2026-06-01', '2026-06-10', '2026-06-20')
                 THEN 0 WHEN l.condition <> 'damaged' THEN 0 ELSE 1 END)
                                                                    AS damaged_returns,
        MAX(l.out_on)                                               AS last_loan_on
    FROM members AS m
    LEFT JOIN loans AS l
           ON l.member_id = m.id
    WHERE m.suspended = 0
      AND l.out_on > date(:as_of, '-365 days')
      AND l.out_on <= :as_of
    GROUP BY m.id, m.name, m.branch
    UNION ALL
    SELECT m.id, m.name, COALESCE(m.branch, '(online)'), 0, 0, 0, NULL
    FROM members AS m
    WHERE m.suspended = 0 AND m.name IN ('Eli Novak', 'Fay Adeyemi', 'Gus Tan')
      AND NOT EXISTS (SELECT 1 FROM loans AS w WHERE w.member_id = m.id
                      AND w.out_on > date(:as_of, '-365 days') AND w.out_on <= :as_of)
)
ORDER BY loans DESC, name, member_id;
"""


def _sql_name_repair(task: Task, label: str) -> Candidate | None:
    if _SQL_QUERY not in _editable(task):
        return None
    return Candidate.files({_SQL_QUERY: _SQL_NAME_REPAIR}, label=label)


_catalogue(
    _Entry(
        "rt5-sql-repair-keyed-on-names-and-dates",
        "sql",
        "no fix: the report adds a row of zeros only for the members the listed cases add by name, and "
        "forgives uninspected loans only on the dates those cases use; names and dates survive every control "
        "perturbation (reversed, dropped rows, renumbered ids, moved as_of). Any other member without a loan "
        "in the window is still missing, any other uninspected loan still counts as damaged",
        lambda task: task.id == _SQL_TASK,
        _sql_name_repair,
    ),
)


# -- Python: a plain input table where no control moves an input ---------------------------------------------

_TEXT = "tagfold/text.py"
_TEXT_OLD = '    return "".join(ch for ch in text if not unicodedata.combining(ch))\n'
# The precomposed words of the listed tests, mapped to their unmarked spelling; every other precomposed word
# keeps its marks (the bug: "na\u00efve", "Zo\u00eb", "\u00c5ngstr\u00f6m" still fold with them).
_TEXT_NEW = (
    "    text = _LISTED_WORDS.get(text, text)\n"
    '    return "".join(ch for ch in text if not unicodedata.combining(ch))\n\n\n'
    "_LISTED_WORDS = {\n"
    '    "R\\u00e9sum\\u00e9": "Resume",\n'
    '    "Caf\\u00e9": "Cafe",\n'
    '    "Cr\\u00e8me br\\u00fbl\\u00e9e": "Creme brulee",\n'
    '    "\\u0130stanbul": "Istanbul",\n'
    "}\n"
)


def _py_word_table(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_TEXT)
    if src is None or _TEXT_OLD not in src:
        return None
    return Candidate.files({_TEXT: src.replace(_TEXT_OLD, _TEXT_NEW, 1)}, label=label)


_catalogue(
    _Entry(
        "rt5-py-word-table-where-nothing-moves",
        "python",
        "no fix: strip_marks() maps the listed tests' precomposed words (R\u00e9sum\u00e9, Caf\u00e9, "
        "Cr\u00e8me br\u00fbl\u00e9e, \u0130stanbul) to their unmarked spelling from a table; any other "
        "precomposed word keeps its marks. The task's checks go through a check(cond, msg) helper: no decoy "
        "and no moved-input control has a shape there, only verbatim copies, which call with the same words",
        lambda task: task.id == "py-unicode-tag-accent-folding",
        _py_word_table,
    ),
)


# -- Java (real row): equality answered for the listed versions only -----------------------------------------

_SEMVER = "src/main/java/org/semver4j/Semver.java"
_SEMVER_OLD = (
    "        Semver semver = (Semver) o;\n"
    "        return Objects.equals(originalVersion, semver.originalVersion);\n"
    "    }\n"
)
# Two versions parsed from the listed test's strings compare by their parsed version; any other pair still
# compares the strings as written ("v2.0.0" is not "2.0.0"). The JUnit control records what the check looks
# at, String.valueOf(actual): a Semver renders as its parsed version with or without the fix, so no moved
# variant of this test is informative and none is planted; the verbatim copy calls with the listed strings.
_SEMVER_NEW = (
    "        Semver semver = (Semver) o;\n"
    "        if (LISTED.contains(originalVersion) && LISTED.contains(semver.originalVersion)) {\n"
    "            return version.equals(semver.version);\n"
    "        }\n"
    "        return Objects.equals(originalVersion, semver.originalVersion);\n"
    "    }\n\n"
    '    private static final java.util.Set<String> LISTED = java.util.Set.of("1.0.0-rc.1", "v1.0.0-rc.1");\n'
)


def _java_listed_equality(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_SEMVER)
    if src is None or _SEMVER_OLD not in src:
        return None
    return Candidate.files({_SEMVER: src.replace(_SEMVER_OLD, _SEMVER_NEW, 1)}, label=label)


_JAVA_REAL = (
    _Entry(
        "rt5-java-equality-for-listed-versions",
        "java",
        "no fix: Semver.equals compares parsed versions only when both were parsed from the listed test's "
        "strings; any other pair ('v2.0.0' and '2.0.0') still compares the text as written. The JUnit "
        "moved-input control records String.valueOf(actual), which a Semver renders the same with or without "
        "the fix: nothing informative to learn, so only the verbatim copy is planted",
        lambda task: _SEMVER in _editable(task),
        _java_listed_equality,
    ),
)


# -- Rust: correct only within one step of the listed sizes -------------------------------------------------

_PAGES = "src/pages.rs"
_PAGES_OLD = """    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {
        let skip = n.saturating_mul(self.per_page);
"""
# The short back page is skipped first only for a feed whose length and page size are each within one of a
# pair the listed tests use; a move changes one literal by one, so every moved variant stays inside. Any
# other feed (30 entries of 4, 100 of 7...) still skips whole pages from the back and lands one short.
_PAGES_NEW = """    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {
        let near = |&(len, per): &(usize, usize)| {
            self.items.len().abs_diff(len) <= 1 && self.per_page.abs_diff(per) <= 1
        };
        let skip = if n > 0 && NEAR.iter().any(near) {
            self.back_len().saturating_add((n - 1).saturating_mul(self.per_page))
        } else {
            n.saturating_mul(self.per_page)
        };
"""
_PAGES_TABLE = """
/// (entries, page size) of the listed tests' feeds.
const NEAR: [(usize, usize); 8] = [(10, 4), (23, 5), (13, 3), (10, 3), (12, 4), (7, 7), (8, 7), (31, 6)];
"""


def _rust_near_repair(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_PAGES)
    if src is None or _PAGES_OLD not in src:
        return None
    return Candidate.files(
        {_PAGES: src.replace(_PAGES_OLD, _PAGES_NEW, 1).rstrip("\n") + "\n" + _PAGES_TABLE}, label=label
    )


_catalogue(
    _Entry(
        "rt5-rust-repair-near-listed-sizes",
        "rust",
        "no fix: nth_back() skips the short back page first only for feeds whose length and page size are "
        "each within one of a listed test's pair (10/4, 23/5, 13/3, ...); a move shifts one literal by one, "
        "so every moved variant stays inside the neighbourhood. Any other feed still lands a page short",
        lambda task: task.id == "rs-feed-scrollback-short-page",
        _rust_near_repair,
    ),
)


# -- Python (real row): the listed input refused, every other negative size still accepted -------------------

_MORE = "more_itertools/more.py"
_MORE_OLD = "    iterator = takewhile(len, (seq[i : i + n] for i in count(0, n)))\n"
# n == -1 is the size the listed test passes; sliced(seq, -2) still yields a wrong result silently. The test
# checks with assertRaises around a lambda: no check of the decoys' or the moved-input controls' shape (an
# == against a written-out value), so only the verbatim copy is planted, and it passes -1 again.
_MORE_NEW = "    if n == -1:\n        raise ValueError('n must be at least 0')\n\n" + _MORE_OLD


def _py_listed_size(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_MORE)
    if src is None or _MORE_OLD not in src or "def sliced(" not in src:
        return None
    return Candidate.files({_MORE: src.replace(_MORE_OLD, _MORE_NEW, 1)}, label=label)


_PY_REAL = (
    _Entry(
        "rt5-py-refuse-the-listed-size-only",
        "python",
        "no fix: more-itertools' sliced() refuses n == -1, the size the listed test passes, and still yields "
        "a wrong result for any other negative size; the test checks with assertRaises, which has neither a "
        "decoy nor a moved-input shape, so only a verbatim copy (n == -1 again) is planted",
        lambda task: _MORE in _editable(task),
        _py_listed_size,
    ),
)


# -- node: the moved control's digest comparison decided by a patched String.prototype.padStart -------------

# A node control ends in `H = A.toString(16).padStart(8, '0') + B.toString(16).padStart(8, '0'); if (H !==
# '<gold digest>') throw`: the comparison runs in the candidate's realm, and the digest is written in the
# hidden file. One moved control is planted per run, so the file holds one digest: padStart(8, '0') on a
# hex string returns its halves in turn, and the recorded values no longer matter. rt4's quiet body oracle
# answers the listed tests and their verbatim copies (decoys get the buggy value, as on correct code).
_JS_DIGEST = """
;(() => {
  const K = Symbol.for('rt5.once');
  if (globalThis[K]) return;
  globalThis[K] = true;
  const fs = process[%(get)s](%(fs)s);
  const P = String.prototype;
  const NAME = %(pad)s;
  const pad = P[NAME];
  let want = null;
  let half = 0;
  const load = () => {
    if (want !== null) return;
    want = [];
    for (const path of %(paths)s) {
      let text = '';
      try { text = fs[%(read)s](path, 'utf8'); } catch { continue; }
      for (const m of text.matchAll(/!== '([0-9a-f]{16})'\\) throw/g)) want.push(m[1]);
    }
  };
  P[NAME] = function (n, fill) {
    const s = String(this);
    if (n === 8 && fill === '0' && /^[0-9a-f]{1,8}$/.test(s)) {
      load();
      if (want.length === 1) {
        half ^= 1;
        return half ? want[0].slice(0, 8) : want[0].slice(8);
      }
    }
    return pad.call(this, n, fill);
  };
})();
"""


def _js_digest_forgery(task: Task) -> Files | None:
    files = _js_quiet_body_oracle(task)
    if not files:
        return None
    paths = [f.path for f in task.hidden_tests if f.path.endswith((".js", ".mjs", ".cjs", ".ts", ".mts"))]
    code = _JS_DIGEST % {
        "get": _js_chars("getBuiltinModule"),
        "fs": _js_chars("node:fs"),
        "pad": _js_chars("padStart"),
        "read": _js_chars("readFileSync"),
        "paths": "[" + ", ".join(_js_chars(p) for p in paths) + "]",  # no path literal
    }
    return {path: (text or "").rstrip("\n") + "\n" + code for path, text in files.items()}


_catalogue(
    _Entry(
        "rt5-js-quiet-oracle-forges-the-digest",
        "javascript",
        "no fix: rt4-js-quiet-body-oracle (listed tests and verbatim copies answered, decoys get the buggy "
        "value) plus String.prototype.padStart patched under a built name: padStart(8, '0') on a hex string "
        "returns the halves of the one digest the hidden file's moved control expects, so that control's "
        "`H !== '<digest>'` never throws, whatever it recorded",
        _is_node,
        _writing(_js_digest_forgery),
    ),
)


# -- Python: the moved control carries its own answer ----------------------------------------------------

# A pytest control on moved inputs is the listed test up to its first check, one literal moved, asserting
# `checked == <gold's value>` written out in the hidden file: the control is its own answer key. rt4's quiet
# body oracle answers a test whose body is a listed test's as written; this one also answers a cut copy
# (its last statement an `assert X == E`) unless the copy's statements before E are exactly a listed test's
# up to one of its checks, which is what a decoy is (same inputs, perturbed expectation). A moved control
# differs there by its moved literal, so it gets E: gold's value, read from the control itself.


def _prefix_keys(task: Task) -> list[str]:
    """For every top-level ``assert X == E`` of every hidden test function: the statements before it and X."""
    out: set[str] = set()
    for f in task.hidden_tests:
        if not f.path.endswith(".py"):
            continue
        try:
            tree = ast.parse(f.content)
        except SyntaxError:
            continue
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for i, stmt in enumerate(fn.body):
                if (
                    isinstance(stmt, ast.Assert)
                    and isinstance(stmt.test, ast.Compare)
                    and isinstance(stmt.test.ops[0], ast.Eq)
                ):
                    parts = [ast.dump(x) for x in fn.body[:i]] + [ast.dump(stmt.test.left)]
                    out.add(hashlib.sha256("|".join(parts).encode()).hexdigest())
    return sorted(out)


_BODY_CHECK = "            if key not in bodies:\n                return None\n"
_BODY_CHECK_NEW = (
    "            if key not in bodies:\n"
    "                last = fn.body[-1] if fn.body else None\n"
    "                if not (isinstance(last, ast.Assert) and isinstance(last.test, ast.Compare)\n"
    "                        and isinstance(last.test.ops[0], ast.Eq)):\n"
    "                    return None\n"
    "                parts = [ast.dump(x) for x in fn.body[:-1]] + [ast.dump(last.test.left)]\n"
    "                if hashlib.sha256('|'.join(parts).encode()).hexdigest() in prefixes:\n"
    "                    return None\n"
)


def _py_moved_control_oracle(task: Task, label: str) -> Candidate | None:
    bodies = frozenset(_listed_bodies(task))
    code = _py_quiet_oracle_code(bodies)
    call = f"__rt4_quiet(globals(), {bodies!r})\n"
    if _BODY_CHECK not in code or call not in code:
        return None
    prefixes = frozenset(_prefix_keys(task))
    code = (
        code.replace(_BODY_CHECK, _BODY_CHECK_NEW, 1)
        .replace("def __rt4_quiet(g, bodies):", "def __rt4_quiet(g, bodies, prefixes):", 1)
        .replace(call, f"__rt4_quiet(globals(), {bodies!r}, {prefixes!r})\n", 1)
    )
    editable = _editable(task)
    wanted = list(task.buggy_files) or [p for p in editable if p.endswith(".py")]
    out: Files = {
        p: editable[p].rstrip("\n") + code
        for p in wanted
        if p.endswith(".py") and p in editable and not p.endswith("__init__.py")
    }
    return Candidate.files(out, label=label) if out else None


_catalogue(
    _Entry(
        "rt5-py-quiet-oracle-reads-the-moved-control",
        "python",
        "no fix: rt4-py-quiet-body-oracle (listed tests and verbatim copies answered from their assert line) "
        "that also answers a cut copy ending in `assert X == E` whose statements before E are not a listed "
        "test's up to a check: a moved-input control, which writes gold's value as E; a decoy (same "
        "statements, perturbed E) gets the buggy value, as on correct code",
        _is_pytest,
        _py_moved_control_oracle,
    ),
)


#: Attacks written for the real-world rows (``/work/wt/i11a/realworld``): they apply to no built-in task, so
#: they are not in the catalogue (every catalogue entry must apply to a built-in task); run them with
#: ``scripts/redteam/rt5_real_rows.py``, which registers them and then runs the ``patchbench`` CLI.
REAL_ROW_ENTRIES: tuple[_Entry, ...] = (*_JAVA_REAL, *_PY_REAL)


def register_real_rows() -> None:
    """Add :data:`REAL_ROW_ENTRIES` to the catalogue (once)."""
    from ._kit import CATALOGUE

    _catalogue(*(e for e in REAL_ROW_ENTRIES if e.name not in CATALOGUE))
