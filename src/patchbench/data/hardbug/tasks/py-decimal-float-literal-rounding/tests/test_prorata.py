"""Hidden tests for prorata."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from prorata import (
    Line,
    allocate,
    discount_shares,
    invoice_totals,
    round_money,
    split_evenly,
    to_decimal,
)


def D(*values: str) -> list[Decimal]:
    return [Decimal(v) for v in values]


class TestToDecimal:
    def test_parses_strings_ints_decimals_and_rejects_the_rest(self):
        assert to_decimal(" 1_250.50 ") == Decimal("1250.50")
        assert to_decimal(7) == Decimal(7)
        assert to_decimal(Decimal("0.1")) == Decimal("0.1")
        with pytest.raises(TypeError):
            to_decimal(True)
        with pytest.raises(ValueError):
            to_decimal(float("nan"))
        with pytest.raises(ValueError):
            to_decimal("Infinity")
        with pytest.raises(ValueError):
            to_decimal("12,50")
        with pytest.raises(TypeError):
            to_decimal([1])

    def test_json_floats_mean_what_was_written(self):
        settings = json.loads('{"rate": 0.045, "fee": 1.005, "share": 0.1}')
        assert to_decimal(settings["rate"]) == Decimal("0.045")
        assert to_decimal(settings["fee"]) == Decimal("1.005")
        assert to_decimal(settings["share"]) == Decimal("0.1")
        assert round_money(settings["fee"]) == Decimal("1.01")
        # every digit written counts, up to the 17 a double can need
        more = json.loads('{"sum": 0.30000000000000004, "total": 12345678901234.56}')
        assert to_decimal(more["sum"]) == Decimal("0.30000000000000004")
        assert to_decimal(more["total"]) == Decimal("12345678901234.56")


class TestRounding:
    def test_half_up(self):
        assert round_money("0.125") == Decimal("0.13")
        assert round_money("-0.125") == Decimal("-0.13")
        assert round_money("2.675") == Decimal("2.68")
        assert round_money("0.124999") == Decimal("0.12")
        assert round_money(3, places=0) == Decimal("3")

    def test_string_rate_tax_rounds_half_up(self):
        assert Line("widget", 1, "1.00", "0.045").tax() == Decimal("0.05")
        assert Line("widget", 2, "0.25", "0.25").tax() == Decimal("0.13")


def test_tax_rate_loaded_from_json_rounds_half_up():
    rates = json.loads('{"standard": 0.045, "reduced": 0.15}')
    assert Line("sticker", 1, "1.00", rates["standard"]).tax() == Decimal("0.05")
    assert Line("pencil", 1, "0.10", rates["reduced"]).tax() == Decimal("0.02")


@pytest.mark.parametrize(
    ("amount", "weights", "expected"),
    [
        ("100.00", [1, 1, 1], D("33.34", "33.33", "33.33")),
        ("-100.00", [1, 1, 1], D("-33.34", "-33.33", "-33.33")),
        ("1.00", [4, "1", Decimal(1)], D("0.67", "0.17", "0.16")),
        ("0.10", [0.35, 0.65], D("0.04", "0.06")),
    ],
    ids=["thirds", "refund-thirds", "ties-go-first", "json-float-weights"],
)
def test_allocate(amount, weights, expected):
    shares = allocate(amount, weights)
    assert shares == expected
    assert sum(shares, Decimal(0)) == round_money(amount)


def test_allocate_rejects_bad_weights():
    with pytest.raises(ValueError):
        allocate("1.00", [])
    with pytest.raises(ValueError):
        allocate("1.00", [0, 0])
    with pytest.raises(ValueError):
        allocate("1.00", [2, -1])
    with pytest.raises(ValueError):
        split_evenly("1.00", 0)


def test_split_evenly_differs_by_at_most_one_cent():
    shares = split_evenly("10.00", 7)
    assert sum(shares) == Decimal("10.00")
    assert max(shares) - min(shares) == Decimal("0.01")
    assert shares[0] == Decimal("1.43")


def test_invoice_totals_and_discount():
    lines = [
        Line("consulting", "3", "120.00", "0.2"),
        Line("travel", "1", "45.55", "0"),
        Line("licence", "2", "19.99", "0.2"),
    ]
    totals = invoice_totals(lines)
    assert totals.net == Decimal("445.53")
    assert totals.tax == Decimal("80.00")
    assert totals.gross == Decimal("525.53")
    shares = discount_shares(lines, "10.00")
    assert sum(shares) == Decimal("10.00")
    assert shares == D("8.08", "1.02", "0.90")
