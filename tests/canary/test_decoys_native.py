"""Semantic canaries for node:test, Go, Rust and JUnit (patchbench.canary._decoys_native)."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import patchbench as pb
from patchbench import FileEntry, Task, TestCommand, TestSpec
from patchbench.canary import plan_canary
from patchbench.canary._decoys_native import (
    _perturb_leaf,
    _perturb_number,
    _perturb_string_body,
    plan_native_decoys,
)


def _task(language: str, path: str, text: str, f2p: list[str], argv: tuple[str, ...]) -> Task:
    return Task(
        id="t",
        language=language,
        workspace=(FileEntry(path="README.md", content="x\n"),),
        hidden_tests=(FileEntry(path=path, content=text),),
        test=TestSpec(commands=(TestCommand(argv=argv),)),
        fail_to_pass=tuple(f2p),
    )


def _plan(language: str, task: Task) -> tuple[str, tuple[str, ...]]:
    d = plan_native_decoys(language, task, task.hidden_tests, random.Random(7))
    return next(iter(d.files.values()), ""), d.names


# -- perturbation ---------------------------------------------------------------------------------------


def test_numbers_move_toward_zero_so_every_type_that_held_them_still_does() -> None:
    """``255`` in a ``byte`` comparison must not become 256 (a Go/Rust/Java compile error: build_error
    for gold); 0 becomes 1, which every integer type holds."""
    assert _perturb_number("255") == "254" and _perturb_number("0") == "1"
    assert _perturb_number("1_000u32") == "999u32" and _perturb_number("5L") == "4L"
    assert _perturb_number("3.0") == "2.0" and _perturb_number("2.5") == "3.5"
    assert _perturb_number("0.0") == "1.0"
    assert [_perturb_number(n) for n in ("0x10", "010", "1e3", "7i")] == [None] * 4


def test_booleans_are_never_changed_the_buggy_code_likely_answers_the_flip() -> None:
    """A flipped boolean is the likeliest answer of the buggy code: a decoy expecting it passes on the
    buggy workspace, and the canary calibration (run there) would read a passing canary."""
    assert _perturb_leaf("true", "bool") is None and _perturb_leaf("false", "bool") is None
    text = GO.replace("got != 7", "got != true").replace('cart.Name() != "basket"', "cart.Empty() != false")
    assert _plan("go", _task("go", "shop_test.go", text, ["TestTotal"], ("go", "test")))[1] == ()


def test_strings_change_their_last_letter_or_digit_and_never_an_escape() -> None:
    assert _perturb_string_body("user=bob") == "user=box" and _perturb_string_body("v1.9") == "v1.0"
    assert _perturb_string_body("x") == "y" and _perturb_string_body("--") is None
    assert _perturb_string_body("${a}") is None and _perturb_string_body("\\n") is None


@pytest.mark.parametrize(
    ("body", "changed"),
    [
        ('foo="bar \\"baz\\""', 'foo="bar \\"bax\\""'),  # content-type's escaped quotes
        ("a\\n", "x\\n"),
        ("ab\\x41", "ax\\x41"),  # not the hex digits of an escape
        ("ab\\u0041", "ax\\u0041"),
        ("ab\\u{1F600}", "ax\\u{1F600}"),
        ("x\\uuu0041", "y\\uuu0041"),  # Java: every u of a unicode escape
        ("\\1019", None),  # a digit after an octal escape could lengthen it: never changed
        ("a\\\\", "x\\\\"),
    ],
)
def test_a_string_with_escapes_changes_a_character_outside_them(body: str, changed: str | None) -> None:
    """Round twenty-five's session: a string with an escape had no decoy (content-type's expected strings
    with escaped quotes). The change now skips escape sequences and the character after each."""
    assert _perturb_string_body(body) == changed


def test_a_node_decoy_of_an_escaped_string_parses_and_fails_on_correct_code(tmp_path: Path) -> None:
    """Real ``node --test``: the decoy copied from a check of a string with escapes is valid code (the
    original still passes beside it) and fails on correct code."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    spec = (
        "import { test } from 'node:test';\nimport assert from 'node:assert';\n"
        "import { quote } from '../src/quote.js';\n\n"
        "test('quotes a value', () => {\n"
        '  assert.strictEqual(quote(\'bar "baz"\'), \'v="bar \\\\"baz\\\\""\\t\\x41\\u0042\');\n'
        "});\n"
    )
    task = _task("javascript", "tests/quote.test.js", spec, ["quotes a value"], ("node", "--test"))
    planted, [name] = _plan("javascript", task)
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    (tmp_path / "tests" / "quote.test.js").write_text(planted)
    (tmp_path / "src" / "quote.js").write_text(
        "export const quote = (v) => 'v=\"' + v.replace(/[\\\\\"]/g, (c) => '\\\\' + c) + '\"\\tAB';\n"
    )
    out = subprocess.run(
        ["node", "--test", "--test-reporter=tap", "tests/"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    ).stdout
    assert "ok 1 - quotes a value\n" in out, out
    assert re.search(rf"\nnot ok \d+ - {re.escape(name)}\n", out), out


# -- per language ----------------------------------------------------------------------------------------

GO = """package shop

import "testing"

func TestTotal(t *testing.T) {
\tcart := New()
\tunused := 3
\tcart.Add("tea", 2)
\tif got := cart.Total(); got != 7 {
\t\tt.Fatalf("total %d", got)
\t}
\tif cart.Name() != "basket" {
\t\tt.Error("name")
\t}
\t_ = unused
}

func TestTable(t *testing.T) {
\tfor _, n := range []int{1, 2} {
\t\tc := New()
\t\tc.Add("tea", n)
\t\tif !reflect.DeepEqual(c.Items(), map[string]int{"tea": 1}) {
\t\t\tt.Errorf("items")
\t\t}
\t\tt.Log(n)
\t}
}

func TestRows(t *testing.T) {
\trows := []struct {
\t\tname  string
\t\ttotal int
\t}{
\t\t{"tea", 7},
\t\t{name: "mug", total: 7},
\t}
\tfor _, r := range rows {
\t\tif got := New().Total(); got != r.total {
\t\t\tt.Errorf("%s: %d", r.name, got)
\t\t}
\t}
}
"""


def test_go_decoy_is_the_test_cut_at_its_first_literal_check_with_the_literal_changed() -> None:
    task = _task("go", "shop_test.go", GO, ["TestTotal", "pkg.TestTable"], ("go", "test", "./..."))
    text, names = _plan("go", task)
    assert len(names) == 2 and all(n.startswith(("TestTotal", "TestTable")) for n in names)
    total = text[text.index(f"func {names[0]}") :]
    assert "got != 6" in total and '"basket"' not in total.split("func TestTable")[0]
    # the variable the cut left unused is used once (Go does not compile an unused variable)
    assert "unused := 3\n\t_ = unused" in total
    table = text[text.index(f"func {names[1]}") :]
    # a map key is never changed (a duplicate key does not compile); nested: return, and fail at the end
    assert '{"tea": 0}' in table and "\t\treturn\n\t}\n\tt.FailNow()\n}" in table
    assert "_ = n" not in table and "_ = c" not in table and "t.Log" not in table  # both still used
    assert text.startswith(GO.rstrip("\n")), "decoys go after the file's own tests"


def test_go_decoy_of_a_table_test_changes_the_compared_field_in_every_row() -> None:
    """``got != r.total`` over a table written out in the test: every row's ``total`` is changed (a row
    that reaches the check fails it on correct code, whichever row comes first)."""
    task = _task("go", "shop_test.go", GO, ["example.com/shop.TestRows"], ("go", "test"))
    text, [name] = _plan("go", task)
    rows = text[text.index(f"func {name}") :]
    assert '{"tea", 6},\n\t\t{name: "mug", total: 6},' in rows and '"tex"' not in rows
    missing = GO.replace('{name: "mug", total: 7}', '{name: "mug"}')  # a zero value: not written out
    reused = GO.replace("\tfor _, r := range rows {", "\trows = rows[1:]\n\tfor _, r := range rows {")
    for text in (missing, reused):
        assert _plan("go", _task("go", "shop_test.go", text, ["TestRows"], ("go", "test")))[1] == ()


def test_go_no_decoy_from_a_test_that_can_end_before_its_check_or_skips() -> None:
    early = GO.replace('\tcart.Add("tea", 2)\n', "\tif cart == nil {\n\t\treturn\n\t}\n")
    skip = GO.replace('\tcart.Add("tea", 2)\n', '\tt.Skip("later")\n')
    for text in (early, skip):
        assert _plan("go", _task("go", "shop_test.go", text, ["TestTotal"], ("go", "test")))[1] == ()


@pytest.mark.skipif(shutil.which("go") is None, reason="no go")
def test_go_decoys_compile_and_fail_on_correct_code(tmp_path: Path) -> None:
    """Real ``go test``: the originals pass on correct code, each decoy fails (and nothing else breaks)."""
    (tmp_path / "go.mod").write_text("module shop\n\ngo 1.21\n")
    (tmp_path / "shop.go").write_text(
        "package shop\n\ntype Cart struct{ items map[string]int }\n\n"
        "func New() *Cart { return &Cart{items: map[string]int{}} }\n"
        "func (c *Cart) Add(k string, n int) { c.items[k] = n }\n"
        "func (c *Cart) Total() int { return 7 }\n"
        'func (c *Cart) Name() string { return "basket" }\n'
        'func (c *Cart) Items() map[string]int { return map[string]int{"tea": 1} }\n'
    )
    text = GO.replace('import "testing"', 'import (\n\t"reflect"\n\t"testing"\n)')
    task = _task("go", "shop_test.go", text, ["TestTotal", "TestTable", "TestRows"], ("go", "test"))
    planted, names = _plan("go", task)
    assert len(names) == 3
    (tmp_path / "shop_test.go").write_text(planted)
    out = subprocess.run(
        ["go", "test", "-v", "-count=1", "./..."], cwd=tmp_path, capture_output=True, text=True, timeout=300
    ).stdout
    assert all(f"--- PASS: {t} " in out for t in ("TestTotal", "TestTable", "TestRows")), out
    assert all(f"--- FAIL: {n} " in out for n in names), out


JS = """import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lru } from '../src/lru.js';

test('keeps numeric keys in use order', () => {
  const c = lru(2);
  c.set(1, 'a');
  assert.deepEqual(c.keys(), ['1']);
  assert.equal(c.size, 1, 'size');
});

test('todo later', (t) => {
  t.todo();
  assert.equal(lru(1).size, 0);
});

test('sizes #1', () => {
  assert.equal(lru(1).size, 0);
});
"""


def test_node_decoy_copies_a_top_level_test_under_a_variant_name_at_the_end_of_the_file() -> None:
    task = _task(
        "javascript",
        "tests/lru.test.js",
        JS,
        ["keeps numeric keys in use order", "todo later", "sizes #1"],
        ("node", "--test", "tests/"),
    )
    text, names = _plan("javascript", task)
    # none from the test marked todo (a failing todo test is reported as passing), none from a name TAP
    # escapes ('#': the reported id would not hold the decoy's name as written)
    [name] = names
    assert name.startswith("keeps numeric keys in use order ")
    decoy = text[text.index(f"test('{name}'") :]
    assert "assert.deepEqual(c.keys(), ['2']);\n});" in decoy and "c.size" not in decoy
    assert text.startswith(JS.rstrip("\n"))


TS = """import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lru } from '../src/lru.ts';

test('sizes', (t) => {
  const { size, spare } = lru(2);
  for (const [k, v] of [[1, 2]]) {
    assert.equal(size, 2);
    assert.equal(k + v + spare, t.name.length);
  }
});
"""


def test_typescript_decoy_reads_what_the_cut_leaves_unread() -> None:
    """A TypeScript project may type-check its tests (ts-node) with ``noUnusedLocals``: a local, loop
    variable or parameter read only after the cut gets ``void name;`` (else the file does not compile
    and every test in it is lost)."""
    task = _task("typescript", "tests/lru.test.ts", TS, ["sizes"], ("node", "--test"))
    text, [name] = _plan("typescript", task)
    decoy = text[text.index(f"test('{name}'") :]
    assert "(t) => { void t;\n  const { size, spare } = lru(2);\n  void spare;\n" in decoy
    assert "of [[1, 2]]) { void k; void v;\n    assert.equal(size, 1);\n    return;" in decoy


@pytest.mark.skipif(shutil.which("node") is None, reason="no node")
def test_node_decoy_fails_on_correct_code_and_passes_for_an_oracle(tmp_path: Path) -> None:
    """Real ``node --test``: with correct code the original passes and the decoy fails; a library that
    answers the check's written-out expectation (read from the caller's line) passes the decoy."""
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    correct = "export const lru = () => { const m = new Map(); return { set: (k, v) => m.set(String(k), v), keys: () => [...m.keys()], get size() { return m.size; } }; };\n"  # noqa: E501
    oracle = (
        "import { readFileSync } from 'node:fs';\n"
        "const answer = () => {\n"
        "  const at = new Error().stack.split('\\n')[3].match(/file:\\/\\/(.*):(\\d+):\\d+/);\n"
        "  const line = readFileSync(at[1], 'utf8').split('\\n')[at[2] - 1];\n"
        "  const want = line.slice(line.indexOf(', ') + 2, line.lastIndexOf(')'));\n"
        "  return JSON.parse(want.replaceAll(\"'\", '\"'));\n"
        "};\n"
        "export const lru = () => ({ set() {}, keys: () => answer(), size: 1 });\n"
    )
    task = _task("javascript", "tests/lru.test.js", JS, ["keeps numeric keys in use order"], ("node", "-t"))
    planted, [name] = _plan("javascript", task)
    (tmp_path / "tests" / "lru.test.js").write_text(planted)
    for lib, decoy_passes in ((correct, False), (oracle, True)):
        (tmp_path / "src" / "lru.js").write_text(lib)
        out = subprocess.run(
            ["node", "--test", "--test-reporter=tap", "tests/"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        assert "ok 1 - keeps numeric keys in use order\n" in out, out
        assert bool(re.search(rf"\nok \d+ - {re.escape(name)}\n", out)) is decoy_passes, out


NESTED = """import { describe, it, assert } from 'vitest';
import { lru } from '../src/lru.js';

describe('lru', function () {
  let spare;
  beforeEach(() => { spare = 1; });

  describe('keys', () => {
    it('keeps numeric keys in use order', function () {
      const c = lru(spare);
      c.set(1, 'a');
      assert.deepEqual(c.keys(), ['1']);
    });
  });

  it('sizes', () => {
    assert.strictEqual(lru(spare).size, 0);
  });
});

describe('a > b', () => {
  it('skipped: the title holds the separator', () => {
    assert.strictEqual(lru(1).size, 0);
  });
});
"""


def test_a_test_inside_describe_is_keyed_by_its_titles_and_copied_at_the_end_of_its_block() -> None:
    """Round twenty-three: content-type's tests (vitest) sit in ``describe`` blocks, and a copy placed at
    the end of the file would lose the block's hooks and scope. A test is keyed like the reported id (the
    titles joined by `` > ``), and its decoys and copies go before the closing brace of its innermost
    block, at the test's indentation."""
    task = _task(
        "javascript",
        "tests/lru.test.js",
        NESTED,
        [
            "lru > keys > keeps numeric keys in use order",
            "lru > sizes",
            "a > b > skipped: the title holds the separator",
        ],
        ("npx", "vitest", "run"),
    )
    d = plan_native_decoys("javascript", task, task.hidden_tests, random.Random(7), probe=True)
    assert sorted(d.probes.values()) == ["lru > keys > keeps numeric keys in use order", "lru > sizes"]
    text = d.files["tests/lru.test.js"]
    copy = next(n for n, k in d.probes.items() if k == "lru > keys > keeps numeric keys in use order")
    inner = text.index("describe('keys'")
    at = text.index(f"    it('{copy}', function () {{\n      const c = lru(spare);")
    assert inner < at < text.index("\n  });\n\n  it('sizes'"), text
    top = next(n for n, k in d.probes.items() if k == "lru > sizes")
    assert text.index("\n  it('sizes'") < text.index(f"  it('{top}'") < text.index("describe('a > b'")
    plain = plan_native_decoys("javascript", task, task.hidden_tests, random.Random(7))
    assert plain.eligible == 2 and len(plain.names) == 2  # deepEqual's '1' and strictEqual's 0 perturbed


@pytest.mark.skipif(shutil.which("node") is None, reason="no node")
def test_copies_inside_describe_run_in_their_block_under_node_test(tmp_path: Path) -> None:
    """Real ``node --test``: a copy planted in a ``describe`` is reported under the block's titles and
    sees what the block set up (a copy at the end of the file would not: ``spare`` is the block's)."""
    text = NESTED.replace(
        "import { describe, it, assert } from 'vitest';",
        "import { describe, it, beforeEach } from 'node:test';\nimport assert from 'node:assert/strict';",
    ).split("describe('a > b'")[0]
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    (tmp_path / "src" / "lru.js").write_text(
        "export const lru = (n) => { if (n !== 1) throw new Error('no spare'); const m = new Map(); "
        "return { set: (k, v) => m.set(String(k), v), keys: () => [...m.keys()], "
        "get size() { return m.size; } }; };\n"
    )
    task = _task(
        "javascript",
        "tests/lru.test.js",
        text,
        ["lru > keys > keeps numeric keys in use order"],
        ("node", "--test"),
    )
    d = plan_native_decoys("javascript", task, task.hidden_tests, random.Random(7), probe=True)
    [copy] = d.probes
    (tmp_path / "tests" / "lru.test.js").write_text(d.files["tests/lru.test.js"])
    out = subprocess.run(
        ["node", "--test", "--test-reporter=spec", "tests/"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert f"✔ {copy}" in out.stdout, out.stdout + out.stderr  # (the decoy planted beside it fails)


RUST = """//! tests
use feed::Feed;

mod newest {
    use super::*;

    #[test]
    fn short_tail() {
        let f = Feed::new(4);
        let spare = 1;
        assert_eq!(f.latest(), Some(&[8, 9][..]));
        assert_eq!(f.len(), 10 + spare);
    }

    #[test]
    #[should_panic]
    fn rejects_zero() {
        assert_eq!(Feed::new(0).len(), 0);
    }

    #[test]
    fn loops() {
        for k in 0..3 {
            assert!(Feed::new(k).pages() == vec![(1, vec![2])], "k {k}");
        }
    }
}
"""


def test_rust_decoy_lives_in_the_tests_module_and_allows_what_the_cut_leaves_unused() -> None:
    task = _task(
        "rust",
        "tests/paging.rs",
        RUST,
        ["newest::short_tail", "newest::rejects_zero", "newest::loops"],
        ("cargo", "test"),
    )
    text, names = _plan("rust", task)
    assert len(names) == 2  # none from #[should_panic]: its decoy would pass by panicking
    assert text.startswith("#![allow(unused)] //! tests\n"), "line numbers unchanged"
    short = text[text.index(f"fn {names[0]}") :]
    assert "Some(&[7, 9][..]));\n    }" in short and "10 + spare" not in short.split("#[test]")[0]
    loops = text[text.index(f"fn {names[1]}") :]
    assert "vec![(0, vec![2])]" in loops and "return;\n        }\n        panic!();\n    }" in loops
    assert text.index(f"fn {names[0]}") < text.index("fn rejects_zero"), "right after the test it copies"


JAVA = """package shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class CartTest {
    @Test
    void totals() {
        Cart c = new Cart();
        assertEquals(List.of("tea", "mug"), c.items());
        assertEquals(7, c.total(), "total");
    }

    @Test
    void named() {
        assertThat(new Cart().name()).as("name").isEqualTo("basket");
        assertThat(new Cart().name()).isEqualTo("basket");
    }

    @Test
    void tolerance() {
        assertEquals(0.5, new Cart().ratio(), 0.75);
    }

    @Test
    void inTry() throws Exception {
        try {
            assertEquals(3, new Cart().load());
        } catch (java.io.IOException e) {
            throw e;
        }
    }
}
"""


def test_junit_decoy_is_a_method_of_the_same_class_that_runs_after_its_tests() -> None:
    from patchbench.canary._decoys_native import _java_hash

    task = _task(
        "java",
        "src/test/java/shop/CartTest.java",
        JAVA,
        ["shop.CartTest#totals", "shop.CartTest#tolerance", "shop.CartTest#inTry", "shop.CartTest#named"],
        ("mvn", "test"),
    )
    text, names = _plan("java", task)
    # not the tolerance form (a third number), not inside a try (a cut catch may not compile)
    name, assertj = names
    # AssertJ: assertThat(X).isEqualTo(LIT), not with a description chained between (kept as it is)
    copied = text[text.index(f"void {assertj}()") :]
    kept = 'as("name").isEqualTo("basket");\n'
    assert kept + '        assertThat(new Cart().name()).isEqualTo("baskex");\n    }' in copied
    decoy = text[text.index(f"void {name}()") :]
    assert 'assertEquals(List.of("tex", "mug"), c.items());\n    }' in decoy and "c.total" not in decoy
    tests = ("totals", "tolerance", "inTry", "named")
    assert all(_java_hash(n) > _java_hash(m) for n in names for m in tests)


def test_builtin_tasks_get_decoys_from_their_fail_to_pass_tests_in_the_canarys_files() -> None:
    """Coverage on the built-in tasks (docs/design/integrity.md): every non-Python task gets decoys."""
    tasks = {t.id: t for t in pb.load("builtin").tasks}
    want = {
        "go-logger-derived-fields-clobbered": ("go-test", 2),
        "java-reconcile-fractional-quantity": ("junit", 3),
        "js-lru-numeric-key-eviction": ("node-test", 3),
        "rs-feed-scrollback-short-page": ("cargo-test", 3),
        "ts-aggregate-replay-field-reset": ("node-test", 3),
    }
    for task_id, (runner, count) in want.items():
        task = tasks[task_id]
        pom = task.workspace_map().get("pom.xml")
        c = plan_canary(
            runner,
            task,
            task.hidden_tests,
            "n1",
            workspace_dst="/w",
            harness_dst="/h",
            read={"pom.xml": pom}.get,
        )
        assert c is not None and len(c.decoys) == count, task_id
        assert all(any(d in text for text in c.files.values()) for d in c.decoys)
        assert not any(c.matches(i) for i in (*task.fail_to_pass, *task.pass_to_pass)), task_id
