"""Two more several-literal moves, shared by every language: literals *respelled* and integers *scaled*.

Round eight's partial repairs were correct on a set the other moves never leave: amounts with at most three
decimals (a shift changes digits, never how many), the accented letters the listed tests use (a word move
appends an ``x``), ids below 1000 and jumps of at most six pages (integers only ever moved up by the shift,
and all of them alike, so a feed's length and its page size grow together).

- **respell** (:data:`RESPELL`): a decimal written as a string gains a trailing zero (``"120.30"`` ->
  ``"120.300"``: the same value, written with another scale), and every non-ASCII letter of a string is
  replaced by an accented Latin letter of Latin Extended-B or Extended Additional (drawn from the secret
  shift; ``"café"`` -> ``"cafạ"``);
- **scale** (:data:`SCALE`): every other integer (the first, the third, ... in the order they are written)
  multiplied by the square of the secret shift (49 to 3481: prime to 2, 3 and 5, so a multiple of the
  page size stays one only if it was one, and a short page stays short): the others stay, so sizes grow
  apart (a feed of 1690 entries by 4, not 23 by 17), and values leave any bound a repair could draw around
  the listed ones short of a real fix.

The variants are calibrated like every other (gold twice, stable, comparable, not the buggy code's value).
"""

from __future__ import annotations

import re

from ._probing import INPUT_SHIFT

#: Accented Latin letters a non-ASCII letter may become (lower case; upper case where it has one).
_NEAR = "àáâãäåçèéêëìíîïñòóôõöùúûüýÿāăąćĉċčďēĕėęěĝğġģĥĩīĭįĵķĺļľńņňōŏőŕŗřśŝşšţťũūŭůűųŵŷźżž"  # Latin-1, Ext-A
#: What a letter becomes: Latin Extended-B (Romanian ș ț among them) and Extended Additional (Vietnamese),
#: beyond the blocks most text (and a repair keyed on the listed letters' block) knows (round nine).
_ACCENTED = "ǎǐǒǔǖǘǚǜǟǧǩǫǰǵǹȁȃȅȇȉȋȍȏȑȓȕȗșțȟȧȩȯȳạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ"
_DECIMAL = re.compile(r"^(-?[0-9]+\.[0-9]+)$")


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
            new = _ACCENTED[(at + shift) % len(_ACCENTED)]
            if new == low:
                new = _ACCENTED[(_ACCENTED.find(new) + 1) % len(_ACCENTED)]
            out.append(new.upper() if c.isupper() and len(new.upper()) == 1 else new)
        else:
            out.append(c)
    moved = "".join(out)
    return moved if moved != body else None


#: Which integers a scale variant multiplies, by their position in the order written: the even ones, the
#: odd ones, or all (round nine: scaling only even positions always left `Lot(sku, units, cost)`'s cost
#: and a feed's page size where they were).
PARITIES = ("even", "odd", "all")


def scaled(value: int, position: int, parity: str = "even") -> int | None:
    """The ``position``-th integer of a test (in the order written) scaled, or None when it stays."""
    if value == 0 or (parity == "even" and position % 2) or (parity == "odd" and not position % 2):
        return None
    return value * INPUT_SHIFT.get() ** 2
