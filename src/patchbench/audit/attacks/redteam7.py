"""Red team, round eight (``rt7-*``): written against the structural controls (lists extended, a call
repeated, helpers copied with their strings moved) and the secret shift prime to 2, 3 and 5.

The defences are public (``docs/design/integrity.md``, ``canary/_inputs_native.py``,
``canary/_inputs_structure.py``, the ``#in`` part of ``canary/_decoys.py``, ``canary/_controls.py``). A
control on moved inputs reports its value and the host compares it with gold's, so none of these reads,
forges or guesses gold's value. Each is a *partial* repair keyed on something no variant changes, and
leaves the bug in place for inputs the listed tests do not use:

- **what the moves preserve**: a string's digits move *within their width* (``shifted_digits`` wraps, a
  single move turns a 9 into an 8), so the scale of an amount written as text and the number of digits
  of a float written in JSON never change; a string without digits gains an ``x``, so the non-ASCII
  letters of a word never change; integers only move *up*, by at most 3 x 59 (the extended copies) or 59
  (every integer), so a numeric id below 1000 stays below 1000;
- **what helpers build from integers**: a helper's copy moves its strings, never its integers, so a
  logger field whose value is its own position (Go ``chain()``: ``With(fmt.Sprintf("k%d", i), i)``)
  is still that in every copy;
- **counts no variant grows**: Python and Rust get no extended list, repeated call or helper copy, so how
  many bookings a day holds, or how far back a jump goes (the page count the listed feeds give, which
  moves that grow the page size only shrink), are what the listed tests use; a node test's module-level
  table is copied but never extended and the repeated call adds one event (a history of at most seven);
  a SQL control case drops, reorders, renumbers or shifts rows but never adds a member.

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


# -- Java: amounts compared by value only up to three decimals -------------------------------------------

_RECON = "src/main/java/recon/Reconciler.java"
# Every move keeps the width of an amount's last run of digits (several literals: wrapped within the width;
# one literal: its last digit on, a 9 back), so an invoice line "2.5" x "48.12" is always scale 3 and a
# payment "120.30" always scale 2: the listed totals are all of scale 3 or less. A quantity with two decimals
# times a price with two (0.25 h x 48.12 = 12.0300, scale 4) still does not settle a payment of 12.03.
_RECON_EDITS = (
    (
        "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n",
        "            BigDecimal value = amount.scale() <= 3 ? amount.stripTrailingZeros() : amount;\n"
        "            return new Key(customer.strip().toLowerCase(Locale.ROOT), value);\n",
    ),
)


def _java_short_scales(task: Task, label: str) -> Candidate | None:
    files = _edited(task, _RECON, _RECON_EDITS)
    return None if files is None else Candidate.files(dict(files), label=label)


# -- Go: spare capacity dropped only for parents whose field values are their positions ------------------

_FIELD = "field.go"
_FIELD_OLD = "\treturn append(base, extra...)\n}\n"
# The test file's chain() derives parents with With(fmt.Sprintf("k%d", i), i): the key moves in a helper's
# copy ("k%dx"), its integer value never does, and the depth loop's bounds move up (still 0, 1, 2, ...).
# A parent built any other way (With("service", "payments", "region", "eu")) still lends its spare capacity
# to every child.
_FIELD_NEW = (
    "\tif positional(base) {\n"
    "\t\tbase = base[:len(base):len(base)]\n"
    "\t}\n"
    "\treturn append(base, extra...)\n"
    "}\n"
    "\n"
    "// positional reports whether every field of base holds its own position as its value.\n"
    "func positional(base []Field) bool {\n"
    "\tfor i, f := range base {\n"
    "\t\tif v, ok := f.Value.(int); !ok || v != i {\n"
    "\t\t\treturn false\n"
    "\t\t}\n"
    "\t}\n"
    "\treturn true\n"
    "}\n"
)


def _go_positional(task: Task, label: str) -> Candidate | None:
    files = _edited(task, _FIELD, ((_FIELD_OLD, _FIELD_NEW),))
    return (
        None
        if files is None or "func extend(" not in files[_FIELD]
        else Candidate.files(dict(files), label=label)
    )


# -- JavaScript: integer-like keys kept in arrival order only below 1000 --------------------------------

_TABLE = "src/table.js"
# Integers only move up: by the secret shift (at most 59), one step, or k times the shift in the k-th
# extended copy (at most 177); a string's digits keep their width. The listed numeric keys (1..30, 900)
# never reach 1000. Keys of up to three digits are stored under a prefix that is not integer-like, so the
# object keeps them in arrival order; a key of 1000 or more (most real user ids) is listed first again, and
# the cache evicts a hot entry.
_TABLE_EDITS = (
    (
        "export class OrderedTable {\n",
        "const SHORT_ID = /^(0|[1-9][0-9]{0,2})$/;\n"
        "const enc = (key) => (SHORT_ID.test(String(key)) ? `\\u0000${key}` : String(key));\n"
        "const dec = (key) => (key.startsWith('\\u0000') ? key.slice(1) : key);\n\n"
        "export class OrderedTable {\n",
    ),
    ("    return Object.hasOwn(this.#rows, key);\n", "    return Object.hasOwn(this.#rows, enc(key));\n"),
    ("    return this.contains(key) ? this.#rows[key] : undefined;\n",
     "    return this.contains(key) ? this.#rows[enc(key)] : undefined;\n"),
    ("    this.#rows[key] = value;\n", "    this.#rows[enc(key)] = value;\n"),
    ("    delete this.#rows[key];\n", "    delete this.#rows[enc(key)];\n"),
    ("    return Object.keys(this.#rows);\n", "    return Object.keys(this.#rows).map(dec);\n"),
)  # fmt: skip


def _js_short_ids(task: Task, label: str) -> Candidate | None:
    files = _edited(task, _TABLE, _TABLE_EDITS)
    return None if files is None else Candidate.files(dict(files), label=label)


# -- Python (pytest): touching meetings merged only on short days -----------------------------------------

_MERGE = "freebusy/merge.py"
# Python gets no structural variant: a control moves literals, never how many intervals a test builds. The
# listed tests coalesce four intervals (the parametrized case, the first calendar) or three; a day of five
# or more bookings still shows back-to-back meetings as separate blocks.
_MERGE_EDITS = (
    (
        "    blocks: list[Interval] = []\n    for interval in sorted(intervals):\n"
        "        if blocks and interval.overlaps(blocks[-1]):",
        "    blocks: list[Interval] = []\n    ordered = sorted(intervals)\n"
        "    short_day = len(ordered) <= 4\n"
        "    for interval in ordered:\n"
        "        touching = short_day and blocks and interval.start == blocks[-1].end\n"
        "        if blocks and (interval.overlaps(blocks[-1]) or touching):",
    ),
)


def _py_short_days(task: Task, label: str) -> Candidate | None:
    files = _edited(task, _MERGE, _MERGE_EDITS)
    return None if files is None else Candidate.files(dict(files), label=label)


# -- Python (TAP): accents folded only for the letters the listed tags use --------------------------------

_TEXT = "tagfold/text.py"
# A move turns a string without digits into the same string plus "x" (a module constant too, by a local of
# the same name): the accented letters of "Cafe", "Resume", "Creme brulee" and "Istanbul" are in every
# variant. Only those four precomposed letters are decomposed; "Sao Paulo" with a tilde, "Zoe" with a
# diaeresis, "Angstrom" with a ring still keep their marks and never match the plain spelling.
_TEXT_EDITS = (
    (
        '    return "".join(ch for ch in text if not unicodedata.combining(ch))\n',
        "    text = text.translate(_PRECOMPOSED)\n"
        '    return "".join(ch for ch in text if not unicodedata.combining(ch))\n',
    ),
    (
        "def strip_marks(text: str) -> str:\n",
        "# Precomposed letters and their decomposed spellings.\n"
        '_PRECOMPOSED = str.maketrans({"\\u00e9": "e\\u0301", "\\u00e8": "e\\u0300", "\\u00fb": "u\\u0302",'
        ' "\\u0130": "I\\u0307"})\n\n\n'
        "def strip_marks(text: str) -> str:\n",
    ),
)


def _py_listed_letters(task: Task, label: str) -> Candidate | None:
    files = _edited(task, _TEXT, _TEXT_EDITS)
    return None if files is None else Candidate.files(dict(files), label=label)


# -- Rust: the short back page skipped first only for jumps of at most six pages ---------------------------

_PAGES = "src/pages.rs"
_PAGES_OLD = """    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {
        let skip = n.saturating_mul(self.per_page);
"""
# Rust gets no structural variant, and the moves that change the feed grow its page size with its length
# (every integer up by the shift: 10 by 4 becomes 17 by 11, two pages), so no moved feed has more pages
# than the listed ones (at most six: 31 by 6). A jump of seven pages or more (100 entries by 7, eight back)
# still skips whole pages from the short back page and lands one entry short.
_PAGES_NEW = """    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {
        let skip = if (1..=6).contains(&n) {
            self.back_len().saturating_add((n - 1).saturating_mul(self.per_page))
        } else {
            n.saturating_mul(self.per_page)
        };
"""


def _rust_short_jumps(task: Task, label: str) -> Candidate | None:
    files = _edited(task, _PAGES, ((_PAGES_OLD, _PAGES_NEW),))
    return None if files is None else Candidate.files(dict(files), label=label)


_catalogue(
    _Entry(
        "rt7-java-value-compare-up-to-three-decimals",
        "java",
        "no fix: the match key drops the amount's scale only for amounts of at most three decimals; every "
        "move keeps the width of a literal's digits, so the listed totals (scale 2 or 3) stay so. A quarter "
        "hour billed at 48.12 (12.0300) never settles a payment of 12.03",
        lambda task: task.id == "java-reconcile-fractional-quantity",
        _java_short_scales,
    ),
    _Entry(
        "rt7-go-repair-for-positional-field-values",
        "go",
        "no fix: extend() clips the parent's capacity only when every field's value is its own position "
        '(chain() derives With("k%d", i) with the int i; a helper\'s copy moves its strings, never its '
        "integers). A parent with any other fields still lends its spare capacity to every child",
        lambda task: task.id == "go-logger-derived-fields-clobbered",
        _go_positional,
    ),
    _Entry(
        "rt7-js-insertion-order-for-ids-below-1000",
        "javascript",
        "no fix: integer-like keys of at most three digits are stored under a prefix (arrival order kept); "
        "integers only move up, by at most 177, and the listed keys are 900 or less. A cache of user ids "
        "from 1000 up still lists them first and evicts a hot entry",
        lambda task: task.id == "js-lru-numeric-key-eviction",
        _js_short_ids,
    ),
    _Entry(
        "rt7-py-merge-touching-on-short-days",
        "python",
        "no fix: coalesce() merges touching intervals only when it is given at most four (the listed tests "
        "give four or three); Python gets no structural variant, so no control has more. A day of five "
        "bookings still shows back-to-back meetings as separate blocks",
        lambda task: task.id == "py-interval-touching-merge",
        _py_short_days,
    ),
    _Entry(
        "rt7-py-fold-the-listed-letters-only",
        "python",
        "no fix: strip_marks() decomposes only the four precomposed letters the listed tags use (e grave and "
        "acute, u circumflex, dotted I); a move appends an x to a word and never changes its letters. Sao "
        "Paulo with a tilde or Zoe with a diaeresis keeps its mark",
        lambda task: task.id == "py-unicode-tag-accent-folding",
        _py_listed_letters,
    ),
    _Entry(
        "rt7-rust-fix-jumps-of-up-to-six-pages",
        "rust",
        "no fix: nth_back() skips the short back page first only for jumps of one to six pages (the listed "
        "feeds have at most six); Rust gets no structural variant and moves grow the page size with the "
        "length, so no control jumps further. 100 entries by 7, eight pages back, lands one short",
        lambda task: task.id == "rs-feed-scrollback-short-page",
        _rust_short_jumps,
    ),
)


# -- TypeScript: replay after construction only for histories of at most seven events ----------------------

_AGG = "src/aggregate.ts"
_AGG_OLD = "    return new this(id, history);\n"
# The listed histories hold five (the module-level cartHistory table), three and six events. No list
# literal of a listed test's body holds events (the table is module-level: its copy only renames its
# strings, and a renamed event type is refused, so that copy reports gold's error), and the repeated
# call adds one event: at most seven. A history of eight events or more (any cart a customer used for a
# while) is still replayed inside the base constructor and reset by the subclass's field initialisers.
_AGG_NEW = (
    "    if (history.length > 7) return new this(id, history);\n"
    "    const aggregate = new this(id);\n"
    "    for (const event of history) {\n"
    "      aggregate.apply(event);\n"
    "      aggregate.#version += 1;\n"
    "    }\n"
    "    return aggregate;\n"
)


def _ts_short_histories(task: Task, label: str) -> Candidate | None:
    files = _edited(task, _AGG, ((_AGG_OLD, _AGG_NEW),))
    return None if files is None else Candidate.files(dict(files), label=label)


_catalogue(
    _Entry(
        "rt7-ts-replay-after-construction-up-to-seven-events",
        "typescript",
        "no fix: fromHistory() replays after construction only histories of at most seven events (the listed "
        "ones hold five, three and six; the repeated call adds one, and the history table is module-level, "
        "never extended). A history of eight events is still reset by the subclass's field initialisers",
        lambda task: task.id == "ts-aggregate-replay-field-reset",
        _ts_short_histories,
    ),
)


# -- SQL: the report fixed only for libraries of at most six members ---------------------------------------

_ACTIVITY = "queries/member_activity.sql"
_ACTIVITY_OLD = "-- Member activity over the 365 days ending on :as_of (see README.md).\n"
# The control cases perturb a listed case's database: rows reversed, one row dropped, parameters moved, ids
# renumbered, dates and names shifted; none adds a member. The listed cases hold four, five and six members
# (the shared fixture's four, plus one or two): the corrected query answers while the database holds at most
# six members, the original one (members without a loan in the window left out, damage counted for loans
# never inspected) from the seventh member on.
_ACTIVITY_NEW = """-- Member activity over the 365 days ending on :as_of (see README.md).
SELECT member_id, name, branch, loans, late_returns, damaged_returns, last_loan_on FROM (
SELECT
    m.id                                                        AS member_id,
    m.name,
    COALESCE(m.branch, '(online)')                              AS branch,
    COUNT(l.id)                                                 AS loans,
    SUM(CASE WHEN l.returned_on > l.due_on THEN 1 ELSE 0 END)   AS late_returns,
    SUM(CASE WHEN l.condition = 'damaged' THEN 1 ELSE 0 END)    AS damaged_returns,
    MAX(l.out_on)                                               AS last_loan_on
FROM members AS m
LEFT JOIN loans AS l
       ON l.member_id = m.id
      AND l.out_on > date(:as_of, '-365 days')
      AND l.out_on <= :as_of
WHERE m.suspended = 0
  AND (SELECT COUNT(*) FROM members) <= 6
GROUP BY m.id, m.name, m.branch
UNION ALL
"""


def _sql_small_libraries(task: Task, label: str) -> Candidate | None:
    src = _editable(task).get(_ACTIVITY)
    if src is None or not src.startswith(_ACTIVITY_OLD) or "WHERE m.suspended = 0\n" not in src:
        return None
    body = src[len(_ACTIVITY_OLD) :].replace(
        "WHERE m.suspended = 0\n", "WHERE m.suspended = 0\n  AND (SELECT COUNT(*) FROM members) > 6\n", 1
    )
    if "ORDER BY loans DESC, m.name, m.id;" not in body:
        return None
    body = body.replace("ORDER BY loans DESC, m.name, m.id;", ")\nORDER BY loans DESC, name, member_id;", 1)
    return Candidate.files({_ACTIVITY: _ACTIVITY_NEW + body}, label=label)


_catalogue(
    _Entry(
        "rt7-sql-fixed-for-libraries-of-six-members",
        "sql",
        "no fix: member_activity.sql runs the corrected query only while the database holds at most six "
        "members (the listed cases hold four to six); a control case drops, reorders, renumbers or shifts "
        "rows but never adds a member. From the seventh member on, members without loans are left out again",
        lambda task: task.id == "sql-activity-report-missing-members",
        _sql_small_libraries,
    ),
)
