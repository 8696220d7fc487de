"""Literals respelled and integers scaled (patchbench.canary._respell), in Python and native controls."""

from __future__ import annotations

import ast
import random
import textwrap
import unicodedata
from collections.abc import Iterator

import pytest

import patchbench as pb
from patchbench.canary import _decoys
from patchbench.canary import _decoys_native as dn
from patchbench.canary._decoys import (
    BOUNDS,
    DIGITS,
    DOUBLE,
    FRACTION,
    FUTURE,
    LATE,
    NEGATE,
    NEGATE_REST,
    RESPELL,
    RETYPE,
    SCALE,
    SCALE_ALL,
    SCALE_DECIMALS,
    SCALE_ODD,
    SCALES,
    WIDE,
    ZERO,
    ZERO_REST,
)
from patchbench.canary._inputs_native import input_text
from patchbench.canary._probing import INPUT_SHIFT
from patchbench.canary._respell import (
    bound_factor,
    decimal_number_scaled,
    decimals_scaled,
    fraction_text,
    future_years,
    futured,
    late_delta,
    later,
    negated,
    negated_number,
    refined,
    refined_number,
    respelled,
    scaled,
    scaled_text,
    scripted,
    times_text,
    widened,
    zeroed,
    zeroed_number,
)


@pytest.fixture(autouse=True)
def _shift() -> Iterator[None]:
    token = INPUT_SHIFT.set(13)
    yield
    INPUT_SHIFT.reset(token)


def test_a_decimal_gains_a_trailing_zero() -> None:
    assert respelled("120.30") == "120.300"
    assert respelled("-0.5") == "-0.50"
    assert respelled("120") is None and respelled("1.2.3") is None and respelled("plain") is None


def test_accented_letters_become_other_accented_letters() -> None:
    out = respelled("Crème brûlée")
    assert out is not None and len(out) == len("Crème brûlée")
    assert [a == b for a, b in zip(out, "Crème brûlée", strict=True)] == [c.isascii() for c in "Crème brûlée"]
    assert all(not c.isascii() and c.isalpha() for c, o in zip(out, "Crème brûlée", strict=True) if c != o)
    # never a letter on the same base: folded, the text would still be the listed one (shift 23's "ȩ")
    for shift in (11, 23, 59):
        token = INPUT_SHIFT.set(shift)
        try:
            out = respelled("Crème brûlée Résumé")
        finally:
            INPUT_SHIFT.reset(token)
        assert out is not None
        assert all(unicodedata.normalize("NFD", o.lower())[0] != unicodedata.normalize("NFD", c.lower())[0]
                   for c, o in zip("Crème brûlée Résumé", out, strict=True) if not c.isascii())  # fmt: skip
        # the case swapped: a repair right for small letters only meets capitals (round ten)
        assert all(o.isupper() for c, o in zip("Crème brûlée", out[:12], strict=True) if not c.isascii())
    # and a capital becomes small, and a letter outside the table still moves
    lower = respelled("İstanbul")
    assert lower is not None and lower[0].islower() and lower[0] not in "iİ" and lower[1:] == "stanbul"


def test_every_other_integer_is_scaled_by_the_square_of_the_shift() -> None:
    assert [scaled(v, i) for i, v in enumerate([10, 4, 7, 0, 0])] == [1690, None, 1183, None, None]


def test_python_controls_respell_and_scale() -> None:
    tree = ast.parse(
        textwrap.dedent(
            """
            def test_x():
                line = Line("consulting", "2.5", "48.12", 3)
                assert total([line], "Café", 10, 4) == 1
            """
        )
    )
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    respell = _decoys._input_control(fn, "test_y", RESPELL, {}, {})
    scale = _decoys._input_control(fn, "test_y", SCALE, {}, {})
    double = _decoys._input_control(fn, "test_y", DOUBLE, {}, {})
    assert respell is not None and scale is not None and double is not None
    assert "Line('consulting', '2.50', '48.120', 3)" in ast.unparse(respell)
    assert "'Caf" in ast.unparse(respell) and "'Café'" not in ast.unparse(respell)
    # numbers in the order written, strings among them: "2.5" (scaled), "48.12", 3 (scaled), 10, 4 (scaled)
    assert "Line('consulting', '422.5', '48.12', 507)" in ast.unparse(scale)
    assert "total([line], 'Café', 10, 676)" in ast.unparse(scale)
    # the list written again as it is, as many times as the moved copies (1 + 13 % 3)
    assert "total([line, line, line], 'Café', 10, 4)" in ast.unparse(double)


def _found(task_id: str, lang: dn._Lang, ends: str) -> dn._Found:
    task = next(t for t in pb.load("builtin").tasks if t.id == task_id)
    entry = next(e for e in task.hidden_tests if e.path.endswith(lang.exts))
    parsed = dn._parse(lang, entry.data().decode())
    assert parsed is not None
    return next(f for k, f in dn._tests(lang, *parsed, entry.path) if k.endswith(ends))


def test_native_controls_scale_apart_and_respell() -> None:
    found = _found("rs-feed-scrollback-short-page", dn._RUST, "with_a_short_tail")
    text = input_text(found, dn._RUST, "new_name", SCALE, random.Random(1))
    # a feed of 1690 entries by 4 (a short last page still): its length scaled, its page size kept
    assert text is not None and "let f = feed(1690, 4);" in text
    found = _found("java-reconcile-fractional-quantity", dn._JAVA, "FractionalHours")
    text = input_text(found, dn._JAVA, "newName", RESPELL, random.Random(1))
    assert text is not None
    assert 'InvoiceLine.of("consulting, hours", "2.50", "48.120")' in text
    assert 'Payment.of("BNK-88121", "NORTHWIND", "120.300")' in text


def test_the_three_scales_take_even_odd_and_all_positions() -> None:
    values = [10, 4, 7]
    assert [scaled(v, i, "odd") for i, v in enumerate(values)] == [None, 676, None]
    assert [scaled(v, i, "all") for i, v in enumerate(values)] == [1690, 676, 1183]


def test_loop_bounds_are_never_scaled() -> None:
    """Regression: go-logger's `for depth := 0; depth <= 8` scaled by 3481 ran its probe past the time
    limit, and the calibration that timed out planted no control at all."""
    found = _found("go-logger-derived-fields-clobbered", dn._GO, "TestSiblingLoggersKeepTheirOwnFields")
    for which in SCALES:
        assert input_text(found, dn._GO, "TestNew", which, random.Random(1)) is None
    tree = ast.parse("def test_x():\n    for i in range(6):\n        go(i)\n    assert f([3, 4]) == 1\n")
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", SCALE_ALL, {}, {})
    assert out is not None and "range(6)" in ast.unparse(out) and "f([507, 676])" in ast.unparse(out)


def test_numbers_written_as_strings_scale_exactly_with_their_decimals() -> None:
    assert scaled_text("48.12", 0) == "8132.28" and scaled_text("-3", 2, "all") == "-507"
    assert scaled_text("600", 1, "odd") == "101400" and scaled_text("600", 1) is None
    # not numbers: a code with a leading zero, a version, a date, zero
    assert [scaled_text(t, 0) for t in ("007", "1.2.3", "2026-03-31", "0.00", " 5")] == [None] * 5


def test_decimals_gain_two_digits_from_the_shift() -> None:
    # up to 15 significant digits: the shift's two, repeated (a float keeps 15 exactly)
    assert refined('{"rate": 0.045, "fee": 1.005, "n": 3}') == (
        '{"rate": 0.0451313131313131, "fee": 1.00513131313131, "n": 3}'
    )
    assert refined("120.30") == "120.301313131313" and refined("10.0.0.1") is None and refined("x") is None
    assert refined_number("0.35") == "0.351313131313131" and refined_number("2.5f") is None
    assert refined_number("3") is None and refined_number("1e5") is None
    assert repr(float(refined_number("0.35") or "")) == "0.351313131313131"
    assert refined("1234567890123.45") == "1234567890123.4513"  # two at least
    token = INPUT_SHIFT.set(7)
    try:
        assert refined("0.5") == "0.507070707070707"  # never a trailing zero: the shift is prime to 2 and 5
    finally:
        INPUT_SHIFT.reset(token)


def test_python_controls_give_floats_and_json_decimals_more_digits() -> None:
    tree = ast.parse(
        textwrap.dedent(
            """
            def test_x():
                rates = json.loads('{"standard": 0.045, "reduced": 0.15}')
                assert tax(2, rates["standard"], 0.35, "1.25") == 1
            """
        )
    )
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", DIGITS, {}, {})
    assert out is not None
    text = ast.unparse(out)
    assert """json.loads('{"standard": 0.0451313131313131, "reduced": 0.151313131313131}')""" in text
    assert "tax(2, rates['standard'], 0.351313131313131, '1.25131313131313')" in text


def test_native_controls_scale_amounts_written_as_strings_and_give_them_digits() -> None:
    found = _found("java-reconcile-fractional-quantity", dn._JAVA, "FractionalHours")
    # "2.5", "48.12", "120.30" in the order written: the odd position is the price, so 2.5 h at 48.12
    # still costs the payment, scaled alike (120.30 x 169)
    text = input_text(found, dn._JAVA, "newName", SCALE, random.Random(1))
    assert text is not None
    assert 'InvoiceLine.of("consulting, hours", "422.5", "48.12")' in text
    assert 'Payment.of("BNK-88121", "NORTHWIND", "20330.70")' in text
    odd = input_text(found, dn._JAVA, "newName", SCALE_ODD, random.Random(1))
    assert odd is not None and '"8132.28"' in odd and '"2.5"' in odd
    digits = input_text(found, dn._JAVA, "newName", DIGITS, random.Random(1))
    assert digits is not None
    assert 'InvoiceLine.of("consulting, hours", "2.51313131313131", "48.1213131313131")' in digits
    assert '"2026-03-31"' in digits and '"BNK-88121"' in digits


def test_times_of_day_move_together_until_the_latest_is_late_in_the_evening() -> None:
    # the latest, 14:30, lands on 23:59 less the shift (13): 23:46; every other time by the same 556 min
    assert late_delta(["10:00", "09:00 to 14:30", "no time", "2026-03-31"]) == 556
    assert later("14:30", 556) == "23:46" and later("from 09:00 to 10:00", 556) == "from 18:16 to 19:16"
    assert later("no time", 556) is None and later("12:345", 556) is None and later("1:2:30", 5) is None
    assert late_delta(["23:50"]) is None and late_delta(["none"]) is None


def test_python_controls_move_the_times_late() -> None:
    tree = ast.parse(
        textwrap.dedent(
            """
            def test_x():
                room = make(("10:00", "11:30"), ("09:00", "10:00"), ("13:00", "14:00"), ("14:00", "14:30"))
                assert room.busy_blocks() == [("09:00", "11:30"), ("13:00", "14:30")]
            """
        )
    )
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", LATE, {}, {})
    assert out is not None
    # touching meetings still touch, now in the evening (the expectation is gold's, not these literals)
    assert "make(('19:16', '20:46'), ('18:16', '19:16'), ('22:16', '23:16'), ('23:16', '23:46'))" in (
        ast.unparse(out)
    )


def test_positive_decimals_are_negated_in_code_and_in_strings() -> None:
    assert negated('{"fee": 1.005, "rebate": -2.5, "n": 3}') == '{"fee": -1.005, "rebate": -2.5, "n": 3}'
    assert negated("48.12") == "-48.12" and negated("v1.2.3") is None and negated("-0.5") is None
    assert negated_number("0.35") == "(-0.35)" and negated_number("3") is None
    tree = ast.parse("def test_x():\n    r = json.loads('{\"a\": 0.045}')\n    assert f(r, 0.35, 2) == 1\n")
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", NEGATE, {}, {})
    assert out is not None
    text = ast.unparse(out)
    assert """json.loads('{"a": -0.045}')""" in text and "f(r, -0.35, 2)" in text
    found = _found("java-reconcile-fractional-quantity", dn._JAVA, "FractionalHours")
    java = input_text(found, dn._JAVA, "newName", NEGATE, random.Random(1))
    assert java is not None and 'InvoiceLine.of("consulting, hours", "-2.5", "-48.12")' in java


def test_fraction_gives_a_pair_in_whole_cents_two_more_significant_decimals_together() -> None:
    # shift 13: times 1.69, the written decimals kept (a product of two still equals the third)
    assert fraction_text("120.30", 0) == "203.3070" and fraction_text("2.5", 2) == "4.225"
    assert (
        fraction_text("48.12", 1) is None and fraction_text("0", 0) is None and fraction_text("v1", 0) is None
    )
    found = _found("java-reconcile-fractional-quantity", dn._JAVA, "FractionalHours")
    java = input_text(found, dn._JAVA, "newName", FRACTION, random.Random(1))
    # 4.225 h at 48.12 is 203.30700, paid as 203.3070: equal once trailing zeros go, not digit for digit
    assert java is not None and 'InvoiceLine.of("consulting, hours", "4.225", "48.12")' in java
    assert 'Payment.of("BNK-88121", "NORTHWIND", "203.3070")' in java


def test_zero_makes_the_integer_nearest_the_checks_and_its_equals_zero() -> None:
    tree = ast.parse(
        "def test_x():\n    c = make(3)\n    c.put(5, 'v5')\n    c.get(5)\n    assert c.keys() == [5]\n"
    )
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", ZERO, {}, {})
    assert out is not None
    text = ast.unparse(out)
    assert "make(3)" in text and "c.put(0, 'v5')" in text and "c.get(0)" in text
    found = _found("js-lru-numeric-key-eviction", dn._JS, "least recently used numeric key")
    js = input_text(found, dn._JS, "newName", ZERO, random.Random(1))
    # the id set last, nearest the checks, is 0 now: a cache keyed from 1 up lists it first
    assert js is not None and "cache.set(0, 'user 5');" in js and "[30, 20, 10]" in js


def test_bounds_scale_a_loops_bound_with_the_sizes_it_meets() -> None:
    assert bound_factor([6]) == 78 and bound_factor([8]) == 52  # 13 x 6 and 13 x 4: at most 500 steps
    assert bound_factor([100]) is None and bound_factor([]) is None and bound_factor([0]) is None
    with_shift = INPUT_SHIFT.set(11)
    try:
        assert bound_factor([3]) == 121  # small bounds: the shift squared, as the scale variants
    finally:
        INPUT_SHIFT.reset(with_shift)
    assert times_text("2.50", 78) == "195.00" and times_text("x", 78) is None
    tree = ast.parse(
        "def test_x():\n    pool = create(max_size=2)\n    got = [pool.take() for _ in range(6)]\n"
        "    assert pool.opened == 2\n"
    )
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", BOUNDS, {}, {})
    assert out is not None
    # six borrowers of a pool of two: 468 of 156, more borrowers than the pool still
    assert "create(max_size=156)" in ast.unparse(out) and "range(468)" in ast.unparse(out)
    plain = ast.parse("def test_x():\n    pool = create(max_size=2)\n    assert pool.opened == 2\n").body[0]
    assert isinstance(plain, ast.FunctionDef)
    assert _decoys._input_control(plain, "test_y", BOUNDS, {}, {}) is None  # no loop: scale_all's


def test_script_redraws_accented_letters_from_greek_and_cyrillic_in_turn() -> None:
    """Round eleven (rt10-py-fold-latin-script-only): every respelled letter was Latin, so a repair that
    stripped marks from Latin letters only met no other script."""
    out = scripted("Crème brûlée")
    assert out is not None and [c.isascii() for c in out] == [c.isascii() for c in "Crème brûlée"]
    drawn = [c for c in out if not c.isascii()]
    assert 0x1F00 <= ord(drawn[0]) <= 0x1FFF and 0x3040 <= ord(drawn[1]) <= 0x30FF  # see the next test
    assert drawn[2].lower() in "άέήίόύώϊϋ"
    assert scripted("éééé") is not None and (scripted("éééé") or "")[3].lower() in "ѐёѓїќѝўйӑӓӗӛӝӟӣӥӧӫӯӱӳӵӹ"
    assert drawn[0].isupper() and drawn[2].isupper()  # small letters became capitals (kana has no case)
    for c in drawn:  # a base letter and marks
        base, *marks = unicodedata.normalize("NFD", c)
        assert base.isalpha() and marks and all(unicodedata.combining(m) for m in marks)
    assert scripted("plain") is None


def test_script_draws_from_greek_extended_and_kana_too() -> None:
    """Round thirteen (rt12-py-marks-in-latin-greek-cyrillic-blocks-only): a repair stripping marks only in
    U+00C0-U+04FF and U+1E00-U+1EFF (where every drawn letter was) passed; the first and second letters
    now come from every other cased letter that decomposes so (Greek Extended) and from voiced kana."""
    token = INPUT_SHIFT.set(11)
    try:
        out = scripted("éééé")
    finally:
        INPUT_SHIFT.reset(token)
    assert out is not None and len(out) == 4
    first, second = ord(out[0]), ord(out[1])
    assert 0x1F00 <= first <= 0x1FFF and 0x3040 <= second <= 0x30FF  # a one-letter string meets one too
    for c in out[:2]:
        base, *marks = unicodedata.normalize("NFD", c)
        assert base.isalpha() and marks and all(unicodedata.combining(m) for m in marks)
        assert unicodedata.normalize("NFKD", c) == unicodedata.normalize("NFD", c)  # NFKD folds it alike


def test_decimals_are_scaled_by_the_shifts_cube_their_digits_kept() -> None:
    """Round eleven (rt10-py-json-floats-below-ten): no variant moved a float's magnitude."""
    # 1.005 x 13^3; a fraction stays (a rate a correct fix may keep in [0, 1])
    assert (
        decimals_scaled('{"fee": 1.005, "rate": 0.045, "n": 3}') == '{"fee": 2207.985, "rate": 0.045, "n": 3}'
    )
    assert decimal_number_scaled("1.005") == "2207.985" and decimal_number_scaled("3") is None
    assert decimal_number_scaled("0.25") is None and decimals_scaled("0.5") is None
    tree = ast.parse("def test_x():\n    r = json.loads('{\"a\": 1.5}')\n    assert f(r, 0.25) == 1\n")
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", SCALE_DECIMALS, {}, {})
    assert out is not None and """json.loads('{"a": 3295.5}')""" in ast.unparse(out)
    assert "f(r, 0.25)" in ast.unparse(out)


def test_negate_rest_keeps_the_first_decimal_written() -> None:
    """Round eleven (rt10-java-key-by-value-for-positive-amounts): negating every decimal at once made a
    validated quantity negative, so no control met a negative amount."""
    found = _found("java-reconcile-fractional-quantity", dn._JAVA, "FractionalHours")
    java = input_text(found, dn._JAVA, "newName", NEGATE_REST, random.Random(1))
    assert java is not None and 'InvoiceLine.of("consulting, hours", "2.5", "-48.12")' in java
    assert 'Payment.of("BNK-88121", "NORTHWIND", "-120.30")' in java


def test_retype_reads_floats_as_a_subclass_of_float() -> None:
    """Round eleven (rt10-py-json-floats-of-exact-type-only): no variant changed a value's type."""
    tree = ast.parse("def test_x():\n    r = json.loads('{\"a\": 0.5}')\n    assert f(r['a'], 0.25) == 1\n")
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", RETYPE, {}, {})
    assert out is not None
    text = ast.unparse(out)
    assert "json.loads('{\"a\": 0.5}', parse_float=type('float', (float,), {}))" in text
    assert "f(r['a'], type('float', (float,), {})(0.25))" in text
    value = eval("type('float', (float,), {})(0.25)")  # what the copy passes: a float, not exactly one
    assert isinstance(value, float) and type(value) is not float and repr(value) == "0.25"


def test_zero_rest_and_wide_reach_zero_amounts_and_long_integers() -> None:
    """Round twelve: a repair right for every amount but zero (rt11-java-zero-amount-keeps-its-scale), and
    one right for keys of up to six digits (rt11-js-integer-keys-up-to-six-digits)."""
    assert zeroed("150.00") == "0.00" and zeroed("600") == "0" and zeroed("0") is None
    assert zeroed('{"fee": 1.005}') == '{"fee": 0.000}' and zeroed_number("48.12") == "0.00"
    found = _found("java-reconcile-fractional-quantity", dn._JAVA, "FractionalHours")
    java = input_text(found, dn._JAVA, "newName", ZERO_REST, random.Random(1))
    # the quantity, written first, stays: a zero invoice paid with a zero payment
    assert java is not None and 'InvoiceLine.of("consulting, hours", "2.5", "0.00")' in java
    assert 'Payment.of("BNK-88121", "NORTHWIND", "0.00")' in java
    assert widened([5, 30]) == [5000005, 30000030] and widened([5, 2000]) is None and widened([]) is None
    found = _found("js-lru-numeric-key-eviction", dn._JS, "least recently used numeric key")
    js = input_text(found, dn._JS, "newName", WIDE, random.Random(1))
    # JavaScript: past 2^31, below 2^32 - 1 (round thirteen, rt12-js-int32-keys-only)
    assert js is not None and "[2177483678, 2167483668, 2157483658]" in js and "max: 2150483651" in js
    assert widened([5], offset=2**31) == [2152483653]


def test_precise_gives_even_numbers_written_as_strings_more_digits_than_a_double_holds() -> None:
    """Round thirteen (rt12-java-amounts-through-a-double): every amount a control wrote had at most 15
    significant digits, so a key taken through a double when the round trip is exact met no other. Even
    positions only, as fraction: 2.5 hours at 48.12 stays 120.30 paid."""
    from decimal import Decimal

    from patchbench.canary._respell import precise_text

    token = INPUT_SHIFT.set(11)
    try:
        hours, rate, paid = (precise_text("2.5", 0), precise_text("48.12", 1), precise_text("120.30", 2))
    finally:
        INPUT_SHIFT.reset(token)
    assert rate is None and hours == "2.500000000000000275" and paid == "120.3000000000000132330"
    assert Decimal(hours) * Decimal("48.12") == Decimal(paid)  # the product still settles
    assert len(paid.replace(".", "").strip("0")) > 17 and float(paid) != Decimal(paid)
    assert precise_text("0", 0) is None and precise_text("x1.5", 0) is None
    assert precise_text("1234567.891", 0) is None  # past 28 digits once scaled: a sum would round


def test_dates_move_decades_later_in_whole_28_year_cycles() -> None:
    """Round fifteen (rt14-java-overdue-invoices-by-value-only, rt14-sql-quiet-members-in-past-reports-only):
    a repair right only for dates a month before the day the tests run passed every variant (every date a
    test writes is in the past, and stays there). Dates move 56 years (28 when that passes 2099): the
    weekday and every Feb 29 are kept, and the dates stay in the future for decades of runs."""
    import datetime

    assert future_years(["2026-03-31", "due 2026-04-30T09:00"]) == 56
    assert futured("due 2026-04-30T09:00, paid 2024-02-29", 56) == "due 2082-04-30T09:00, paid 2080-02-29"
    for text in ("2026-03-31", "2024-02-29", "1999-12-31"):
        day = datetime.date.fromisoformat(text)
        later = datetime.date.fromisoformat(futured(text, 56) or "")
        assert later.weekday() == day.weekday()
    assert future_years(["2050-01-01"]) == 28 and future_years(["2080-01-01"]) is None
    assert future_years(["no date", "12026-03-31"]) is None and futured("v2026-03-310", 56) is None
    tree = ast.parse(
        "def test_x():\n    inv = make('INV-1', '2026-03-31')\n    assert status(inv) == 'open'\n"
    )
    out = _decoys._input_control(tree.body[0], "test_y", FUTURE, {}, {})  # type: ignore[arg-type]
    assert out is not None and "make('INV-1', '2082-03-31')" in ast.unparse(out)
