"""Turning user input into exact ``Decimal`` values, and rounding money."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

Number = Decimal | int | str | float


def to_decimal(value: Number) -> Decimal:
    """Interpret ``value`` as a decimal number.

    ``Decimal`` and ``int`` values are used as they are; strings are parsed
    (surrounding whitespace and ``_`` digit separators are allowed); floats,
    which is what our JSON settings produce, are accepted as well.

    Raises:
        TypeError: for booleans and unsupported types.
        ValueError: for unparsable strings, NaN and infinities.
    """
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number here")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, (int, float)):
        result = Decimal(value)
    elif isinstance(value, str):
        try:
            result = Decimal(value.strip().replace("_", ""))
        except InvalidOperation:
            raise ValueError(f"not a number: {value!r}") from None
    else:
        raise TypeError(f"unsupported type {type(value).__name__}")
    if not result.is_finite():
        raise ValueError(f"not a finite number: {value!r}")
    return result


def quantum(places: int = 2) -> Decimal:
    """The smallest money step for ``places`` decimal places (``0.01`` for 2)."""
    return Decimal(1).scaleb(-places)


def round_money(value: Number, places: int = 2) -> Decimal:
    """Round to ``places`` decimal places, halves away from zero."""
    return to_decimal(value).quantize(quantum(places), rounding=ROUND_HALF_UP)
