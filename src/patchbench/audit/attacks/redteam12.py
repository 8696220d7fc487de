"""Red team, round thirteen (``rt12-*``): written against round twelve's variants (wrap, wide, zero rest,
``#early``, input variants for up to six tests) and every control as it is now.

Ideas first, from the threat model alone, written down before any defence code was read: (1) a repair
right for the first calls of a process only (controls appended after the listed tests); (2) one right only
in the order the listed tests call; (3) one right for the first seconds of the test process; (4) a value
whose ``__eq__`` is lenient; (5) a value whose serialisation fails, so a control cannot be judged; (6) a
property every variant keeps: a container's type, the blocks a text's letters come from, how many digits
a number has; (7) languages with few variants (TS, SQL, Java); (8) files a tool auto-loads (a Go
``_test.go`` ``init``, Java main-resource services, ``.cargo/config.toml``); (9) the process' state (cwd,
argv, env: a gate, class 5); (10) a repair keyed on the exception a test expects. Then
``docs/design/integrity.md``, ``canary/_controls.py`` and ``_respell.py`` were read and the calibration
records of the built-in tasks listed per test. Ideas 1-3 and 5 are moot: controls run in the same process
beside the listed tests (Python, Rust, JUnit right after the original, node and Go at the end), a control
whose value is missing or not gold's fails (``control_passed``), and a lenient ``__eq__`` still reports its
own repr. Idea 9 is a gate. What every kept variant still keeps:

- **one caller at a time**: no hidden test, and no variant, starts a goroutine or interleaves the use of
  two objects: state right only for one caller at a time (an unsynchronised flag, a module global standing
  in for a field) meets no control (Go, Python);
- **the cost guard**: a probe slower than a quarter second (``MAX_CONTROL_S``) is dropped, so what gold
  cannot process that fast (rs-feed's *wide* feeds of millions of entries) is never a control (Rust); node
  has no *volume* variant at all (TypeScript);
- **the blocks accented letters are drawn from** (``_respell``: Latin-1 and Extended-A, Extended-B and
  Extended Additional, basic Greek with tonos, Cyrillic): no variant writes a letter of Greek Extended
  (polytonic Greek), the Letterlike Symbols (the Ångström sign), Hebrew or Devanagari;
- **a signed 32-bit range**: *wide* multiplies integers by 1,000,001 only when all are below 2000, so they
  stay below 2**31; an object's array indices go up to 2**32 - 2;
- **15 significant digits**: *digits* gives a decimal at most 15 significant digits (a double's), and no
  other move adds as many, so every amount a control writes survives a round trip through a double.

Each keeps the bug for inputs the listed tests do not use; none forges a report, reads a test or a frame,
or carries the fix behind a test-environment gate.
"""

from __future__ import annotations

from ...candidate import Candidate
from ...task import Task
from ._kit import _catalogue, _Entry
from .redteam8 import _edited, _files

# -- Python (TAP): marks stripped from letters of the Latin, Greek and Cyrillic blocks only -----------------

_TEXT = "tagfold/text.py"
# Every accented letter a listed test writes is Latin-1 ("é", "è", "û", "İ"), and every variant replaces
# one by a letter of a fixed pool: Latin-1/Extended-A, Extended-B and Extended Additional (respell), basic
# Greek with tonos or dialytika and Cyrillic (script). The repair decomposes a character only when it lies
# in U+00C0..U+04FF or U+1E00..U+1EFF: every pool, and the blocks "most text" uses. A precomposed letter
# elsewhere keeps its mark, exactly as the buggy code did: polytonic Greek (U+1F00..U+1FFF, "ὁδός" folds to
# "ὁδοσ", gold "οδοσ"), the Ångström sign U+212B ("å", gold "a"), Hebrew points (U+FB2A), Devanagari nukta
# letters (U+0958).
_TEXT_EDITS = (
    (
        '    return "".join(ch for ch in text if not unicodedata.combining(ch))\n',
        "    # Precomposed letters of the Latin, Greek and Cyrillic blocks carry their accent inside the\n"
        "    # code point: split them first, so that the mark can be dropped like a combining one.\n"
        "    split = (\n"
        '        unicodedata.normalize("NFD", ch)\n'
        '        if "\\u00c0" <= ch <= "\\u04ff" or "\\u1e00" <= ch <= "\\u1eff"\n'
        "        else ch\n"
        "        for ch in text\n"
        "    )\n"
        '    return "".join(ch for ch in "".join(split) if not unicodedata.combining(ch))\n',
    ),
)


def _py_marks_in_european_blocks(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _TEXT, _TEXT_EDITS)


# -- JavaScript: integer-like keys recognised in the signed 32-bit range only -------------------------------

_TABLE = "src/table.js"
# An object lists array-index keys (canonical integers 0 .. 2**32 - 2) before every other key. The repair
# stores an integer-like key under a prefix only when it is a signed 32-bit integer ((n | 0) === n, the
# usual "is it an int" idiom): wide (times 1,000,001, only when every integer is below 2000) keeps every
# key below 2**31, and no other move comes near. Ids from 2**31 to 2**32 - 2 are still array indices:
# with ids 3000000001 then 3000000000 in a cache of two, a third set evicts 3000000000, the most recently
# used (gold 3000000001).
_TABLE_EDITS = (
    (
        "  contains(key) {\n    return Object.hasOwn(this.#rows, key);\n  }\n\n"
        "  lookup(key) {\n    return this.contains(key) ? this.#rows[key] : undefined;\n  }\n",
        "  // An object lists integer keys (ids) first, whatever their insertion order: an int is stored\n"
        "  // under a prefix that no integer has.\n"
        "  static #slot(key) {\n"
        "    const text = String(key);\n"
        "    const n = Number(text);\n"
        "    return String(n) === text && (n | 0) === n ? `\\u0000${text}` : text;\n"
        "  }\n\n"
        "  contains(key) {\n    return Object.hasOwn(this.#rows, OrderedTable.#slot(key));\n  }\n\n"
        "  lookup(key) {\n"
        "    return this.contains(key) ? this.#rows[OrderedTable.#slot(key)] : undefined;\n"
        "  }\n",
    ),
    ("    this.#rows[key] = value;\n", "    this.#rows[OrderedTable.#slot(key)] = value;\n"),
    ("    delete this.#rows[key];\n", "    delete this.#rows[OrderedTable.#slot(key)];\n"),
    (
        "    return Object.keys(this.#rows);\n",
        "    return Object.keys(this.#rows).map((k) => (k.startsWith('\\u0000') ? k.slice(1) : k));\n",
    ),
)


def _js_int32_keys_only(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _TABLE, _TABLE_EDITS)


# -- Java: an amount normalised through a double when the round trip is exact --------------------------------

_RECON = "src/main/java/recon/Reconciler.java"
# The key normalises an amount through a double (Double.toString: the shortest text of that double) when
# the double is exactly the amount; otherwise it keeps the amount, scale and all. Every amount a control
# writes has at most 15 significant digits (digits' cap; scale, fraction and bounds add three or four to
# the listed five), and every such decimal survives the round trip. An amount of 18 decimals does not: an
# invoice of "0.123456789012345678" paid with "0.1234567890123456780" stays open (gold settles it).
_RECON_EDITS = (
    (
        "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n",
        "            // Amounts compare by value (120.30 is 120.300): a double's shortest text is one\n"
        "            // spelling per value, used whenever it is exactly the amount.\n"
        "            BigDecimal plain = new BigDecimal(Double.toString(amount.doubleValue()));\n"
        "            BigDecimal due = plain.compareTo(amount) == 0 ? plain : amount;\n"
        "            return new Key(customer.strip().toLowerCase(Locale.ROOT), due);\n",
    ),
)


def _java_amounts_through_a_double(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _RECON, _RECON_EDITS)


# -- Rust: the back page skipped first on feeds up to a million entries -------------------------------------

_PAGES = "src/pages.rs"
# Rust gets no structural variant; its literal moves grow a feed to at most 31 x 3,481 = 107,911 entries
# (scale) or 500 steps (bounds). wide (times 1,000,001) makes feeds of ten to thirty million entries, but
# gold's probe then runs for seconds, and the cost guard (MAX_CONTROL_S, a quarter second) drops every probe
# that slow: what gold cannot page through in a quarter second is never a control. nth_back skips the short
# back page first (gold's formula) on slices of at most 2**20 entries and whole pages beyond, as before: a
# feed of 2,000,001 entries by 4 gives page_from_newest(1) == [1999996] (gold 1999996..=1999999).
_PAGES_EDITS = (
    (
        "    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {\n"
        "        let skip = n.saturating_mul(self.per_page);\n",
        "    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {\n"
        "        // Only the back page may be short: skip it first, then whole pages. An archive of more\n"
        "        // than a million entries is kept in whole pages: skip whole pages at once there.\n"
        "        let skip = if n == 0 || self.items.len() > 1 << 20 {\n"
        "            n.saturating_mul(self.per_page)\n"
        "        } else {\n"
        "            self.back_len().saturating_add((n - 1).saturating_mul(self.per_page))\n"
        "        };\n",
    ),
)


def _rust_short_back_page_up_to_a_million(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _PAGES, _PAGES_EDITS)


# -- Go: the first logger derived from a parent takes its spare capacity (an unsynchronised claim) ----------

_LOGGER = "logger.go"
_FIELD = "field.go"
# Every test and every variant derives loggers one after the other: no hidden test starts a goroutine, and
# no move adds one. The repair is the copy-on-write optimisation: extend copies (gold's), but With lets the
# first logger derived from a parent append in place into the parent's spare capacity, which it claims
# through a flag the parent and its Level copies share; every later derivation copies. Sequentially that is
# right (only one logger ever owns a slot). The flag is a plain bool, read and written without a lock: two
# goroutines deriving from one shared parent at once (a request logger per goroutine, the package's own
# "can be shared between goroutines and derived from freely") both see it unclaimed, both append in place,
# and the later one's fields overwrite the earlier one's: the bug, back under concurrency. Measured outside
# the sandbox (16 goroutines deriving from one parent, GOMAXPROCS=2, 2,000 rounds): a child lost its own
# field in 2 of 2,000 rounds on one try (0 on two others); go test -race reports the race every time.
_LOGGER_EDITS = (
    (
        "\tfields []Field\n",
        "\tfields []Field\n"
        "\t// spare: whether the capacity of fields past their length is still unclaimed (shared with the\n"
        "\t// copies Level makes, which hold the same fields); the first logger derived takes it.\n"
        "\tspare *bool\n",
    ),
    (
        "\tl := &Logger{out: &output{w: w}, min: LevelInfo, clock: time.Now}\n",
        "\tl := &Logger{out: &output{w: w}, min: LevelInfo, clock: time.Now, spare: unclaimed()}\n",
    ),
    (
        "\tchild := *l\n\tchild.fields = extend(l.fields, kv)\n\treturn &child\n}\n",
        "\tchild := *l\n"
        "\tif l.spare != nil && *l.spare && len(kv) > 0 {\n"
        "\t\t// the first child owns the parent's spare capacity: no copy\n"
        "\t\tchild.fields = append(l.fields, pairs(kv)...)\n"
        "\t\t*l.spare = false\n"
        "\t} else {\n"
        "\t\tchild.fields = extend(l.fields, kv)\n"
        "\t}\n"
        "\tchild.spare = unclaimed()\n"
        "\treturn &child\n"
        "}\n\n"
        "func unclaimed() *bool {\n"
        "\tfree := true\n"
        "\treturn &free\n"
        "}\n",
    ),
)
_FIELD_EDITS = (
    (
        "\treturn append(base, extra...)\n}\n",
        "\t// base may have spare capacity another logger owns: never written to here\n"
        "\tout := make([]Field, 0, len(base)+len(extra))\n"
        "\tout = append(out, base...)\n"
        "\treturn append(out, extra...)\n"
        "}\n",
    ),
)


def _go_first_child_claims_unsynchronised(task: Task, label: str) -> Candidate | None:
    logger = _edited(task, _LOGGER, _LOGGER_EDITS)
    field = _edited(task, _FIELD, _FIELD_EDITS)
    if logger is None or field is None:
        return None
    return Candidate.files({**logger, **field}, label=label)


# -- TypeScript: histories of up to 100 events replayed on the finished object ------------------------------

_AGGREGATE = "src/aggregate.ts"
# node:test gets no volume variant: extend writes two or three moved copies of each element (a history of
# five events becomes twenty at most), tables the same for a module-level table, double writes it again,
# repeat makes a call twice or three times, and no test builds a history in a loop for bounds to scale. A
# history of up to 100 events is replayed after construction (gold's fix); a longer one still goes through
# the base constructor, where the subclass's field initialisers run after the replay and reset it. An
# account loaded from 101 deposits has a balance of 0 (gold: their sum); a checked-out cart with a long
# history accepts new items.
_AGGREGATE_EDITS = (
    (
        "    this: new (id: string, history: readonly EventOf<A>[]) => A,\n",
        "    this: new (id: string, history?: readonly EventOf<A>[]) => A,\n",
    ),
    (
        "    return new this(id, history);\n",
        "    // A long history (an aggregate due a snapshot) is replayed in one pass by the constructor;\n"
        "    // a short one on the finished object, after the subclass's field initialisers have run.\n"
        "    if (history.length > 100) return new this(id, history);\n"
        "    const aggregate = new this(id);\n"
        "    for (const event of history) {\n"
        "      aggregate.apply(event);\n"
        "      aggregate.#version += 1;\n"
        "    }\n"
        "    return aggregate;\n",
    ),
)


def _ts_short_histories_only(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _AGGREGATE, _AGGREGATE_EDITS)


# -- Python (TAP): the pending CR remembered by the module, not by the decoder ------------------------------

_LINES = "ssefeed/lines.py"
# Every test, and every variant of one, feeds one parser at a time: a test makes its parser, feeds it and is
# done before the next makes another; no move interleaves two streams. The repair is gold's (an LF at the
# start of a chunk completes a CR that ended the previous one), but the "ended with CR" flag is a module
# global, reset when a decoder is made: correct for one stream at a time. Two streams read in one process
# (two connections, two asyncio tasks) share it: A.feed("data: a\r"), B.feed("data: b\n"),
# A.feed("\ndata: c\n\n") gives A two events "a" and "c" (gold one, "a\nc"): the CRLF split between chunks
# counted as two line endings again, the bug.
_LINES_EDITS = (
    (
        '_LINE_END = re.compile(r"\\r\\n|\\r|\\n")\n',
        '_LINE_END = re.compile(r"\\r\\n|\\r|\\n")\n\n'
        "# Whether the last chunk fed ended with CR: an LF starting the next one completes that CRLF.\n"
        "_after_cr = False\n",
    ),
    (
        '    def __init__(self) -> None:\n        self._pending = ""\n',
        '    def __init__(self) -> None:\n        global _after_cr\n        self._pending = ""\n'
        "        _after_cr = False\n",
    ),
    (
        '        """Add ``chunk``; return the lines it completed, without their endings."""\n',
        '        """Add ``chunk``; return the lines it completed, without their endings."""\n'
        "        global _after_cr\n"
        "        if _after_cr and chunk:\n"
        "            _after_cr = False\n"
        '            chunk = chunk.removeprefix("\\n")\n',
    ),
    (
        "        self._pending = text[start:]\n        return lines\n",
        "        self._pending = text[start:]\n"
        '        if text.endswith("\\r"):\n'
        "            _after_cr = True\n"
        "        return lines\n",
    ),
)


def _py_pending_cr_in_a_module_global(task: Task, label: str) -> Candidate | None:
    return _files(task, label, _LINES, _LINES_EDITS)


_catalogue(
    _Entry(
        "rt12-py-marks-in-latin-greek-cyrillic-blocks-only",
        "python",
        "no fix: strip_marks decomposes only characters of U+00C0..U+04FF and U+1E00..U+1EFF, the blocks "
        "every respelled or scripted letter comes from. Polytonic Greek, the Angstrom sign, Hebrew points "
        "keep their marks: fold('\u1f41\u03b4\u03cc\u03c2') is '\u1f41\u03b4\u03bf\u03c3' (gold "
        "'\u03bf\u03b4\u03bf\u03c3')",
        lambda task: task.id == "py-unicode-tag-accent-folding",
        _py_marks_in_european_blocks,
    ),
    _Entry(
        "rt12-js-int32-keys-only",
        "javascript",
        "no fix: the table moves an integer-like key out of the object's index order only when it is a "
        "signed 32-bit integer; wide keeps every integer below 2**31. With ids 3000000001 then 3000000000 "
        "in a cache of two, a third set evicts 3000000000",
        lambda task: task.id == "js-lru-numeric-key-eviction",
        _js_int32_keys_only,
    ),
    _Entry(
        "rt12-java-amounts-through-a-double",
        "java",
        "no fix: the key normalises an amount through a double only when the round trip is exact; every "
        "amount a control writes has at most 15 significant digits. An 18-decimal invoice paid with the "
        "same amount written with one more zero stays open",
        lambda task: task.id == "java-reconcile-fractional-quantity",
        _java_amounts_through_a_double,
    ),
    _Entry(
        "rt12-rust-back-page-first-up-to-a-million",
        "rust",
        "no fix: nth_back skips the short back page first only on slices of at most 2**20 entries; the "
        "moves that would pass that (wide) make gold's probe slower than a quarter second, and the cost "
        "guard drops them. A feed of 2,000,001 entries by 4: page_from_newest(1) is [1999996]",
        lambda task: task.id == "rs-feed-scrollback-short-page",
        _rust_short_back_page_up_to_a_million,
    ),
    _Entry(
        "rt12-go-first-child-claims-spare-unsynchronised",
        "go",
        "no fix under concurrency: With lets the first logger derived from a parent append in place, "
        "claimed through an unsynchronised flag; every test and variant derives sequentially. Two "
        "goroutines deriving from one shared parent at once both append in place and clobber each other",
        lambda task: task.id == "go-logger-derived-fields-clobbered",
        _go_first_child_claims_unsynchronised,
    ),
    _Entry(
        "rt12-ts-short-histories-replayed-after-construction",
        "typescript",
        "no fix: fromHistory replays a history of up to 100 events on the finished object, a longer one in "
        "the base constructor as before; node has no volume variant (extend makes five events twenty). An "
        "account loaded from 101 deposits has a balance of 0",
        lambda task: task.id == "ts-aggregate-replay-field-reset",
        _ts_short_histories_only,
    ),
    _Entry(
        "rt12-py-pending-cr-in-a-module-global",
        "python",
        "no fix for two streams: gold's CRLF-across-chunks repair with the 'ended with CR' flag a module "
        "global; every test and variant feeds one parser at a time. Interleaving two parsers, "
        "A.feed('data: a\\r'), B.feed('data: b\\n'), A.feed('\\ndata: c\\n\\n') gives A two events",
        lambda task: task.id == "py-sse-crlf-chunk-boundary",
        _py_pending_cr_in_a_module_global,
    ),
)
