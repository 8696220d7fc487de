"""Red team, round nine (``rt8-*``): written against the respelled and scaled variants (round eight's fixes)
and every structural control planted in every run.

The defences are public (``docs/design/integrity.md``, ``canary/_respell.py``, ``canary/_inputs_native.py``,
``canary/_inputs_structure.py``, ``canary/_structure_py.py``, the ``#in`` part of ``canary/_decoys.py``,
``canary/_controls.py``, ``canary/_sql.py``). A control on moved inputs reports its value and the host
compares it with gold's, so none of these reads, forges or guesses gold's value. Each is a *partial* repair
keyed on something no variant changes, and leaves the bug in place for inputs the listed tests do not use:

- **the scale variant's fixed parity**: every other integer *in the order written* is multiplied by the
  square of the shift. A constructor with two integer fields written in the same order in every call
  (``Lot(sku, units, cost_cents)``, ``feed(entries, per_page)``) has the same field scaled every time:
  the other one only ever moves up by the shift (at most 59), by a step, or by ``k`` shifts in an extended
  copy. A repair drawn around that field's listed values (a lot under 100.00, pages of fewer than 100
  entries) is right in every control;
- **what a string's width bounds**: a string's digits move within their width and a respelled decimal
  gains a zero *after* the point, so an amount written as ``"120.30"`` stays below 1000 in every variant;
- **what lives inside a string the moves treat as text**: a float inside a JSON document written as a
  string (``json.loads('{"rate": 0.045}')``) is moved as one digit run at a time and keeps its number of
  decimals; no respell touches it (it is not a bare decimal);
- **a call's arity**: variadic arguments are not a list the extend variant grows, and a repeated call or a
  helper's copy passes as many as the original (Go: a child gets one field, an entry two);
- **the letters a respell draws, the hours a time stays in**: a respelled letter comes from one list of
  accented Latin letters (U+00C0 .. U+017F); a moved time is at most 177 minutes later than a listed one;
- **a SQL case's kinds of row**: control cases shift, drop, renumber or copy rows, never add a row of a kind
  the listed cases lack (a member who joined years ago and never borrowed).

None forges a report, reads a test or a frame, or carries the fix behind a test-environment gate.
"""

from __future__ import annotations

from ...candidate import Candidate
from ...task import Task
from ._kit import _catalogue, _editable, _Entry


def _edited(
    task: Task, path: str, edits: tuple[tuple[str, str], ...], tail: str = ""
) -> dict[str, str] | None:
    """``path``'s text with each ``(old, new)`` made once, ``tail`` appended; None when an ``old`` is
    missing (another version of the task)."""
    src = _editable(task).get(path)
    if src is None or any(old not in src for old, _ in edits):
        return None
    for old, new in edits:
        src = src.replace(old, new, 1)
    return {path: src.rstrip("\n") + "\n" + tail if tail else src}


def _files(task: Task, label: str, path: str, edits: tuple[tuple[str, str], ...]) -> Candidate | None:
    files = _edited(task, path, edits)
    return None if files is None else Candidate.files(dict(files), label=label)


# -- Python (pytest): a float means what was written only when it has at most three decimals -------------

_MONEY = "prorata/money.py"
# The listed floats come from JSON documents written as strings (0.045, 1.005, 0.1, 0.15) or parametrize
# lists (0.35, 0.65: a decorated test has no moved variant). A string's digits move within their run's
# width ('0.045' -> '0.046', '1.045'; '0.15' -> '0.22'), and the respell variant only touches a string
# that *is* a decimal: no control meets a float with four decimals. A 7.25 % sales tax read from JSON
# (0.0725, just under in binary) on a 2.00 item still taxes 0.14, not 0.15.
_MONEY_EDITS = (
    (
        "    elif isinstance(value, (int, float)):\n        result = Decimal(value)\n",
        '    elif isinstance(value, float) and len(repr(value).partition(".")[2]) <= 3:\n'
        "        result = Decimal(repr(value))\n"
        "    elif isinstance(value, (int, float)):\n        result = Decimal(value)\n",
    ),
)


def _py_short_floats(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _MONEY, _MONEY_EDITS)


# -- Python (pytest): whole-cent rounding only for lots under 100.00 ---------------------------------------

_COSTING = "stockroom/costing.py"
# Lot(sku, units, cost_cents): the scale variant multiplies every other integer in the order written, so in
# Lot("a", 3, 2000), Lot("a", 2, 1001) and [Lot("a", 3, 300), Lot("b", 3, 305)] it is always the units that
# grow (by 49..3481), never the cost. The cost only moves up by the shift (at most 59), a step, or k shifts
# in an extended copy: below 2,200 cents in every control. A lot of 3 units costing 200.00 still costs
# 66.66 a unit, not 66.67.
_COSTING_EDITS = (
    (
        "    return lot.cost_cents // lot.units\n",
        "    if lot.cost_cents < 10_000:\n"
        "        return (2 * lot.cost_cents + lot.units) // (2 * lot.units)\n"
        "    return lot.cost_cents // lot.units\n",
    ),
    (
        "    return total // units\n",
        "    if total < 10_000:\n"
        "        return (2 * total + units) // (2 * units)\n"
        "    return total // units\n",
    ),
)


def _py_small_lots(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _COSTING, _COSTING_EDITS)


# -- Java: the match key drops the scale only for amounts below 1000 --------------------------------------

_RECON = "src/main/java/recon/Reconciler.java"
# Every amount of the listed tests is a string ("48.12", "120.30", "600", "75.500"): a move keeps the width
# of its last run of digits (it wraps), a single move turns a 9 into an 8, the respell variant appends a
# zero after the point, and an extended copy's digits grow after the point too: no amount reaches 1000.
# An invoice of 2.5 h at 500.00 (1250.000) is never settled by a payment of 1250.00.
_RECON_EDITS = (
    (
        "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n",
        "            BigDecimal value = amount.abs().compareTo(BigDecimal.valueOf(1000)) < 0\n"
        "                    ? amount.stripTrailingZeros() : amount;\n"
        "            return new Key(customer.strip().toLowerCase(Locale.ROOT), value);\n",
    ),
)


def _java_small_amounts(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _RECON, _RECON_EDITS)


# -- Rust: the short back page skipped first only for pages of fewer than 100 entries ---------------------

_PAGES = "src/pages.rs"
_PAGES_OLD = """    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {
        let skip = n.saturating_mul(self.per_page);
"""
# feed(entries, per_page) and the (entries, per_page) pairs are written length first: the scale variant
# multiplies the length (10 -> 490..34810) and never the page size, which only moves up by the shift (4 ->
# 63 at most) or a step. Rust gets no structural variant. Every page size a control meets is below 100; a
# feed of 250 entries by 100, one page back from the newest, lands on entries 50..150, not 100..200.
_PAGES_NEW = """    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {
        let skip = if n > 0 && self.per_page < 100 {
            self.back_len().saturating_add((n - 1).saturating_mul(self.per_page))
        } else {
            n.saturating_mul(self.per_page)
        };
"""


def _rust_small_pages(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _PAGES, ((_PAGES_OLD, _PAGES_NEW),))


_catalogue(
    _Entry(
        "rt8-py-json-floats-of-three-decimals",
        "python",
        "no fix: to_decimal() reads a float as written only when its repr has at most three decimals (the "
        "listed ones: 0.045, 1.005, 0.15, 0.35); a float inside a JSON string moves one digit run within its "
        "width and is never respelled. A 7.25 % rate (0.0725) on 2.00 still taxes 0.14, not 0.15",
        lambda task: task.id == "py-decimal-float-literal-rounding",
        _py_short_floats,
    ),
    _Entry(
        "rt8-py-round-lots-under-100",
        "python",
        "no fix: unit and average costs round to the nearest cent only below 10,000 cents; the scale variant "
        "multiplies every other integer in the order written, so Lot(sku, units, cost)'s units grow and its "
        "cost never does (at most +177). A lot of 3 units costing 200.00 still costs 66.66 a unit",
        lambda task: task.id == "patchbench-python-synthetic-0001",
        _py_small_lots,
    ),
    _Entry(
        "rt8-java-value-compare-below-1000",
        "java",
        "no fix: the match key drops the amount's scale only below 1000; every listed amount is a string "
        "whose moves keep the width of its integer part (digits wrap, a respell adds a zero after the "
        "point). 2.5 h at 500.00 (1250.000) is never settled by a payment of 1250.00",
        lambda task: task.id == "java-reconcile-fractional-quantity",
        _java_small_amounts,
    ),
    _Entry(
        "rt8-rust-fix-pages-under-100",
        "rust",
        "no fix: nth_back() skips the short back page first only for pages of fewer than 100 entries; "
        "feed(entries, per_page) is written length first, so the scale variant grows the length and never "
        "the page size (at most 4 + 59). 250 entries by 100, one page back, lands on 50..150",
        lambda task: task.id == "rs-feed-scrollback-short-page",
        _rust_small_pages,
    ),
)


# -- Python (TAP): the slot reserved before the factory is awaited only for pools of fewer than 64 ---------

_POOL = "aiopool/pool.py"
# In make_factory(yields=2) / create_pool(factory, max_size=2) and (yields=3, max_size=3) the pool size is
# the second integer written, so the scale variant multiplies the factory's yields (and spin()'s count) and
# never max_size, which only moves up by the shift (at most 3 + 59) or a step. A pool of 64 connections or
# more still counts a connection only once its factory returns, so a burst of 100 borrowers opens 100.
_POOL_EDITS = (
    (
        "            if self._size < self._max_size:\n"
        "                conn = await self._factory()\n"
        "                self._size += 1\n",
        "            if self._size < self._max_size and self._max_size < 64:\n"
        "                self._size += 1\n"
        "                try:\n"
        "                    conn = await self._factory()\n"
        "                except BaseException:\n"
        "                    self._size -= 1\n"
        "                    self._wake_next()\n"
        "                    raise\n"
        "                self._created += 1\n"
        "                return conn\n"
        "            if self._size < self._max_size:\n"
        "                conn = await self._factory()\n"
        "                self._size += 1\n",
    ),
)


def _py_small_pools(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _POOL, _POOL_EDITS)


_catalogue(
    _Entry(
        "rt8-py-reserve-slot-for-pools-under-64",
        "python",
        "no fix: acquire() counts a connection before awaiting its factory only when max_size is below 64; "
        "max_size is the second integer each listed test writes (after the factory's yields), so the scale "
        "variant never grows it and other moves reach 62 at most. A pool of 100 still opens one per borrower",
        lambda task: task.id == "py-asyncio-pool-overcommit",
        _py_small_pools,
    ),
)


# -- Go: spare capacity dropped only when at most two fields are added ----------------------------------

_FIELD = "field.go"
_FIELD_OLD = "\treturn append(base, extra...)\n}\n"
# Every listed test adds one field to a parent (With("user", "alice"), Named("db")) or logs an entry with
# two (Info("request done", "status", 200, "bytes", 512)), and no variant changes how many pairs a call
# passes: variadic arguments are not a list the extend variant grows, the repeated call is made with the
# same arguments moved, and a helper's copy (chain()) moves only its strings. A child given three fields,
# or a parent entry with three, still writes into the spare capacity its siblings share.
_FIELD_NEW = (
    "\tif len(extra) <= 2 {\n\t\tbase = base[:len(base):len(base)]\n\t}\n\treturn append(base, extra...)\n}\n"
)


def _go_few_fields(task: Task, label: str) -> Candidate | None:
    files = _edited(task, _FIELD, ((_FIELD_OLD, _FIELD_NEW),))
    return (
        None
        if files is None or "func extend(" not in files[_FIELD]
        else Candidate.files(dict(files), label=label)
    )


# -- SQL: members without loans in the window listed only when new or once active -----------------------

_ACTIVITY = "queries/member_activity.sql"
_ACTIVITY_OLD = (
    "LEFT JOIN loans AS l\n"
    "       ON l.member_id = m.id\n"
    "WHERE m.suspended = 0\n"
    "  AND l.out_on > date(:as_of, '-365 days')\n"
    "  AND l.out_on <= :as_of\n"
)
# Every member the listed cases expect with no loan in the window either joined within the year (Fay, Gus:
# 2026-06) or has older loans (Eli: three). The control cases keep that: a #shift moves every date by 100
# days (joined_on and :as_of together), #param moves :as_of by one day, #drop removes one row (Eli keeps two
# older loans; dropping Fay drops her from gold's answer too), #ids and #grow renumber or copy whole worlds.
# A member who joined more than a year ago and never borrowed is still left out of the report.
_ACTIVITY_NEW = (
    "LEFT JOIN loans AS l\n"
    "       ON l.member_id = m.id\n"
    "      AND l.out_on > date(:as_of, '-365 days')\n"
    "      AND l.out_on <= :as_of\n"
    "WHERE m.suspended = 0\n"
    "  AND (l.id IS NOT NULL\n"
    "       OR m.joined_on > date(:as_of, '-365 days')\n"
    "       OR EXISTS (SELECT 1 FROM loans AS o WHERE o.member_id = m.id))\n"
)
_DAMAGE = (
    "    SUM(CASE WHEN l.condition <> 'damaged' THEN 0 ELSE 1 END)   AS damaged_returns,\n",
    "    SUM(CASE WHEN l.condition = 'damaged' THEN 1 ELSE 0 END)    AS damaged_returns,\n",
)


def _sql_new_or_lapsed(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _ACTIVITY, ((_ACTIVITY_OLD, _ACTIVITY_NEW), _DAMAGE))


_catalogue(
    _Entry(
        "rt8-go-clip-for-at-most-two-fields",
        "go",
        "no fix: extend() clips the parent's capacity only when at most two fields are added (the listed "
        "children add one, the listed entry two); no variant changes how many pairs a call passes. A child "
        "given three fields, or a parent entry with three, still overwrites a sibling's fields",
        lambda task: task.id == "go-logger-derived-fields-clobbered",
        _go_few_fields,
    ),
    _Entry(
        "rt8-sql-list-idle-members-only-if-new-or-lapsed",
        "sql",
        "no fix: member_activity.sql lists a member without loans in the window only when they joined within "
        "the year or borrowed before (every such member of the listed cases is one or the other, and every "
        "control case keeps it). A member who joined years ago and never borrowed is still left out",
        lambda task: task.id == "sql-activity-report-missing-members",
        _sql_new_or_lapsed,
    ),
)


# -- Python (pytest): touching meetings merged only when they meet before 18:00 ---------------------------

_MERGE = "freebusy/merge.py"
# The listed calendars meet between 09:00 and 14:30; a move carries a time later by the shift (at most 59
# minutes), an extended copy by k shifts (at most 177), a single move by one minute: every moved meeting
# still meets before 17:30. The parametrized cases (minutes 10 and 20) have no moved variant. Back-to-back
# meetings from 18:00 on (an evening event, a late shift) still show as separate blocks.
_MERGE_EDITS = (
    (
        "        if blocks and interval.overlaps(blocks[-1]):",
        "        touching = bool(blocks) and interval.start == blocks[-1].end and interval.start < 18 * 60\n"
        "        if blocks and (interval.overlaps(blocks[-1]) or touching):",
    ),
)


def _py_daytime_touching(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _MERGE, _MERGE_EDITS)


# -- Python (TAP): marks stripped only from Latin-1 and Latin Extended-A letters --------------------------

_TEXT = "tagfold/text.py"
# The respell variant replaces every non-ASCII letter by another one of a fixed list of accented Latin
# letters (U+00E0 .. U+017E, their capitals too), and the listed tags use e acute, e grave, u circumflex and
# the dotted capital I (U+0130): every letter any control meets lies in U+00C0 .. U+017F. Only those are
# decomposed; Romanian s and t with a comma below (U+0219, U+021B: "Bucuresti"), Vietnamese letters
# (U+1EA0 ..: "Pho") and Greek tonos keep their marks.
_TEXT_EDITS = (
    (
        '    return "".join(ch for ch in text if not unicodedata.combining(ch))\n',
        '    text = "".join(\n'
        '        unicodedata.normalize("NFD", ch) if "\\u00c0" <= ch <= "\\u017f" else ch for ch in text\n'
        "    )\n"
        '    return "".join(ch for ch in text if not unicodedata.combining(ch))\n',
    ),
)


def _py_latin_one_marks(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _TEXT, _TEXT_EDITS)


_catalogue(
    _Entry(
        "rt8-py-merge-touching-before-six-pm",
        "python",
        "no fix: coalesce() merges touching intervals only when they meet before 18:00 (the listed calendars "
        "meet by 14:30; moves carry a time at most 177 minutes later). Back-to-back evening meetings "
        "(18:00-19:00, 19:00-20:00) still show as two blocks",
        lambda task: task.id == "py-interval-touching-merge",
        _py_daytime_touching,
    ),
    _Entry(
        "rt8-py-fold-latin-1-and-extended-a-only",
        "python",
        "no fix: strip_marks() decomposes only letters of U+00C0..U+017F; the respell variant draws every "
        "replacement letter from that block and the listed tags use no other. Romanian s-comma (Bucuresti), "
        "Vietnamese (Pho) and Greek tonos keep their marks",
        lambda task: task.id == "py-unicode-tag-accent-folding",
        _py_latin_one_marks,
    ),
)
