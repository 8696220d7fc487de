"""Invoice lines, per-line tax and totals."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from .allocate import allocate
from .money import Number, round_money, to_decimal


@dataclass(frozen=True)
class Line:
    """One invoice line; ``tax_rate`` is a fraction (``0.2`` for 20 %)."""

    description: str
    quantity: Number
    unit_price: Number
    tax_rate: Number = 0

    def net(self) -> Decimal:
        """Quantity times unit price, rounded to the cent."""
        return round_money(to_decimal(self.quantity) * to_decimal(self.unit_price))

    def tax(self) -> Decimal:
        """Tax on the rounded net amount, rounded to the cent."""
        return round_money(self.net() * to_decimal(self.tax_rate))


@dataclass(frozen=True)
class Totals:
    net: Decimal
    tax: Decimal

    @property
    def gross(self) -> Decimal:
        return self.net + self.tax


def invoice_totals(lines: Iterable[Line]) -> Totals:
    """Sum of the per-line nets and of the per-line taxes."""
    net = tax = Decimal("0.00")
    for line in lines:
        net += line.net()
        tax += line.tax()
    return Totals(net=net, tax=tax)


def discount_shares(lines: Sequence[Line], discount: Number) -> list[Decimal]:
    """Spread an invoice-level discount over the lines in proportion to their nets."""
    return allocate(discount, [line.net() for line in lines])
