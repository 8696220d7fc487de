"""Largest-remainder allocation of money in whole minor units."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal, localcontext

from .money import Number, quantum, round_money, to_decimal


def _largest_remainder(units: int, weights: Sequence[Decimal], total: Decimal) -> list[int]:
    """Split ``units`` (>= 0) proportionally to ``weights`` (sum ``total``)."""
    with localcontext() as ctx:
        ctx.prec = 200  # products and remainders below stay exact at this precision
        products = [units * w for w in weights]
        shares = [int(p // total) for p in products]
        rests = [p - s * total for p, s in zip(products, shares, strict=False)]
    leftover = units - sum(shares)
    # sorted() is stable, also with reverse=True: equal remainders keep their order.
    for i in sorted(range(len(shares)), key=lambda i: rests[i], reverse=True)[:leftover]:
        shares[i] += 1
    return shares


def allocate(amount: Number, weights: Sequence[Number], places: int = 2) -> list[Decimal]:
    """Split ``amount`` into ``len(weights)`` shares proportional to ``weights``.

    The shares are whole multiples of the minor unit and sum exactly to
    ``amount`` rounded to ``places``. See the README for the tie-breaking rule.

    Raises:
        ValueError: no weights, a negative weight, or weights summing to zero.
    """
    ws = [to_decimal(w) for w in weights]
    if not ws:
        raise ValueError("at least one weight is needed")
    if any(w < 0 for w in ws):
        raise ValueError("weights must not be negative")
    total = sum(ws, Decimal(0))
    if total == 0:
        raise ValueError("weights must not all be zero")
    step = quantum(places)
    units = int(round_money(amount, places) / step)
    sign = -1 if units < 0 else 1
    shares = _largest_remainder(abs(units), ws, total)
    return [(sign * s) * step for s in shares]


def split_evenly(amount: Number, parts: int, places: int = 2) -> list[Decimal]:
    """Split ``amount`` into ``parts`` shares that differ by at most one minor unit."""
    if parts < 1:
        raise ValueError("parts must be at least 1")
    return allocate(amount, [1] * parts, places)
