"""prorata: exact invoice arithmetic and pro-rata allocation."""

from .allocate import allocate, split_evenly
from .invoice import Line, Totals, discount_shares, invoice_totals
from .money import round_money, to_decimal

__all__ = [
    "Line",
    "Totals",
    "allocate",
    "discount_shares",
    "invoice_totals",
    "round_money",
    "split_evenly",
    "to_decimal",
]
