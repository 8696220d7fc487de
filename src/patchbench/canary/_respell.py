"""More several-literal moves, shared by every language: literals *respelled*, numbers *scaled*, decimals
given more *digits*.

Round eight's partial repairs were correct on a set the other moves never leave: amounts with at most three
decimals (a shift changes digits, never how many), the accented letters the listed tests use (a word move
appends an ``x``), ids below 1000 and jumps of at most six pages (integers only ever moved up by the shift,
and all of them alike, so a feed's length and its page size grow together).

- **respell** (:data:`RESPELL`): a decimal written as a string gains a trailing zero (``"120.30"`` ->
  ``"120.300"``: the same value, written with another scale), and every non-ASCII letter of a string is
  replaced by an accented Latin letter of Latin Extended-B or Extended Additional on another base letter,
  its case swapped (drawn from the secret shift; ``"café"`` -> ``"cafẠ"``);
- **scale** (:data:`SCALE`): every other integer (the first, the third, ... in the order they are written)
  multiplied by the square of the secret shift (121 to 3481: prime to 2, 3 and 5, so a multiple of the
  page size stays one only if it was one, and a short page stays short): the others stay, so sizes grow
  apart (a feed of 1690 entries by 4, not 23 by 17), and values leave any bound a repair could draw around
  the listed ones short of a real fix. A number written as a string (``"48.12"``) is scaled with them,
  exactly and in the same order, so 2.5 h at 48.12 still costs 120.30 scaled alike;
- **digits** (:data:`DIGITS`): every decimal (a float literal, a decimal string, each decimal inside a
  string such as a JSON text) given more digits, the shift's repeated, up to 15 significant digits
  (``0.045`` -> ``0.0451313131313131``);
- **negated** (:data:`NEGATE`): every positive decimal, in code or in a string, negated; and
  (:data:`NEGATE_REST`) every one but the first written, so a product's factor and its result turn
  negative together while a validated quantity written first stays positive;
- **zero rest** (:data:`ZERO_REST`): every decimal and number written as a string but the first written
  made 0, its decimals kept (``"48.12"`` -> ``"0.00"``): a zero amount on both sides of a relation;
- **wide** (:data:`WIDE`): every integer of a test written twice over, six digits apart (times 1,000,001:
  5 -> 5000005), when they are all below 2000;
- **script** (:data:`SCRIPT`): every non-ASCII letter replaced by accented Greek and Cyrillic letters in
  turn, its case swapped (a respelled letter is always Latin);
- **decimals scaled** (:data:`SCALE_DECIMALS`): every decimal of 1 or more, a float literal, a decimal
  string or one inside a string (a JSON text), multiplied by the cube of the shift, exactly (a fraction,
  often a rate a correct fix may keep in [0, 1], stays);
- **late** (:data:`LATE`): every time of day a test writes (``"HH:MM"`` in a string) moved by one delta,
  so that the latest lands late in the evening (23:59 less the shift): order, gaps and touching are kept,
  and a repair right only during the listed hours (before 18:00) meets the evening;
- **zero** (:data:`ZERO`): the integer written nearest the checks, and every other integer of the same
  value, made 0 (the one boundary no other move reaches: they move integers up);
- **fraction** (:data:`FRACTION`): the numbers written as strings at the even positions (as the scale
  variant counts them) multiplied by the square of the shift over 100 (1.21 to 34.81): what was in whole
  cents gets two more significant decimals, and a product of two of them still equals the third
  (``"2.5" x "48.12" = "120.30"`` becomes ``"3.025" x "48.12" = "145.5630"``);
- **bounds** (:data:`BOUNDS`): every integer, the loops' bounds among them, and every number written as a
  string multiplied by one factor, a multiple of the shift (see :func:`bound_factor`): a count a test
  makes by looping grows with the sizes it is compared against (the scale variants leave a loop's bound
  alone, so a pool scaled past 64 met no more than the listed six borrowers).

The variants are calibrated like every other (gold twice, stable, comparable, not the buggy code's value).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from decimal import Decimal, localcontext

from ._probing import INPUT_SHIFT

#: Accented Latin letters a non-ASCII letter may become (lower case; upper case where it has one).
_NEAR = "àáâãäåçèéêëìíîïñòóôõöùúûüýÿāăąćĉċčďēĕėęěĝğġģĥĩīĭįĵķĺļľńņňōŏőŕŗřśŝşšţťũūŭůűųŵŷźżž"  # Latin-1, Ext-A
#: What a letter becomes: Latin Extended-B (Romanian ș ț among them) and Extended Additional (Vietnamese),
#: beyond the blocks most text (and a repair keyed on the listed letters' block) knows (round nine).
_ACCENTED = "ǎǐǒǔǖǘǚǜǟǧǩǫǰǵǹȁȃȅȇȉȋȍȏȑȓȕȗșțȟȧȩȯȳạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ"
_DECIMAL = re.compile(r"^(-?[0-9]+\.[0-9]+)$")


def _base(letter: str) -> str:
    """A letter's base letter (its first code point once decomposed): ``"ȩ"`` -> ``"e"``."""
    return unicodedata.normalize("NFD", letter)[:1].lower()


def respelled(body: str) -> str | None:
    """A string's text respelled (see the module's doc), or None when nothing in it changes."""
    if _DECIMAL.match(body):
        return body + "0"
    shift = INPUT_SHIFT.get()
    out = []
    for c in body:
        if c.isalpha() and not c.isascii():
            low = c.lower()
            at = max(_NEAR.find(low), _ACCENTED.find(low), 0)
            step = at + shift
            new = _ACCENTED[step % len(_ACCENTED)]
            while _base(new) == _base(low):
                # another base letter (round ten: under the shift 23 "é" became "ȩ", which folds to the
                # same "e", so gold's value was the listed one and the control was not kept)
                step += 1
                new = _ACCENTED[step % len(_ACCENTED)]
            # the case swapped (round ten: a repair right for small letters only met none but small ones)
            out.append(new.upper() if c.islower() and len(new.upper()) == 1 else new)
        else:
            out.append(c)
    moved = "".join(out)
    return moved if moved != body else None


#: Accented letters of other scripts (Greek with tonos or dialytika, Cyrillic with a mark: each decomposes
#: to a base letter and a mark), lower case, each with a one-letter capital (round eleven: a repair that
#: stripped marks from Latin letters only met no other script).
_GREEK = "άέήίόύώϊϋ"
_CYRILLIC = "ѐёѓїќѝўйӑӓӗӛӝӟӣӥӧӫӯӱӳӵӹ"
#: Letters without case that decompose to a letter and a mark: kana with a voicing mark (round thirteen).
_KANA = "がぎぐげござじずぜぞだぢづでどばびぶべぼぱぴぷぺぽガギグゲゴザジズゼゾダヂヅデドバビブベボパピプペポ"


@functools.lru_cache(maxsize=1)
def _elsewhere() -> str:
    """Every other lower-case letter that decomposes to a letter and marks alone, outside the blocks the
    pools above and the Latin ones hold (U+0000-U+04FF, U+1E00-U+1EFF), with a one-letter capital and no
    compatibility decomposition (round thirteen, rt12-py-marks-in-latin-greek-cyrillic-blocks-only: a
    repair that stripped marks in those blocks only met no other letter; today Greek Extended's)."""
    out = []
    for cp in range(0x500, 0x20000):
        c = chr(cp)
        if 0x1E00 <= cp <= 0x1EFF or not (c.isalpha() and c.islower()):
            continue
        parts = unicodedata.normalize("NFD", c)
        if len(parts) < 2 or not parts[0].isalpha() or not all(unicodedata.combining(m) for m in parts[1:]):
            continue
        up = c.upper()
        if (
            len(up) != 1
            or up.lower() != c
            or c.casefold() != c
            or any(unicodedata.normalize("NFKD", x) != unicodedata.normalize("NFD", x) for x in (c, up))
        ):
            continue
        out.append(c)
    return "".join(out)


def scripted(body: str) -> str | None:
    """A string with every non-ASCII letter replaced by one of :func:`_elsewhere`, a voiced kana, an
    accented Greek letter and a Cyrillic one, in turn (drawn from the secret shift), its case swapped;
    None when it has none. The first is from outside the blocks most text is in: a string of one such
    letter meets one too."""
    shift = INPUT_SHIFT.get()
    pools = (_elsewhere() or _GREEK, _KANA, _GREEK, _CYRILLIC)
    out = []
    turn = 0
    for c in body:
        if c.isalpha() and not c.isascii():
            pool = pools[turn % len(pools)]
            new = pool[(shift * (turn + 1)) % len(pool)]
            out.append(new.upper() if c.islower() and len(new.upper()) == 1 else new)
            turn += 1
        else:
            out.append(c)
    return "".join(out) if turn else None


#: Which integers a scale variant multiplies, by their position in the order written: the even ones, the
#: odd ones, or all (round nine: scaling only even positions always left `Lot(sku, units, cost)`'s cost
#: and a feed's page size where they were).
PARITIES = ("even", "odd", "all")


def scaled(value: int, position: int, parity: str = "even") -> int | None:
    """The ``position``-th integer of a test (in the order written) scaled, or None when it stays."""
    if value == 0 or (parity == "even" and position % 2) or (parity == "odd" and not position % 2):
        return None
    return value * INPUT_SHIFT.get() ** 2


#: The most a loop's bound may become in a :data:`BOUNDS` variant: a test may nest its loops (go-logger's
#: `depth <= 8`, each step deriving a chain as long: cubic in the bound, so 8 by 59 squared ran for hours);
#: 500 steps of a cubic loop are some 40 million, well inside a test's time.
MAX_BOUND = 500


def bound_factor(bounds: list[int]) -> int | None:
    """What a :data:`BOUNDS` variant multiplies every integer by, the loops' ``bounds`` among them: the
    largest multiple of the shift up to its square that keeps each bound within :data:`MAX_BOUND` (the
    shift squared when they are small; ``range(6)`` by 2 x 59 under the shift 59); None when not even the
    shift does, or there is no bound."""
    top = max(bounds, default=0)
    if top <= 0:
        return None
    shift = INPUT_SHIFT.get()
    times = min(shift, MAX_BOUND // (top * shift))
    return shift * times if times >= 1 else None


def times_text(body: str, factor: int) -> str | None:
    """A number written as a string multiplied by ``factor`` exactly (its decimals kept); None when it is
    not one, or is 0."""
    if not is_number_text(body) or not Decimal(body):
        return None
    return format(Decimal(body) * factor, "f")


def fraction_text(body: str, position: int) -> str | None:
    """A number written as a string, at an even ``position`` of its test's numbers, multiplied by the
    square of the shift over 100, exactly (``"120.30"`` by 1.21 is ``"145.5630"``: round ten's pair in
    whole cents met two more significant decimals); None when it stays."""
    if position % 2 or not is_number_text(body) or not Decimal(body):
        return None
    return format(Decimal(body) * Decimal(INPUT_SHIFT.get() ** 2).scaleb(-2), "f")


def precise_text(body: str, position: int) -> str | None:
    """A number written as a string, at an even ``position`` of its test's numbers (as
    :func:`fraction_text`: a pair that must stay equal, or a product, stays so), multiplied by ``1 + shift
    x 10^-17``, exactly: past the 17 significant digits a double holds, within the 28 of Python's decimal
    context (``"120.30"`` by 11 is ``"120.3000000000000132330"``; round thirteen,
    rt12-java-amounts-through-a-double: code taking an amount through a double when the round trip is
    exact met none it could not hold); None when it stays, or has more than 9 significant digits."""
    if position % 2 or not is_number_text(body) or not Decimal(body):
        return None
    if len(body.lstrip("-").replace(".", "").strip("0")) > 9:
        return None
    with localcontext() as ctx:
        ctx.prec = 80
        return format(Decimal(body) * (1 + Decimal(INPUT_SHIFT.get()).scaleb(-17)), "f")


#: A number written as a string (``"48.12"``, ``"600"``, ``"-3"``; not ``"007"``, a code): the scale
#: variants multiply it with the integers, in the same order (round ten: amounts written as strings kept
#: their integer part's width under every other move, so a repair drawn below 1000 held).
_NUMBER_TEXT = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$")


def is_number_text(body: str) -> bool:
    """Whether a string's text is a number the scale variants multiply (see :data:`_NUMBER_TEXT`)."""
    return _NUMBER_TEXT.match(body) is not None


def scaled_text(body: str, position: int, parity: str = "even") -> str | None:
    """A number written as a string, the ``position``-th scaled number of its test, scaled exactly (its
    decimals kept: ``"48.12"`` by 121 is ``"5822.52"``); None when it stays or is not such a number."""
    if not is_number_text(body):
        return None
    value = Decimal(body)
    if not value or (parity == "even" and position % 2) or (parity == "odd" and not position % 2):
        return None
    return format(value * INPUT_SHIFT.get() ** 2, "f")


#: A decimal literal written in code (no sign, exponent or typed suffix).
_DECIMAL_CODE = re.compile(r"[0-9]+\.[0-9]+")
#: A decimal number inside a string (the whole string, or one of a JSON text's values): not a part of a
#: version or an address (no digit or point next to it).
_DECIMAL_IN = re.compile(r"(?<![0-9.])([0-9]+\.[0-9]+)(?![0-9.])")


#: How many significant digits a :data:`DIGITS` variant gives a decimal: as many as a float keeps exactly
#: (a repr of 15 significant digits reads back as written), so a repair right only up to some number of
#: decimals below that meets more (round ten: two more digits, always, let a repair right up to five
#: decimals pass).
SIGNIFICANT = 15


def _more_digits(decimal: str) -> str:
    """A decimal's text with digits appended up to :data:`SIGNIFICANT` significant ones (two at least):
    the shift's two digits repeated, so never a trailing 0 (the shift is odd and not a multiple of 5)."""
    significant = len(decimal.replace(".", "").lstrip("0"))
    more = max(2, SIGNIFICANT - significant)
    return decimal + (f"{INPUT_SHIFT.get() % 100:02d}" * more)[:more]


def refined(body: str) -> str | None:
    """A string with every decimal number in it given more digits (``'{"rate": 0.045}'`` ->
    ``'{"rate": 0.0451111111111111}'`` for shift 11, 15 significant): code right only for the number of
    decimals the listed inputs have meets more; None when the string holds no decimal."""
    out = _DECIMAL_IN.sub(lambda m: _more_digits(m.group(1)), body)
    return out if out != body else None


def refined_number(text: str) -> str | None:
    """A decimal literal written in code (``0.35``) with more digits (see :func:`refined`); None for any
    other literal (an integer, an exponent, a typed suffix)."""
    return _more_digits(text) if _DECIMAL_CODE.fullmatch(text) else None


def _times_cube(decimal: str) -> str:
    """A decimal of 1 or more times the cube of the shift, exactly; a fraction as it is (a rate, a share,
    a probability: a correct fix may refuse one past 1, round eleven's honest fix that checks a tax rate
    lies in [0, 1] did)."""
    value = Decimal(decimal)
    return format(value * INPUT_SHIFT.get() ** 3, "f") if abs(value) >= 1 else decimal


def decimals_scaled(body: str) -> str | None:
    """A string with every decimal number of 1 or more in it multiplied by the cube of the shift, exactly,
    its decimals kept (``'{"fee": 1.005}'`` -> ``'{"fee": 1337.655}'`` for 11; round eleven: the scale
    variants left a float's magnitude alone, so a repair right below 10 met nothing above); None when it
    holds none."""
    out = _DECIMAL_IN.sub(lambda m: _times_cube(m.group(1)), body)
    return out if out != body else None


def decimal_number_scaled(text: str) -> str | None:
    """A decimal literal written in code multiplied by the cube of the shift (see
    :func:`decimals_scaled`); None for any other literal, or a fraction."""
    big = _times_cube(text) if _DECIMAL_CODE.fullmatch(text) else None
    return None if big == text else big


#: Where a :data:`FAR` variant's loops start: past 1,000 by eight times the shift (1,088 to 1,472), so a
#: repair right only for sizes up to 512 or 1,024 meets a larger one, while a loop nested in the test (a
#: chain as long as its count, per step) stays well inside a control's cost guard.
FAR_BASE = 1000


def zone() -> tuple[int, str, str, str]:
    """The time zone a *zoned* copy runs in (see ``_decoys.ZONED``), from the secret shift: never UTC, one to
    eleven hours east or west, on the half hour for some shifts. ``(seconds east of UTC, a POSIX TZ string,
    a Java zone id, an IANA zone node reads)``; node's ``Etc/GMT`` zones are whole hours (their sign is
    POSIX's: ``Etc/GMT-5`` is five hours east)."""
    shift = INPUT_SHIFT.get()
    minutes = (1 + shift % 11) * 60 + (30 if (shift // 3) % 2 else 0)
    if (shift // 2) % 2:
        minutes = -minutes
    hours, rest = divmod(abs(minutes), 60)
    east = minutes > 0
    posix = f"PBZ{'-' if east else '+'}{hours}:{rest:02d}"
    java = f"GMT{'+' if east else '-'}{hours:02d}:{rest:02d}"
    iana = f"Etc/GMT{'-' if east else '+'}{hours}"
    return minutes * 60, posix, java, iana


def many_times() -> int:
    """How many times more a :data:`MANY` variant makes a test's first call: past a thousand by the shift."""
    return FAR_BASE + INPUT_SHIFT.get()


def many_calls() -> int:
    """How many times a Python :data:`MANY` control makes its checked call: past eight thousand by the
    shift (a test process makes a few hundred at most; round fifteen's repair was right for 4,096)."""
    return 8 * FAR_BASE + 8 * INPUT_SHIFT.get()


def far_start() -> int:
    """Where a :data:`FAR` variant's counting loops start (see :data:`FAR_BASE`)."""
    return FAR_BASE + 8 * INPUT_SHIFT.get()


#: What a :data:`WIDE` variant multiplies every integer by (each written twice over, six digits apart:
#: 5 -> 5000005), when all of a test's integers are below :data:`WIDE_BELOW` (so they stay below 2^31).
WIDE_FACTOR = 1_000_001
WIDE_BELOW = 2000
#: JavaScript's (numbers exact up to 2^53): the wide integers past 2^31, still below 2^32 - 1 (round
#: thirteen, rt12-js-int32-keys-only: a repair for keys that fit a signed 32-bit integer met no other, as
#: every wide integer stayed below 2^31; an array index, which an object orders apart, is below 2^32 - 1).
#: Not Java, whose int literal would not compile, nor Python (a loop counting to one runs for hours).
WIDE_OFFSET = 2**31


def widened(values: list[int], *, offset: int = 0) -> list[int] | None:
    """A test's integers made wide (see :data:`WIDE_FACTOR`; round twelve: keys of up to six digits were
    all a repair handled, and every move stayed there), ``offset`` added (see :data:`WIDE_OFFSET`); None
    when one is too large or there is none."""
    if not values or any(not 0 <= v < WIDE_BELOW for v in values):
        return None
    return [offset + v * WIDE_FACTOR for v in values]


def _zero_like(number: str) -> str:
    """0 written with as many decimals as ``number``: ``"150.00"`` -> ``"0.00"``, ``"600"`` -> ``"0"``."""
    decimals = number.partition(".")[2]
    return f"0.{'0' * len(decimals)}" if decimals else "0"


def zeroed(body: str) -> str | None:
    """A number written as a string, or a string's decimals, made 0 with their decimals kept (round
    twelve: a repair right for every amount but zero met none); None when it holds none or only 0."""
    if is_number_text(body):
        return None if not Decimal(body) else _zero_like(body.lstrip("-"))
    out = _DECIMAL_IN.sub(lambda m: _zero_like(m.group(1)), body)
    return out if out != body else None


def zeroed_number(text: str) -> str | None:
    """A decimal literal written in code made 0 with its decimals kept (``48.12`` -> ``0.00``); None for
    any other literal."""
    return _zero_like(text) if _DECIMAL_CODE.fullmatch(text) and Decimal(text) else None


#: A positive decimal inside a string: not a part of a version or an address, and not negative already.
_POSITIVE_IN = re.compile(r"(?<![0-9.\-])([0-9]+\.[0-9]+)(?![0-9.])")


def negated(body: str) -> str | None:
    """A string with every positive decimal in it negated (``'{"fee": 1.005}'`` -> ``'{"fee": -1.005}'``;
    round ten: a repair right for positive amounts only met no negative one); None when it holds none."""
    out = _POSITIVE_IN.sub(lambda m: "-" + m.group(1), body)
    return out if out != body else None


def negated_number(text: str) -> str | None:
    """A decimal literal written in code, negated in parentheses (``(-0.35)``: safe after any operator);
    None for any other literal."""
    return f"(-{text})" if _DECIMAL_CODE.fullmatch(text) else None


#: A time of day inside a string (``"09:30"``, ``"from 14:00"``): not part of a longer number.
_CLOCK = re.compile(r"(?<![0-9:])([01][0-9]|2[0-3]):([0-5][0-9])(?![0-9])")


def clock_minutes(body: str) -> list[int]:
    """The times of day a string holds, in minutes after midnight."""
    return [int(m.group(1)) * 60 + int(m.group(2)) for m in _CLOCK.finditer(body)]


def late_delta(bodies: list[str]) -> int | None:
    """How far a :data:`LATE` variant moves the times of a test's strings: the latest lands on 23:59 less
    the shift; None when they hold no time or are already that late."""
    times = [t for body in bodies for t in clock_minutes(body)]
    delta = 24 * 60 - 1 - INPUT_SHIFT.get() - max(times) if times else 0
    return delta if delta > 0 else None


def later(body: str, delta: int) -> str | None:
    """A string with every time of day in it ``delta`` minutes later (see :func:`late_delta`); None when
    it holds none."""
    out = _CLOCK.sub(lambda m: "{:02d}:{:02d}".format(*divmod(int(m[1]) * 60 + int(m[2]) + delta, 60)), body)
    return out if out != body else None


#: An ISO date inside a string (``"2026-03-31"``, ``"due 2026-03-31T09:00"``): not part of a longer number.
_ISO_DATE = re.compile(r"(?<![0-9])((?:19|20)[0-9]{2})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(?![0-9])")
#: How far a :data:`FUTURE` variant moves dates, in years, tried in turn: whole 28-year cycles, so every
#: date keeps its weekday and Feb 29 stays a date (from 1901 to 2099, where the Gregorian cycle is 28
#: years), as far as the latest date allows.
FUTURE_YEARS = (56, 28)


def future_years(bodies: list[str]) -> int | None:
    """How many years a :data:`FUTURE` variant moves the dates of a test's strings (see
    :data:`FUTURE_YEARS`): the most that keeps every one before 2100; None when they hold no date or one
    before 1901."""
    years = [int(m.group(1)) for body in bodies for m in _ISO_DATE.finditer(body)]
    if not years or min(years) < 1901:
        return None
    return next((k for k in FUTURE_YEARS if max(years) + k <= 2099), None)


def futured(body: str, years: int) -> str | None:
    """A string with every ISO date in it ``years`` later (see :func:`future_years`); None when it holds
    none."""
    out = _ISO_DATE.sub(lambda m: f"{int(m[1]) + years}-{m[2]}-{m[3]}", body)
    return out if out != body else None
