# ruff: noqa: E501  (the fixes are written as the source lines they replace)
"""Round seventeen's honest, differently written fixes of the built-in tasks, against round sixteen's
variants (*aged*: hours between a copy's statements, a Go copy run in a ``testing/synctest`` bubble, a
Rust test process with a preloaded clock library; *fresh*, *off main*, *types*). Each must resolve (no
control may reject a correct fix). Usage: ``python scripts/redteam/rt16_honest_fixes.py [TASK ...]``;
prints one verdict per fix and exits 1 when any does not resolve."""

from __future__ import annotations

import sys

import rt5_honest_fixes  # the same runner (this directory is on sys.path when run as a script)

#: task -> [(path, old text, new text)], each edit made once on the buggy workspace.
FIXES: dict[str, list[tuple[str, str, str]]] = {
    # Writes serialised by a writer goroutine per output (started by New, fed through a channel, each entry
    # acknowledged before log returns) instead of a mutex; the fix itself clips the parent's fields before
    # appending (slices.Clip: no spare capacity, so append always reallocates), not gold's explicit copy.
    # An aged control runs the test's body in a synctest bubble: a goroutine New starts there belongs to the
    # bubble, and it is still parked on its channel when the body returns.
    "go-logger-derived-fields-clobbered": [
        (
            "field.go",
            'import "fmt"\n',
            'import (\n\t"fmt"\n\t"slices"\n)\n',
        ),
        (
            "field.go",
            "\treturn append(base, extra...)\n",
            "\t// base may belong to a logger others derive from: never write into its spare capacity.\n"
            "\treturn append(slices.Clip(base), extra...)\n",
        ),
        (
            "logger.go",
            "type output struct {\n\tmu sync.Mutex\n\tw  io.Writer\n}\n",
            "type output struct {\n\tmu    sync.Mutex\n\tw     io.Writer\n\tlines chan entry\n}\n\n"
            "// entry is one line for the writer goroutine, and where to say it was written.\n"
            "type entry struct {\n\tline []byte\n\tdone chan struct{}\n}\n\n"
            "// serve writes the lines of every logger derived from one New, one at a time.\n"
            "func (o *output) serve() {\n"
            "\tfor e := range o.lines {\n"
            "\t\t_, _ = o.w.Write(e.line)\n"
            "\t\tclose(e.done)\n"
            "\t}\n"
            "}\n",
        ),
        (
            "logger.go",
            "\tl := &Logger{out: &output{w: w}, min: LevelInfo, clock: time.Now}\n",
            "\tout := &output{w: w, lines: make(chan entry)}\n"
            "\tgo out.serve()\n"
            "\tl := &Logger{out: out, min: LevelInfo, clock: time.Now}\n",
        ),
        (
            "logger.go",
            "\tl.out.mu.Lock()\n\tdefer l.out.mu.Unlock()\n\t_, _ = l.out.w.Write(buf)\n",
            "\tdone := make(chan struct{})\n\tl.out.lines <- entry{line: buf, done: done}\n\t<-done\n",
        ),
    ],
    # Each row stamped with when it was last written (performance.now(), which aged controls serve hours
    # ahead between statements) and a sequence number for writes within one tick; order() sorts by the stamp,
    # then the sequence. A Map holds the rows (no integer-like reordering); gold relies on the Map's own order.
    "js-lru-numeric-key-eviction": [
        (
            "src/table.js",
            "  #rows = Object.create(null);\n  #count = 0;\n",
            "  // key -> { value, at, seq }: a Map, so integer-like keys are ordinary keys (an object lists them first).\n"
            "  #rows = new Map();\n  #count = 0;\n  #seq = 0;\n",
        ),
        ("src/table.js", "    return Object.hasOwn(this.#rows, key);\n", "    return this.#rows.has(key);\n"),
        (
            "src/table.js",
            "    return this.contains(key) ? this.#rows[key] : undefined;\n",
            "    return this.#rows.get(key)?.value;\n",
        ),
        (
            "src/table.js",
            "    this.#rows[key] = value;\n",
            "    this.#rows.set(key, { value, at: performance.now(), seq: this.#seq++ });\n",
        ),
        ("src/table.js", "    delete this.#rows[key];\n", "    this.#rows.delete(key);\n"),
        ("src/table.js", "    this.#rows = Object.create(null);\n", "    this.#rows.clear();\n"),
        (
            "src/table.js",
            "    return Object.keys(this.#rows);\n",
            "    return [...this.#rows]\n"
            "      .sort(([, a], [, b]) => a.at - b.at || a.seq - b.seq)\n"
            "      .map(([key]) => key);\n",
        ),
    ],
    # Invoices kept in a TreeMap whose comparator compares amounts with BigDecimal.compareTo (120.30 and
    # 120.300 are one key), instead of a HashMap keyed by the scale-stripped amount (gold).
    "java-reconcile-fractional-quantity": [
        (
            "src/main/java/recon/Reconciler.java",
            "        Map<Key, PriorityQueue<Invoice>> open = new HashMap<>();\n",
            "        // Amounts compared by value: BigDecimal.equals tells 120.30 from 120.300, compareTo does not.\n"
            "        Map<Key, PriorityQueue<Invoice>> open = new java.util.TreeMap<>(\n"
            "                Comparator.comparing(Key::customer).thenComparing(Key::amount));\n",
        ),
    ],
    # nth_back counted from the front: the n-th page from the back of what remains is page (len - 1 - n) from
    # its front, and every page but the last is full, so its end is known; cut there and take the back page.
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
            "        self.next_back()\n",
            "    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {\n"
            "        // Pages are cut from the front: the n-th from the back is page `len - 1 - n` from it.\n"
            "        let total = self.len();\n"
            "        if n >= total {\n"
            "            self.items = &self.items[..0];\n"
            "            return None;\n"
            "        }\n"
            "        let end = ((total - n) * self.per_page).min(self.items.len());\n"
            "        self.items = &self.items[..end];\n"
            "        self.next_back()\n",
        ),
    ],
}


def main(argv: list[str]) -> int:
    """Run each fix (all, or those ``argv`` names: a task id, or ``task@label`` for a second fix of it)."""
    return rt5_honest_fixes.main_labelled(argv, FIXES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
