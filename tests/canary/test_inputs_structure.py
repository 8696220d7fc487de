"""Controls on a test's structure (patchbench.canary._inputs_structure): lists extended, a call repeated,
helpers moved."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import shutil
import subprocess
import traceback
from pathlib import Path
from typing import Any, cast

import pytest

import patchbench as pb
from patchbench.canary import _decoys_native as dn
from patchbench.canary._decoys import (
    AGED,
    ARITY,
    BUSY,
    EXTEND,
    FAR,
    FILED,
    FRESH,
    HANDED,
    HELPERS,
    KINDS,
    LOOPS,
    MANY,
    MAX_INPUTS,
    OFF_MAIN,
    ONE_CPU,
    REPEAT,
    REUSE,
    REVERSE,
    SHRINK,
    SHRINK_TABLES,
    STRUCTURAL,
    TAIL,
    TUPLES,
    TYPES,
    ZONED,
    is_input_key,
    pick_inputs,
)
from patchbench.canary._decoys_native import _ANY, plan_native_decoys, variadic_functions
from patchbench.canary._inputs_native import INPUT_PLANNER, VALUE_MARK, input_text
from patchbench.canary._inputs_structure import copies
from patchbench.canary._probing import INPUT_SHIFT, PROBE_INPUTS

#: The built-in task of each language (one each: its id starts with the prefix).
_PREFIX = {"go": "go-", "rust": "rs-", "java": "java-", "javascript": "js-", "typescript": "ts-"}


def _planted(language: str, shift: int = 13) -> dict[str, str]:
    """Each structural probe's key -> the file text it was planted in (the first of its two copies)."""
    task = next(t for t in pb.load("builtin").tasks if t.id.startswith(_PREFIX[language]))
    token = INPUT_SHIFT.set(shift)
    try:
        d = plan_native_decoys(
            language, task, task.hidden_tests, random.Random(5), probe=True, inputs=INPUT_PLANNER
        )
    finally:
        INPUT_SHIFT.reset(token)
    out: dict[str, str] = {}
    for name, key in d.probes.items():
        if is_input_key(key) and int(key.rsplit("#in", 1)[1]) in STRUCTURAL and key not in out:
            out[key] = next(t for t in d.files.values() if name in t)
    return out


def _text(language: str, test: str, which: int, shift: int = 13, *, variadic: bool = False) -> str:
    """The text planted for one variant of one test (the copy, with its helpers' copies if any); with
    ``variadic``, the task's variadic Go functions known, as the planner knows them."""
    task = next(t for t in pb.load("builtin").tasks if t.id.startswith(_PREFIX[language]))
    lang = {"go": dn._GO, "java": dn._JAVA, "javascript": dn._JS, "typescript": dn._TS}[language]
    for entry in task.hidden_tests:
        path, text = entry.path, entry.data().decode()
        parsed = dn._parse(lang, text) if path.endswith(lang.exts) else None
        found = next((f for k, f in dn._tests(lang, *parsed, path) if k == test), None) if parsed else None
        if found is not None:
            if variadic:
                go = tuple(f.content for f in task.workspace if f.path.endswith(".go"))
                found = dataclasses.replace(found, variadic=variadic_functions(go))
            token = INPUT_SHIFT.set(shift)
            try:
                out = input_text(found, lang, "NEW", which, random.Random(1))
            finally:
                INPUT_SHIFT.reset(token)
            assert out is not None
            return out
    raise AssertionError(test)


def _text_rust(test: str, which: int = TYPES) -> str:
    task = next(t for t in pb.load("builtin").tasks if t.id.startswith(_PREFIX["rust"]))
    for entry in task.hidden_tests:
        parsed = dn._parse(dn._RUST, entry.data().decode()) if entry.path.endswith(".rs") else None
        found = (
            next((f for k, f in dn._tests(dn._RUST, *parsed, entry.path) if k == test), None)
            if parsed
            else None
        )
        if found is not None:
            token = INPUT_SHIFT.set(13)
            try:
                out = input_text(found, dn._RUST, "new_name", which, random.Random(1))
            finally:
                INPUT_SHIFT.reset(token)
            assert out is not None
            return out
    raise AssertionError(test)


def _js_test(js: str) -> dn._Found:
    """The one test of a node:test file's text."""
    parsed = dn._parse(dn._JS, js)
    assert parsed is not None
    return next(f for _, f in dn._tests(dn._JS, *parsed, "x.test.js"))


def _variants(planted: dict[str, str]) -> set[int]:
    return {int(k.rsplit("#in", 1)[1]) for k in planted}


def test_rust_gets_only_its_integer_types_widened() -> None:
    """Round thirteen (rt9-rust-integer-items-only): a repair stepping over the short page only when
    ``type_name::<T>()`` names an integer type the listed tests use passed every variant. A repeated call or
    a copied element may use a value already moved (it would not compile): Rust's one structural variant
    widens the test's integer types, and leaves a test calling a helper of its file that names one."""
    planted = _planted("rust")
    # and aged (round sixteen's clocks) and handed over (round seventeen): see their tests
    assert _variants(planted) == {TYPES, AGED, HANDED}
    tests = {k.rsplit("#in", 1)[0].rsplit("::", 1)[-1] for k in planted if k.endswith(f"#in{TYPES}")}
    assert "jumping_back_lands_on_the_same_pages_as_walking_back" in tests
    # milestones_are_listed_newest_first calls feed() (-> Feed<u32>) inside its checks' macro tokens
    assert "milestones_are_listed_newest_first" not in tests
    text = _text_rust("iterator::jumping_back_lands_on_the_same_pages_as_walking_back")
    assert "[(10u128, 4usize), (12, 4)" in text and "let v: Vec<u128> = (0..entries).collect();" in text
    assert "Vec<&[u128]>" in text and "u32" not in text


def test_extend_appends_moved_copies_of_a_lists_elements() -> None:
    assert EXTEND in _variants(_planted("javascript"))
    text = _text("javascript", "lists mixed keys from the least to the most recently used", EXTEND)
    n = 1 + 13 % 3
    # the original five keys, then n copies, the k-th moved k times: words gain k letters, numbers k*13
    want = ["'b'", "20", "'a'", "'3'", "7"]
    for k in range(1, n + 1):
        want += [
            f"'b{'x' * k}'",
            str(20 + 13 * k),
            f"'a{'x' * k}'",
            f"'{3 + 13 * k}'",
            str(7 + 13 * k),
        ]
    assert f"for (const key of [{', '.join(want)}])" in text


def test_extend_grows_java_list_of_calls() -> None:
    assert EXTEND in _variants(_planted("java"))
    copy = _text("java", "ReconcilerTest#settlesEqualInvoicesDueFirstWhateverTheirLines", EXTEND, shift=12)
    copy = copy[copy.find("List<Payment> payments = List.of(") :]
    statement = copy[: copy.find(";")]
    # three payments, one copy each (1 + 12 % 3): six, the copies' references and amounts moved
    assert statement.count("Payment.of(") == 6
    assert 'Payment.of("BNK-3", "Fabrikam", "75.500")' in statement
    assert 'Payment.of("BNK-13", "Fabrikamx", "75.17")' in statement
    assert "List.of(february, january, march, february, january, march)" in copy


def test_repeat_makes_the_first_call_again_with_its_literals_moved() -> None:
    assert REPEAT in _variants(_planted("typescript"))
    test = "an account loaded from the store keeps its balance, open holds and overdraft limit"
    text = _text("typescript", test, REPEAT, shift=7)
    copy = text[text.find("accounts.create('a-3');") :]
    assert re.match(
        r"accounts\.create\('a-3'\);\s+account\.deposit\(10_000\);\s+account\.deposit\(10007\);", copy
    )


def test_helpers_are_copied_with_their_strings_moved_and_the_copy_calls_them() -> None:
    assert _variants(_planted("go")) == {HELPERS, ARITY, LOOPS, KINDS, FAR, BUSY, AGED, FILED, ONE_CPU, ZONED}
    text = _text("go", "TestSiblingLoggersKeepTheirOwnFields", HELPERS)
    new = re.search(r"\bfunc (chainPb\d+)\(root \*kvlog\.Logger, depth int\)", text)
    assert new is not None
    helper = text[new.start() : text.find("\n}\n", new.start())]
    # strings moved (a word gains a letter), integers kept (the loop still derives depth parents)
    assert 'fmt.Sprintf("k%dx", i)' in helper and "for i := 0; i < depth; i++" in helper
    # the copy calls the moved helper before its report; the original test still calls chain
    test = text[: new.start()]
    assert f"parent, fields := {new.group(1)}(root, depth)" in test and VALUE_MARK in test


def test_typescript_helpers_include_module_tables_placed_before_the_copy() -> None:
    assert HELPERS in _variants(_planted("typescript"))
    text = _text(
        "typescript", "a cart rebuilt from its history has the same lines, coupon and totals", HELPERS, 7
    )
    table = re.search(r"const (cartHistoryPb\d+): CartEvent\[\] = \[", text)
    assert table is not None
    # node may start a top-level test before the rest of the module runs: the table comes first
    assert text.find(f"Cart.fromHistory('c-4', {table.group(1)})") > table.start()
    assert "sku: 'TEA-08'" in text[table.start() :] and "type: 'ItemAddedx'" in text[table.start() :]


def test_shrink_cuts_a_tests_lists_and_the_helper_tables_in_go_only_at_the_first_level() -> None:
    """Round ten: a repair right only for histories of three events or more met none shorter."""
    planted = _planted("typescript")
    assert {SHRINK_TABLES} <= _variants(planted)
    text = _text(
        "typescript", "a cart rebuilt from its history has the same lines, coupon and totals", SHRINK_TABLES
    )
    table = re.search(r"const (cartHistoryPb\d+): CartEvent\[\] = \[(.*?)\n\];", text, re.S)
    assert table is not None and text.find(f"Cart.fromHistory('c-4', {table.group(1)})") > table.start()
    assert table.group(2).count("type: '") == 2  # the module table's five events cut to two
    mixed = _text("javascript", "lists mixed keys from the least to the most recently used", SHRINK)
    assert "for (const key of ['b', 20])" in mixed
    # Go: a cut element may hold a variable's only use (no build): probed at level 3 only, so a gold run
    # that does not build with it is calibrated again without it
    token = PROBE_INPUTS.set(2)
    try:
        assert not {SHRINK, SHRINK_TABLES, ARITY} & _variants(_planted("go"))
    finally:
        PROBE_INPUTS.reset(token)
    assert ARITY in _variants(_planted("go"))
    src = (
        "package t\n\nfunc TestX(t *testing.T) {\n\tgot := sum([]int{4, 5, 6})\n"
        '\tif got != 15 {\n\t\tt.Errorf("got %d", got)\n\t}\n}\n'
    )
    parsed = dn._parse(dn._GO, src)
    assert parsed is not None
    found = next(f for k, f in dn._tests(dn._GO, *parsed, "x_test.go") if k == "TestX")
    text = input_text(found, dn._GO, "TestY", SHRINK, random.Random(1))
    assert text is not None and "sum([]int{4, 5})" in text  # level 3, the default outside a calibration


def test_variadic_functions_are_read_from_the_tasks_go_code() -> None:
    src = (
        "package x\nfunc (l *L) With(kv ...any) *L { return l }\nfunc (l *L) Info(msg string, kv ...any) {}\n"
        "func F(a, b int, c ...string) {}\nfunc G(int, ...string) {}\nfunc (o *O) With(k string) {}\n"
    )
    # With is also a method that is not variadic: left out (its copy might not build)
    # an `...any` parameter adds _ANY (its values may be of any kind: see KINDS)
    assert variadic_functions((src,)) == {"Info": 1 + _ANY, "F": 2, "G": 1}
    task = next(t for t in pb.load("builtin").tasks if t.id.startswith("go-"))
    assert (
        variadic_functions(tuple(f.content for f in task.workspace if f.path.endswith(".go")))["With"] == _ANY
    )


def test_arity_passes_a_variadic_calls_arguments_again_moved() -> None:
    """Round nine (rt8-go-clip-for-at-most-two-fields): a repair applied only when a call adds at most
    two fields met no call with more (every variant kept how many arguments a call passes)."""
    planted = _planted("go")
    text = next(t for k, t in planted.items() if k.endswith(f"LeakIntoItsChildren#in{ARITY}"))
    # shift 13: two copies, each moved (a word gains a letter per copy, a number the shift)
    assert 'parent.With("user", "alice", "userx", "alicex", "userxx", "alicexx")' in text
    assert 'parent.Info("request done", "status", 200, "bytes", 512, "statusx", 213, "bytesx", 525,' in text
    assert 'child.Info("audit")' in text  # no variadic argument: nothing to pass again


def test_every_structural_control_is_planted_in_every_run() -> None:
    keys = {f"t{i}#in{j}" for i in range(3) for j in (0, 1, 2, 3, 4, 5, 6, *STRUCTURAL)}
    for seed in range(20):
        chosen = pick_inputs(keys, random.Random(seed))
        assert {k for k in keys if int(k.rsplit("#in", 1)[1]) in STRUCTURAL} <= chosen
        assert len(chosen) <= MAX_INPUTS and any(k.endswith("#in1") for k in chosen)


@pytest.mark.parametrize("shift", [5, 6, 7])
def test_the_number_of_copies_follows_the_secret_shift(shift: int) -> None:
    token = INPUT_SHIFT.set(shift)
    try:
        assert copies() == 1 + shift % 3
    finally:
        INPUT_SHIFT.reset(token)


def test_loops_count_as_often_from_the_shift_on_in_the_test_and_its_helpers() -> None:
    """Round eight (rt7-go-repair-for-positional-field-values): a repair applied only while every field's
    value is its position (chain() derives With("k%d", i) with the int i) met no other fields: a helper's
    copy moved its strings, never its loop variable."""
    text = _text("go", "TestSiblingLoggersKeepTheirOwnFields", LOOPS)
    new = re.search(r"\bfunc (chainPb\d+)\(root \*kvlog\.Logger, depth int\)", text)
    assert new is not None and f"parent, fields := {new.group(1)}(root, depth)" in text
    # shift 13: as many steps, from 13 on (the test's own loop holds the checks: kept)
    assert "for i := 13; i < (depth) + 13; i++ {" in text[new.start() :]
    assert "for depth := 0; depth <= 8; depth++ {" in text[: new.start()]
    js = (
        "test('t', () => {\n  const c = make();\n  for (let i = 2; i <= n; i++) c.add(i);\n"
        "  assert.equal(c.size, 3);\n});\n"
    )
    found = _js_test(js)
    token = INPUT_SHIFT.set(13)
    try:
        out = input_text(found, dn._JS, "'u'", LOOPS, random.Random(1))
    finally:
        INPUT_SHIFT.reset(token)
    assert out is not None and "for (let i = 15; i <= (n) + 13; i++) c.add(i);" in out


def test_far_makes_a_size_sweep_take_two_steps_from_past_a_thousand() -> None:
    """Round thirteen (rt11-go-copy-fields-up-to-512): bounds caps a loop at 500 steps, so extend() copying
    a parent's fields only up to 512 met no larger logger. The test's own sweep (`depth <= 8`, holding the
    checks) makes two steps from 1,000 + 8 x shift on; the helper's loop, which counts as often either way,
    is left."""
    text = _text("go", "TestSiblingLoggersKeepTheirOwnFields", FAR, shift=59)
    assert "for depth := 1472; depth <= 1473; depth++ {" in text
    assert "for i := 0; i < depth; i++" not in text  # the helper is not copied
    assert "chain(root, depth)" in text
    js = (
        "test('t', () => {\n  for (let n = 1; n < 4; n++) {\n    assert.equal(size(make(n)), n);\n  }\n"
        "  for (let i = 0; i < xs.length; i++) use(xs[i]);\n});\n"
    )
    found = _js_test(js)
    token = INPUT_SHIFT.set(11)
    try:
        out = input_text(found, dn._JS, "'u'", FAR, random.Random(1))
    finally:
        INPUT_SHIFT.reset(token)
    # a literal bound only (a loop over a list's length would index past it)
    assert out is not None and "for (let n = 1088; n < 1090; n++) {" in out
    assert "for (let i = 0; i < xs.length; i++)" in out


def test_many_makes_the_first_call_again_past_a_thousand_times() -> None:
    """Round thirteen (rt12-ts-short-histories-replayed-after-construction): repeat made the first call
    one to three times more, so a replay right only for histories of up to 100 events met no longer one."""
    test = "an account loaded from the store keeps its balance, open holds and overdraft limit"
    text = _text("typescript", test, MANY, shift=13)
    assert (
        "account.deposit(10_000);\n"
        "  for (let pbAgain = 0; pbAgain < 1013; pbAgain++) { account.deposit(10_000); }" in text
    )
    js = "test('t', async () => {\n  await q.put(1);\n  assert.equal(q.size, 1);\n});\n"
    found = _js_test(js)
    assert input_text(found, dn._JS, "'u'", MANY, random.Random(1)) is None  # an awaited call may block


def test_kinds_pass_an_any_calls_values_as_slices_in_the_test_and_its_helpers() -> None:
    """Round eleven (rt10-go-copy-fields-of-plain-kinds-only): a repair applied only while every value is a
    string, an int or a duration met no other kind (no variant changed a value's kind)."""
    text = _text("go", "TestSiblingLoggersKeepTheirOwnFields", KINDS, variadic=True)
    assert 'alice := parent.With("user", []any{"alice"})' in text
    helper = re.search(r"\bfunc (chainPb\d+)\(root \*kvlog\.Logger, depth int\)", text)
    assert helper is not None and 'l = l.With(fmt.Sprintf("k%d", i), []any{i})' in text[helper.start() :]


def test_tail_and_reverse_change_what_a_list_starts_with() -> None:
    """Round eleven (rt10-ts-replay-histories-opened-by-the-first-command): a repair applied only to
    histories opening with the listed first event met no other first event (every structural variant kept
    a list's first element)."""
    planted = _planted("typescript")
    assert {TAIL, REVERSE} <= _variants(planted)
    text = _text(
        "typescript", "a cart rebuilt from its history has the same lines, coupon and totals", REVERSE
    )
    table = re.search(r"const (cartHistoryPb\d+): CartEvent\[\] = \[(.*?)\n\];", text, re.S)
    assert table is not None
    assert table.group(2).index("CouponApplied") < table.group(2).index("ItemAdded")  # the last first
    mixed = _text("javascript", "lists mixed keys from the least to the most recently used", TAIL)
    assert "for (const key of [20, 'a', '3', 7])" in mixed


def test_helper_copies_of_one_run_never_share_a_name() -> None:
    """A run plants every structural variant of several tests in one file, each with its own copies of
    the helpers it reads; drawn from 9,000 numbers alone, two copies of ``chain`` once got one name and the
    Go test file did not build ("chainPb1536 redeclared in this block"), a correct fix rejected."""

    class Same(random.Random):
        def randrange(self, *args: Any, **kwargs: Any) -> int:
            # a helper copy's number always the same: only the serial keeps the copies apart
            copy_number = args == (1000, 10000) and "Pb{" in traceback.format_stack(limit=2)[0]
            return 1536 if copy_number else super().randrange(*args, **kwargs)

    task = next(t for t in pb.load("builtin").tasks if t.id.startswith(_PREFIX["go"]))
    token = INPUT_SHIFT.set(13)
    try:
        d = plan_native_decoys("go", task, task.hidden_tests, Same(5), probe=True, inputs=INPUT_PLANNER)
    finally:
        INPUT_SHIFT.reset(token)
    declared = [m for text in d.files.values() for m in re.findall(r"^func (chainPb\d+)\(", text, re.M)]
    assert len(declared) >= 2 and len(declared) == len(set(declared))


def test_busy_parks_goroutines_for_as_long_as_the_copy_runs() -> None:
    """Round fifteen (rt13-go-copy-while-quiet): extend() copying a parent's fields only while at most 64
    goroutines run passed every variant (every control ran in a quiet process). Go copies park 1,000 +
    shift goroutines from their first statement until they return."""
    text = _text("go", "TestSiblingLoggersKeepTheirOwnFields", BUSY, shift=13)
    head = text[text.index("{") + 1 : text.index("for depth")]
    assert "pbParked := make(chan struct{}); defer close(pbParked)" in head
    assert "for pbI := 0; pbI < 1013; pbI++ { go func() { <-pbParked }() }" in head


def test_one_cpu_runs_a_go_copy_with_gomaxprocs_at_one_and_puts_it_back() -> None:
    """Round nineteen (rt18-go-copy-fields-when-gomaxprocs-above-one): extend() copying a parent's fields
    only when ``runtime.GOMAXPROCS(0) > 1`` passed every variant (every grading machine has more than one
    CPU). A Go copy sets ``GOMAXPROCS`` to 1 from its first statement and puts it back when it returns; the
    planted file imports ``runtime`` under a name of its own."""
    text = _text("go", "TestSiblingLoggersKeepTheirOwnFields", ONE_CPU, shift=13)
    head = text[text.index("{") + 1 : text.index("for depth")]
    assert "defer pbruntime.GOMAXPROCS(pbruntime.GOMAXPROCS(1))" in head
    planted = _planted("go")
    file = planted[next(k for k in planted if k.endswith(f"#in{ONE_CPU}"))]
    package = next(line for line in file.splitlines() if line.startswith("package "))
    assert 'import pbruntime "runtime";' in package  # on the package clause's line: no line moves


def test_off_main_runs_a_java_copy_on_a_thread_of_its_own_and_throws_what_it_threw() -> None:
    """Round fifteen (rt13-java-scale-dropped-on-main-thread): a key stripping trailing zeros only on the
    thread named "main" passed every variant (JUnit runs every test there). The copy's statements, its
    report included, run on a thread named like an executor's; what they throw is thrown again."""
    test = "ReconcilerTest#settlesInvoiceBilledForFractionalHours"
    text = _text("java", test, OFF_MAIN, shift=13)
    start = text.index("new Thread(() -> { try {")
    report = text.index('throw new AssertionError("pb-value:"')
    end = text.index("catch (Throwable pbThrown)")
    assert start < text.index("new Reconciler().reconcile(") < report < end
    assert '}, "pool-7-thread-1"); pbRun13.setDaemon(true); pbRun13.start();' in text
    assert "if (pbFail13[0] instanceof Error) throw (Error) pbFail13[0];" in text
    assert OFF_MAIN in _variants(_planted("java")) and OFF_MAIN not in _variants(_planted("go"))


def _node_tap(cwd: Path, *args: str) -> str:
    """What ``node [args..] --test`` reports in TAP (the last argument: the test file)."""
    done = subprocess.run(
        ["node", *args[:-1], "--test", "--test-reporter=tap", args[-1]],
        cwd=cwd, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    return done.stdout


_WORKER_TEST = (
    "import assert from 'node:assert/strict';\n"
    "import { test } from 'node:test';\n"
    "import * as where from '../src/where.js';\n"
    "import { label as name } from '../src/where.js';\n\n"
    "function twice(x) {\n  return [x, x];\n}\n\n"
    "test('runs here', () => {\n  assert.deepEqual(twice(name()), ['main', 'main']);\n"
    "  assert.equal(where.label(), 'main');\n});\n"
)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_off_main_runs_a_node_copy_in_a_worker_and_throws_its_report_on_the_main_thread(
    tmp_path: Path,
) -> None:
    """Round fifteen (rt13-js-map-on-main-thread-only): a table keeping its rows in a Map only when
    ``isMainThread`` passed every variant (node runs every test on its main thread). The copy's statements
    run in a worker_threads Worker with the file's imports (default, namespace, renamed) made again there
    and its functions defined again; the report it throws there fails the copy on the main thread."""
    found = _js_test(_WORKER_TEST)
    token, level = INPUT_SHIFT.set(13), PROBE_INPUTS.set(3)
    try:
        copy = input_text(found, dn._JS, "'runs here again'", OFF_MAIN, random.Random(1))
    finally:
        INPUT_SHIFT.reset(token)
        PROBE_INPUTS.reset(level)
    assert copy is not None and copy.startswith("test('runs here again', async () => {")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "where.js").write_text(
        "import { isMainThread } from 'node:worker_threads';\n"
        "export function label() {\n  return isMainThread ? 'main' : 'worker';\n}\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "w.test.js").write_text(_WORKER_TEST + "\n" + copy + "\n")
    out = _node_tap(tmp_path, "tests/w.test.js")
    assert "ok 1 - runs here" in out and "not ok 2 - runs here again" in out
    value = out[out.index(VALUE_MARK) : out.index(":pb-end")]
    # both checks recorded in the Worker: the label it gave there, beside the listed expectation
    assert '[\\\\"worker\\\\",\\\\"worker\\\\"]' in value and '\\\\"main\\\\"' in value
    # a test taking the test context, or a file that is not an ES module, gets no such copy
    with_context = _js_test(_WORKER_TEST.replace("test('runs here', () =>", "test('runs here', (t) =>"))
    common = _js_test(
        _WORKER_TEST.replace("import assert from 'node:assert/strict';", "const assert = require('x');")
        .replace("import { test } from 'node:test';\n", "")
        .replace("import * as where from '../src/where.js';\n", "")
        .replace("import { label as name } from '../src/where.js';\n", "")
    )
    token = PROBE_INPUTS.set(3)
    try:
        for found in (with_context, common):
            assert input_text(found, dn._JS, "'u'", OFF_MAIN, random.Random(1)) is None
    finally:
        PROBE_INPUTS.reset(token)


def test_reuse_builds_the_object_first_and_calls_its_method_once_more() -> None:
    """Round fifteen (rt14-java-first-statement-per-reconciler): a reconciler right on its first call only
    passed every variant (every test builds one and calls it once). The object a test builds inside its
    call is built by a statement of its own, the method called on it once, then the test's call."""
    text = _text("java", "ReconcilerTest#settlesInvoiceBilledForFractionalHours", REUSE, shift=13)
    assert (
        "var pbReused13 = new Reconciler(); pbReused13.reconcile(List.of(consulting), List.of(payment)); "
        "Reconciliation r = pbReused13.reconcile(List.of(consulting), List.of(payment));" in text
    )
    js = (
        "test('t', () => {\n  const r = new Parser({ strict: true }).parse('a,b');\n"
        "  assert.equal(r.length, 2);\n});\n"
    )
    token = PROBE_INPUTS.set(3)
    try:
        out = input_text(_js_test(js), dn._JS, "'u'", REUSE, random.Random(1))
    finally:
        PROBE_INPUTS.reset(token)
    assert out is not None
    assert (
        "const pbReused3 = new Parser({ strict: true }); pbReused3.parse('a,b'); "
        "const r = pbReused3.parse('a,b');" in out
    )


def test_fresh_writes_a_java_tests_strings_as_objects_of_their_own() -> None:
    """Round sixteen (rt15-java-scale-dropped-for-interned-customers): a key right only for interned
    customer names (``customer == customer.intern()``) passed every variant: every string a test writes is
    a literal, which the JVM interns. *fresh* writes them ``new String(..)``; a check the copy rewrites is
    left."""
    text = _text("java", "ReconcilerTest#settlesInvoiceBilledForFractionalHours", FRESH)
    assert 'Payment.of(new String("BNK-88121"), new String("NORTHWIND"), new String("120.30"))' in text
    assert "Object pbSeen" in text and 'List.of("INV-301<-BNK-88121")' in text  # the check's own literal


def test_aged_runs_a_go_copy_in_a_synctest_bubble_with_hours_slept_before_each_statement() -> None:
    """Round sixteen (rt15-go-copy-while-parent-young): extend() copying a parent's fields only while the
    parent is under two seconds old passed every variant (every copy derives its loggers microseconds
    after making them). *aged* runs the copy's body in a ``testing/synctest`` bubble and sleeps a drawn
    number of hours (fake time: at once) before each statement of every block, in the test and in copies
    of the helpers it calls; a check the copy rewrites keeps its text."""
    text = _text("go", "TestSiblingLoggersKeepTheirOwnFields", AGED, shift=13)
    assert text.index("pbsynctest.Test(t, func(t *testing.T) {") < text.index("for depth := 0")
    # a bubble outlived by goroutines of the code's own (a correct fix's writer) panics on the test's
    # goroutine, where it is recovered: the copy fails with what it reported, or is lost (round eighteen: no
    # longer skipped as inapplicable; see the test below)
    guard = 'if pbstrings.Contains(pbfmt.Sprint(pbWhy), "bubble") { if pbReached13 { t.Fail(); return }; '
    assert text.index(guard) < text.index(
        "pbsynctest.Test(t, func(t *testing.T) { defer func() { pbReached13"
    )
    assert "pbtime.Sleep(13 * pbtime.Hour); for depth := 0; depth <= 8; depth++ {" in text
    assert re.search(r"pbtime\.Sleep\(13 \* pbtime\.Hour\); root, buf := newLoggerPb\d+\(\)", text)
    helper = text[text.index("func chainPb") :]
    assert "pbtime.Sleep(13 * pbtime.Hour);" in helper
    # the bubble closes after the report, inside the copy
    assert text.index('.Fatalf("pb-value:') < text.index("\n})\n") < text.rindex("}")
    planted = _planted("go")
    key = next(k for k in planted if k.endswith(f"#in{AGED}"))
    file = planted[key]
    assert file.startswith("//go:debug asynctimerchan=0\n")  # a bubble needs synchronous timer channels
    assert 'import pbfmt "fmt"; import pbsynctest "testing/synctest"; import pbtime "time";' in file
    # a test the bubble does not take (parallel, subtests) gets no aged copy
    parallel = _go_aged_copy(
        'func TestP(t *testing.T) {\n\tt.Parallel()\n\tif f() != 2 {\n\t\tt.Errorf("x")\n\t}\n}\n'
    )
    assert parallel is None


def _go_aged_copy(test: str) -> str | None:
    """The aged copy of a one-test Go file (None when it gets none)."""
    text = f'package p\n\nimport "testing"\n\n{test}'
    parsed = dn._parse(dn._GO, text)
    assert parsed is not None
    found = next(f for _, f in dn._tests(dn._GO, *parsed, "p_test.go"))
    token, level = INPUT_SHIFT.set(13), PROBE_INPUTS.set(3)
    try:
        return input_text(found, dn._GO, "TestNew", AGED, random.Random(1))
    finally:
        INPUT_SHIFT.reset(token)
        PROBE_INPUTS.reset(level)


def test_aged_advances_rusts_clocks_before_each_statement_through_the_preloaded_library() -> None:
    """Round sixteen (rt15-rust-short-back-page-while-fresh): pages() stepping over the short page only
    under two seconds after the last append passed every variant. A Rust aged copy finds the clock
    library's advance by ``dlsym`` (None without it: the copy runs on the real clocks) and calls it before
    each statement it may (not inside a check it rewrites)."""
    text = _text_rust("newest_first::page_from_newest_with_a_short_tail", AGED)
    assert 'b"patchbench_clock_advance\\0"' in text
    step = "if let Some(pb_advance) = pb_clock_13 { pb_advance(46800000000000) }; "
    assert text.index("let pb_clock_13") < text.index(step + "let f = feed(10, 4);")
    assert text.count(step) >= 3


_AGED_JS = (
    "import assert from 'node:assert/strict';\n"
    "import { test } from 'node:test';\n\n"
    "class Table {\n  born = performance.now();\n  when = new Date();\n"
    "  order() { return performance.now() - this.born < 5000 ? 'young' : 'old'; }\n"
    "  uptime() { return process.uptime() < 30 && new Date() - this.when < 5000 ? 'new' : 'running'; }\n"
    "}\n\n"
    "test('orders rows', () => {\n  const t = new Table();\n  const o = t.order();\n"
    "  assert.equal(o, 'young');\n  assert.equal(t.uptime(), 'new');\n});\n"
)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_aged_moves_nodes_clocks_hours_on_before_each_statement_of_the_copy(tmp_path: Path) -> None:
    """Round sixteen (rt15-js-insertion-order-while-young, rt14-ts-replay-after-construction-in-first-30s):
    code right only while a table is under five seconds old, or in a process's first 30 seconds, passed
    every variant. The integrity module (``--import``) serves ``performance.now``, ``Date.now``,
    ``process.hrtime`` and ``process.uptime`` through an advance an aged copy calls before each statement:
    there the table is old and the process has run for hours; the listed test, run first, is untouched."""
    from patchbench.canary import NODE_INTEGRITY

    token, level = INPUT_SHIFT.set(13), PROBE_INPUTS.set(3)
    try:
        copy = input_text(_js_test(_AGED_JS), dn._JS, "'orders rows again'", AGED, random.Random(1))
    finally:
        INPUT_SHIFT.reset(token)
        PROBE_INPUTS.reset(level)
    assert copy is not None
    advance = "Reflect.get(globalThis, Symbol.for('patchbench.clock'))?.(46800000); "
    assert copy.count(advance) == 4  # before each statement, the checks it rewrites too
    # round seventeen: each also awaits the event loop's turn (the test's function made async), and the Date
    # constructor is served too (from the first advance on)
    turn = "await new Promise((pbTurn) => setImmediate(pbTurn)); "
    assert copy.count(turn + advance) == 4 and copy.startswith("test('orders rows again', async () => {")
    (tmp_path / "integrity.mjs").write_text(NODE_INTEGRITY)
    (tmp_path / "t.test.js").write_text(_AGED_JS + "\n" + copy + "\n")
    out = _node_tap(tmp_path, f"--import=file://{tmp_path / 'integrity.mjs'}", "t.test.js")
    assert "ok 1 - orders rows" in out and "not ok 2 - orders rows again" in out
    value = out[out.index(VALUE_MARK) : out.index(":pb-end")]
    assert '\\\\"old\\\\"' in value and '\\\\"running\\\\"' in value
    # without the module (another harness), the advance is a no-op and the copy runs on the real clocks
    plain = _node_tap(tmp_path, "t.test.js")
    assert '\\\\"young\\\\"' in plain[plain.index(VALUE_MARK) :]


_UPTIME_JS = (
    "import { readFileSync, openSync, readSync, createReadStream, symlinkSync } from 'node:fs';\n"
    "import { readFile } from 'node:fs/promises';\n"
    "import os from 'node:os';\n\n"
    "const up = (text) => Math.round(Number.parseFloat(String(text)));\n"
    "const before = up(readFileSync('/proc/uptime', 'latin1'));\n"
    "globalThis[Symbol.for('patchbench.clock')]?.(5 * 3600 * 1000);\n"
    "const fd = openSync('/proc/uptime', 'r');\n"
    "const buf = Buffer.alloc(64);\n"
    "const streamed = await new Promise((done) => {\n"
    "  let text = '';\n"
    "  createReadStream('/proc/uptime').on('data', (c) => (text += c)).on('end', () => done(text));\n"
    "});\n"
    "symlinkSync('/proc/uptime', 'up');\n"
    "const read = [\n"
    "  readFileSync('/proc/uptime'), readFileSync(new URL('file:///proc/self/../uptime'), 'utf8'),\n"
    "  await readFile('/proc/uptime', 'utf8'), buf.subarray(0, readSync(fd, buf)), streamed,\n"
    "  readFileSync('up', 'latin1'), os.uptime(),\n"
    "];\n"
    "console.log(JSON.stringify(read.map((r) => up(r) - before)));\n"
)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_nodes_integrity_module_serves_the_kernels_uptime_ahead_as_well(tmp_path: Path) -> None:
    """Round eighteen (rt17-js-insertion-order-while-young-by-uptime, rt17-ts-replay-after-construction-by-
    uptime): an age read from ``/proc/uptime`` through node:fs passed every aged copy, whose advance moved
    only the clocks the module served. From the first advance on, ``os.uptime()`` and ``/proc/uptime``
    read through node:fs (named imports made after the module, ``fs/promises``, an fd, a stream, a link to
    it, ``..`` in a URL) are ahead by the same five hours; before it, and without the module, the kernel's
    own figure is read."""
    from patchbench.canary import NODE_INTEGRITY

    (tmp_path / "integrity.mjs").write_text(NODE_INTEGRITY)
    (tmp_path / "t.mjs").write_text(_UPTIME_JS)

    def ahead(*args: str) -> list[int]:
        (tmp_path / "up").unlink(missing_ok=True)
        done = subprocess.run(
            ["node", *args, "t.mjs"], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True
        )
        return cast(list[int], json.loads(done.stdout))

    assert all(abs(d - 5 * 3600) <= 2 for d in ahead(f"--import=file://{tmp_path / 'integrity.mjs'}"))
    assert all(abs(d) <= 2 for d in ahead())


_GO_GUARDED = """//go:debug asynctimerchan=0
package guarded

import "testing"
import pbfmt "fmt"; import pbstrings "strings"; import pbsynctest "testing/synctest"; import pbtime "time"

func aged(t *testing.T, body func()) {
	%s
	%s
		pbtime.Sleep(3 * pbtime.Hour); body()
		t.Fatalf("pb-value:%%s|%%s:pb-end", "00ff", "[1]")
	})
}

func TestReported(t *testing.T) { aged(t, func() {}) }
func TestOutlivedByAWriter(t *testing.T) { aged(t, func() { c := make(chan int); go func() { <-c }() }) }
func TestDeadlockedBeforeItsRecord(t *testing.T) { aged(t, func() { c := make(chan int); <-c }) }
"""


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
def test_a_go_aged_copy_fails_with_its_record_or_is_lost_never_skipped(tmp_path: Path) -> None:
    """Round eighteen (rt17-go-aged-bubble-deadlocked): the guard skipped a copy whose bubble panicked as
    "inapplicable", which the host counted passed, so code that deadlocked the bubble on purpose (where
    the clock reads year 2000) before the copy reported passed every aged control. Now a copy whose
    bubble is outlived by a goroutine after it reported (a correct fix's writer) fails with its record,
    and one that deadlocked before it fails without one (lost); none is skipped, and the binary runs on."""
    from patchbench.canary._inputs_structure import _GO_BUBBLE, _GO_BUBBLE_GUARD
    from patchbench.runners.go import parse_go_test_json

    guard = _GO_BUBBLE_GUARD.format(t="t", v="pbReached7")
    bubble = _GO_BUBBLE.format(t="t", v="pbReached7")
    (tmp_path / "go.mod").write_text("module guarded\n\ngo 1.24\n")
    (tmp_path / "g_test.go").write_text(_GO_GUARDED % (guard, bubble))
    done = subprocess.run(
        ["go", "test", "-json", "./..."], cwd=tmp_path, capture_output=True, text=True, timeout=300,
        check=False, env={**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"},
    )  # fmt: skip
    results = {r.id.rsplit(".", 1)[-1]: r for r in parse_go_test_json(done.stdout).tests}
    for name in ("TestReported", "TestOutlivedByAWriter"):
        assert results[name].outcome.name == "FAILED" and "pb-value:00ff|[1]:pb-end" in (
            results[name].message or ""
        )
    lost = results["TestDeadlockedBeforeItsRecord"]
    assert lost.outcome.name == "FAILED" and "pb-value" not in (lost.message or "")
    assert "pb-lost: the aged copy stopped before its record" in (lost.message or "")


def test_filed_hands_the_code_under_test_a_file_whose_bytes_reach_the_buffer_before_each_statement() -> None:
    """Round fifteen (rt14-go-copy-unless-writing-to-a-file): a derivation that copies its parent's fields
    unless the logger writes to an ``*os.File`` passed every variant (every test logs into a
    ``bytes.Buffer``). *filed* hands the buffer the test (here, the helper it calls) gives the code under
    test over as a temporary file, and reads the file's new bytes into the buffer before each statement;
    a buffer given to the test's own helpers (``lastLine``) is left."""
    text = _text("go", "TestSiblingLoggersKeepTheirOwnFields", FILED, shift=13)
    helper = text[text.index("func newLoggerPb") :]
    assert "return kvlog.New(pbFiled(&buf), kvlog.WithClock(clock)), &buf" in helper
    assert re.search(r"pbFiledSync\(\); root, buf := newLoggerPb\d+\(\)", text)
    assert "pbFiledSync(); if got := lastLine(t, buf);" in text and "lastLine(t, pbFiled(" not in text
    planted = _planted("go")
    file = planted[next(k for k in planted if k.endswith(f"#in{FILED}"))]
    assert 'import pbos "os"; import pbbytes "bytes";' in file.split("\n", 2)[1]
    assert file.count("func pbFiledSync()") == 1 and file.count("func pbFiled(") == 1  # once a file


def test_java_lists_are_passed_mutable_and_an_object_is_handed_to_another_thread() -> None:
    """Round seventeen: a repair right only for the immutable ``List.of`` lists every test passes
    (rt16-java-scale-dropped-for-immutable-lists), and one right only on the thread that made its
    reconciler (rt16-java-scale-dropped-off-the-making-thread; *off main* moved the making and the call
    together). *tuples* for Java passes them as ``ArrayList``s; *handed over* builds the object on the
    test's thread and runs every statement from its call on on a thread of its own."""
    test = "ReconcilerTest#settlesInvoiceBilledForFractionalHours"
    lists = _text("java", test, TUPLES, shift=13)
    assert (
        "reconcile(new java.util.ArrayList<>(List.of(consulting)), "
        "new java.util.ArrayList<>(List.of(payment)))" in lists
    )
    handed = _text("java", test, HANDED, shift=13)
    made = handed.index("var pbMade13 = new Reconciler();")
    thread = handed.index("Thread pbRun13 = new Thread(() -> { try {")
    assert made < thread < handed.index("pbMade13.reconcile(List.of(consulting), List.of(payment))")
    assert handed.index('throw new AssertionError("pb-value:"') < handed.index("pbRun13.start();")


def test_rust_hands_what_a_test_made_to_a_scoped_thread_of_its_own() -> None:
    """Round seventeen (rt16-rust-short-back-page-on-the-making-thread): gold's page skip only on the thread
    that made the feed passed every variant. *handed over* for Rust makes the test's first ``let`` on the
    test's thread and runs every statement after it on a scoped thread, resuming its panic (the report)."""
    text = _text_rust("newest_first::page_from_newest_with_a_short_tail", HANDED)
    head = "let f = feed(10, 4); std::thread::scope(|pb_scope| { let pb_join = pb_scope.spawn(|| {"
    assert head in text and text.index(head) < text.index("f.page_from_newest(0)")
    assert "}); if let Err(pb_panic) = pb_join.join() { std::panic::resume_unwind(pb_panic) } });" in text


def test_zoned_runs_a_native_copy_in_another_time_zone_and_puts_it_back() -> None:
    """Round twenty-one (rt20-go-fields-copied-in-utc, rt20-java-scale-dropped-in-utc): repairs made only
    where the local zone is UTC passed every variant. *zoned* sets Go's ``time.Local``, Java's default
    ``TimeZone`` and node's ``TZ`` for the copy (by the shift: 13 is three hours east), and puts each back
    when it returns."""
    go = _text("go", "TestSiblingLoggersKeepTheirOwnFields", ZONED, shift=13)
    assert "defer func(pbWas *pbtime.Location) { pbtime.Local = pbWas }(pbtime.Local)" in go
    assert 'pbtime.Local = pbtime.FixedZone("PBZ", 10800)' in go
    java = _text("java", "ReconcilerTest#settlesInvoiceBilledForFractionalHours", ZONED, shift=13)
    start, report = java.index('TimeZone.getTimeZone("GMT+03:00")); try {'), java.index("pb-value:")
    assert start < java.index("new Reconciler().reconcile(") < report < java.index("setDefault(pbZoneWas)")
    js = _text("javascript", "evicts the least recently used numeric key", ZONED, shift=13)
    assert "process.env.TZ = 'Etc/GMT-3'; try {" in js and "delete process.env.TZ" in js
    assert ZONED in _variants(_planted("go")) and ZONED not in _variants(_planted("rust"))
