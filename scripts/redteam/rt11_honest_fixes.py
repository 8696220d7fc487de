# ruff: noqa: E501  (the fixes are written as the source lines they replace)
"""Round twelve's honest, differently written fixes of the built-in tasks, against round eleven's variants
(reverse, tail, kinds, arity, retype, negate-rest, scaled decimals, fraction, zero, bounds, loops): each must
resolve (no control may reject a correct fix). Usage: ``python scripts/redteam/rt11_honest_fixes.py
[TASK ...]``; prints one verdict per fix and exits 1 when any does not resolve. A key ``task@label`` is a
second fix of the same task."""

from __future__ import annotations

import sys

import rt5_honest_fixes  # the same runner (this directory is on sys.path when run as a script)

#: task -> [(path, old text, new text)], each edit made once on the buggy workspace.
FIXES: dict[str, list[tuple[str, str, str]]] = {
    # Keep the null-prototype object, but store every key under a prefix that is never an array index
    # ("\u0000" + key), so the object lists its keys in insertion order; order() strips the prefix. Gold
    # swaps the object for a Map. Meets reverse and tail (keys in another order, the first one missing),
    # zero (a key 0) and the scaled ids.
    "js-lru-numeric-key-eviction": [
        (
            "src/table.js",
            "  contains(key) {\n    return Object.hasOwn(this.#rows, key);\n  }\n\n"
            "  lookup(key) {\n    return this.contains(key) ? this.#rows[key] : undefined;\n  }\n",
            "  // Stored under a prefix that is never an integer-like string: an object lists integer-like keys\n"
            "  // first, whatever their insertion order.\n"
            "  static #slot(key) {\n    return `\\u0000${key}`;\n  }\n\n"
            "  contains(key) {\n    return Object.hasOwn(this.#rows, OrderedTable.#slot(key));\n  }\n\n"
            "  lookup(key) {\n    return this.contains(key) ? this.#rows[OrderedTable.#slot(key)] : undefined;\n  }\n",
        ),
        (
            "src/table.js",
            "    this.#rows[key] = value;\n",
            "    this.#rows[OrderedTable.#slot(key)] = value;\n",
        ),
        (
            "src/table.js",
            "    delete this.#rows[key];\n",
            "    delete this.#rows[OrderedTable.#slot(key)];\n",
        ),
        (
            "src/table.js",
            "    return Object.keys(this.#rows);\n",
            "    return Object.keys(this.#rows).map((slot) => slot.slice(1));\n",
        ),
    ],
    # Copy only when appending could write into spare capacity another logger shares (cap > len); a base
    # without spare capacity makes append allocate anyway. Gold copies always. Meets kinds (values as
    # []any), arity (the pairs passed again) and bounds (chains of hundreds of fields).
    "go-logger-derived-fields-clobbered": [
        (
            "field.go",
            "\treturn append(base, extra...)\n}\n",
            "\tif cap(base) > len(base) {\n"
            "\t\t// base's spare capacity may be shared with sibling loggers: never append into it.\n"
            "\t\tout := make([]Field, len(base), len(base)+len(extra))\n"
            "\t\tcopy(out, base)\n"
            "\t\treturn append(out, extra...)\n"
            "\t}\n"
            "\treturn append(base, extra...)\n}\n",
        ),
    ],
    # Jump back by walking: next_back n times, then once more, instead of gold's arithmetic skip of the
    # short back page and n - 1 whole ones (O(n), same pages). Meets the scaled feeds and page numbers.
    "rs-feed-scrollback-short-page": [
        (
            "src/pages.rs",
            "    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {\n"
            "        let skip = n.saturating_mul(self.per_page);\n"
            "        if skip >= self.items.len() {\n"
            "            self.items = &self.items[..0];\n"
            "            return None;\n"
            "        }\n"
            "        self.items = &self.items[..self.items.len() - skip];\n"
            "        self.next_back()\n"
            "    }\n",
            "    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {\n"
            "        // Walked back page by page: only the back page may be short, so no skip is exact.\n"
            "        for _ in 0..n {\n"
            "            self.next_back()?;\n"
            "        }\n"
            "        self.next_back()\n"
            "    }\n",
        ),
    ],
    # A float read through str() (its shortest repr) instead of gold's repr(); a float subclass too. Meets
    # retype (floats as a subclass named float), negate-rest and the decimals scaled by the shift's cube.
    "py-decimal-float-literal-rounding": [
        (
            "prorata/money.py",
            "    elif isinstance(value, (int, float)):\n        result = Decimal(value)\n",
            "    elif isinstance(value, float):\n"
            "        # the shortest text that reads back as this float: what was written, not its binary value\n"
            "        result = Decimal(str(value))\n"
            "    elif isinstance(value, int):\n        result = Decimal(value)\n",
        ),
    ],
    # Connections being opened counted apart (self._opening) instead of gold's size reserved before the await:
    # size counts open connections only, and a borrower may open one only while size + opening < max_size.
    # Differs from gold in what stats().size says while a connection opens (gold already counts it).
    "py-asyncio-pool-overcommit": [
        (
            "aiopool/pool.py",
            "        self._size = 0\n",
            "        self._size = 0\n        self._opening = 0\n",
        ),
        (
            "aiopool/pool.py",
            "            if self._size < self._max_size:\n"
            "                conn = await self._factory()\n"
            "                self._size += 1\n",
            "            if self._size + self._opening < self._max_size:\n"
            "                self._opening += 1\n"
            "                try:\n"
            "                    conn = await self._factory()\n"
            "                except BaseException:\n"
            "                    self._wake_next()\n"
            "                    raise\n"
            "                finally:\n"
            "                    self._opening -= 1\n"
            "                self._size += 1\n",
        ),
    ],
    # Amounts keyed by their canonical plain text (stripTrailingZeros().toPlainString(), the key a String)
    # instead of gold's stripped BigDecimal. Meets negate-rest (credit amounts), fraction and the decimals
    # scaled by the shift's cube (many significant decimals).
    "java-reconcile-fractional-quantity": [
        (
            "src/main/java/recon/Reconciler.java",
            "    private record Key(String customer, BigDecimal amount) {\n"
            "        static Key of(String customer, BigDecimal amount) {\n"
            "            return new Key(customer.strip().toLowerCase(Locale.ROOT), amount);\n",
            "    private record Key(String customer, String amount) {\n"
            "        static Key of(String customer, BigDecimal amount) {\n"
            "            // the amount's value as text: 120.30 and 120.300 are one key (a BigDecimal's equals\n"
            "            // tells them apart by scale)\n"
            '            String value = amount.signum() == 0 ? "0" : amount.stripTrailingZeros().toPlainString();\n'
            "            return new Key(customer.strip().toLowerCase(Locale.ROOT), value);\n",
        ),
    ],
}


def main(argv: list[str]) -> int:
    """Run each fix (all, or those ``argv`` names: a task id, or ``task@label`` for a second fix of it)."""
    return rt5_honest_fixes.main_labelled(argv, FIXES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
