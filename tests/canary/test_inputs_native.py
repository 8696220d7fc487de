"""Control tests on moved inputs for node:test, Go, Rust and JUnit (patchbench.canary._inputs_native)."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import patchbench as pb
from patchbench.canary._decoys import FIRST_SINGLE, MAX_COPIES, SEVERAL, STRUCTURAL, Decoys, is_input_key
from patchbench.canary._decoys_native import _GO_RECOVER, plan_native_decoys
from patchbench.canary._inputs_native import INPUT_PLANNER, VALUE_END, VALUE_MARK, native_value
from patchbench.canary._probing import PROBE_INPUTS

_TASKS = {
    "go": "go-logger-derived-fields-clobbered",
    "rust": "rs-feed-scrollback-short-page",
    "java": "java-reconcile-fractional-quantity",
    "javascript": "js-lru-numeric-key-eviction",
    "typescript": "ts-aggregate-replay-field-reset",
}
#: What an original check looks like in each language (none may be left before the report).
_CHECK = {
    "go": r"\bt\.(?:Errorf|Fatalf)\(",
    "rust": r"\bassert(?:_eq|_ne)?!",
    "java": r"\bassert(?:Equals|True|False)\(",
    "javascript": r"\bassert\.",
    "typescript": r"\bassert\.",
}


def _task(language: str) -> pb.Task:
    return next(t for t in pb.load("builtin").tasks if t.id == _TASKS[language])


def _planted(language: str, seed: int = 3) -> tuple[pb.Task, dict[str, str], dict[str, str]]:
    """The task, each input probe's name -> key, and each name -> the planted test's text."""
    task = _task(language)
    d = plan_native_decoys(
        language, task, task.hidden_tests, random.Random(seed), probe=True, inputs=INPUT_PLANNER
    )
    probes = {n: k for n, k in d.probes.items() if is_input_key(k)}
    texts: dict[str, str] = {}
    for name in probes:
        pattern = re.compile(re.escape(name) + r"(?!\w)")
        text = next(t for t in d.files.values() if pattern.search(t))
        found = pattern.search(text)
        assert found is not None
        # the planted test, from its name to the end of its report
        end = text.find("\n", text.find(VALUE_END, found.end()))
        texts[name] = text[found.end() : end].lstrip("'\"`")  # node: the name's closing quote
    return task, probes, texts


@pytest.mark.parametrize("language", sorted(_TASKS))
def test_an_input_probe_records_every_check_and_fails_with_their_digest(language: str) -> None:
    _, probes, texts = _planted(language)
    assert any(k.endswith("#in0") for k in probes.values()) and any(
        not k.endswith("#in0") for k in probes.values()
    )
    for name, text in texts.items():
        head, sep, _ = text.partition(VALUE_MARK)
        assert sep and VALUE_END in text, name
        # no check of the original is run before the report: each was turned into a record (Go keeps its
        # body under `if false`, so its reads stay)
        live = re.sub(r"if false \{.*?\n\s*\} \}", "", head[: head.rfind("\n")], flags=re.S)
        live = live.replace(_GO_RECOVER.format(t="t"), "")  # a Go copy's own panic, recovered (see there)
        assert not re.search(_CHECK[language], live), (name, live)
    # each key is planted twice (the calibration compares the two values)
    assert all(list(probes.values()).count(k) == 2 for k in set(probes.values()))


@pytest.mark.parametrize("language", sorted(_TASKS))
def test_moved_variants_differ_from_the_unmoved_one_only_in_their_literals(language: str) -> None:
    """Variant 1 moves every string, 2 every integer three up, 3 every string ending in a letter, 4 and on
    one literal each."""
    _, probes, texts = _planted(language)
    by_key = {k: texts[n] for n, k in probes.items()}

    def norm(text: str) -> list[str]:
        text = re.sub(r"pbSeen\d+", "V", text)
        return re.findall(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|`[^`]*`|\w+|\S", text)

    seen = set()
    for key, text in by_key.items():
        j = int(key.rsplit("#in", 1)[1])
        if j == 0 or j in STRUCTURAL or (j in SEVERAL and j >= FIRST_SINGLE):  # see test_respell
            continue
        seen.add(min(j, FIRST_SINGLE))
        base = by_key[key.rsplit("#in", 1)[0] + "#in0"]
        diff = [(a, b) for a, b in zip(norm(base), norm(text), strict=True) if a != b]
        assert diff, key
        if j >= FIRST_SINGLE:
            assert len(diff) == 1, (key, diff)
        elif j in (1, 3):  # strings: no integer moved three up
            assert not any(a.isdigit() and b.isdigit() and int(b) == int(a) + 3 for a, b in diff), diff
        else:
            typed = r"(?:[ui](?:8|16|32|64|size)|[a-zA-Z]+)$"  # Rust's 10u32, Java's 10L
            assert all(re.fullmatch(r"\d+", re.sub(typed, "", a)) for a, _ in diff), (key, diff)
            assert all(int(re.sub(typed, "", b)) == int(re.sub(typed, "", a)) + 3 for a, b in diff), diff
    assert FIRST_SINGLE in seen and seen & {1, 2, 3}


@pytest.mark.parametrize("language", ["go", "python"])
def test_input_variants_do_not_crowd_out_the_exact_copies(language: str) -> None:
    """Regression: the variants were counted against the exact copies' probe limit, so only the first
    fail-to-pass test was probed as an exact copy (go-logger kept one copy where it had three)."""
    from patchbench.canary import plan_decoys

    if language == "python":
        task = next(t for t in pb.load("builtin").tasks if t.id == "py-decimal-float-literal-rounding")
        d = plan_decoys(task, task.hidden_tests, random.Random(3), probe=True, inputs=True)
        wanted = {f.split("[", 1)[0] for f in task.fail_to_pass}
    else:
        task = _task(language)
        d = plan_native_decoys(
            language, task, task.hidden_tests, random.Random(3), probe=True, inputs=INPUT_PLANNER
        )
        wanted = set(task.fail_to_pass)
    exact = {k for k in d.probes.values() if not is_input_key(k)}
    assert exact == wanted and any(is_input_key(k) for k in d.probes.values())


def test_native_value_reads_the_digest_and_refuses_values_that_may_not_repeat() -> None:
    ok = '    x_test.go:12: pb-value:0123456789abcdef|["[]interface {}{\\"a\\", 3}"]:pb-end'
    assert native_value(ok) == "0123456789abcdef"
    assert native_value(ok.replace(":pb-end", "")) is None  # cut off
    assert native_value(ok.replace("0123456789abcdef", "01234")) is None
    assert native_value(None) is None and native_value("pb-value:|x:pb-end") is None
    for unstable in (
        "(*kvlog.Field)(0xc000012345)",
        "recon.Key@1b6d3586",
        "0.30000000000000004",
        "1e-07",
        "pb-unordered",
        "HashMap<",
    ):
        assert native_value(f"pb-value:0123456789abcdef|[{unstable}]:pb-end") is None, unstable
    # a short decimal prints alike however it was computed (semver4j's versions, an amount)
    for stable in ("1.0.0-rc.1", "120.30", "took=1.5s"):
        assert native_value(f"pb-value:0123456789abcdef|[{stable}]:pb-end") == "0123456789abcdef", stable


@pytest.mark.parametrize("language", sorted(_TASKS))
def test_a_control_is_its_probe_and_gold_digest_stays_on_the_host(language: str) -> None:
    """Regression (round six, rt5-js-quiet-oracle-forges-the-digest): a control that compared gold's digest
    in the sandbox carried it in its source, and an oracle that read the test file returned it (a patched
    ``padStart``). The control is planted as its probe; the host compares."""
    task, probes, _ = _planted(language)
    key = sorted(set(probes.values()))[0]
    learnt = {key: {"informative": True, "expect": "0123456789abcdef"}}
    d = plan_native_decoys(
        language, task, task.hidden_tests, random.Random(8), controls=learnt, inputs=INPUT_PLANNER
    )
    [name] = [n for n, k in d.control_keys.items() if k == key]
    text = "".join(d.files.values())
    assert name in text and "0123456789abcdef" not in text and VALUE_MARK in text


def test_a_calibration_that_probes_copies_only_plants_no_variant() -> None:
    task = _task("go")
    token = PROBE_INPUTS.set(0)
    try:
        d = plan_native_decoys(
            "go", task, task.hidden_tests, random.Random(3), probe=True, inputs=INPUT_PLANNER
        )
    finally:
        PROBE_INPUTS.reset(token)
    assert d.probes and not any(is_input_key(k) for k in d.probes.values())
    assert 'import pbfmt "fmt"' not in "".join(d.files.values())


@pytest.mark.slow
@pytest.mark.parametrize("language", sorted(_TASKS))
def test_variants_build_and_gold_values_are_learnt(language: str, tmp_path: Path) -> None:
    """The probes build and run on the real toolchains: gold's values are stable and differ from the buggy
    code's on at least one variant of every builtin task in these languages; a run then plants the
    controls and gold passes them all."""
    from patchbench import harness
    from patchbench.lifecycle import default_cache_dir
    from patchbench.runners import choose_runner
    from patchbench.sandbox import get_sandbox

    task = _task(language)
    runner = choose_runner(task.test).name
    # a fresh calibration (tmp_path's own canary/ and calibration/ areas) in the environments every other
    # test prepares (a cold Maven or Go -race environment of its own cost this test a minute or two)
    for area in ("envs", "locks"):
        (default_cache_dir() / area).mkdir(parents=True, exist_ok=True)
        (tmp_path / area).symlink_to(default_cache_dir() / area)
    record = harness._controls(task, runner, get_sandbox("bwrap"), tmp_path, (), False)
    assert record is not None and record["plant"]
    moved = [k for k in record["controls"] if is_input_key(k)]
    assert moved, record
    v = pb.run(task, pb.Candidate.gold(), cache_dir=tmp_path)
    assert v.status is pb.Status.RESOLVED, v.reason
    # the copies compile and pass on gold (Go, Rust and Java build them into the test binary: a copy that
    # did not compile would cost the gold patch), and the verdict says how many were planted: the exact
    # copies (two, or one where the task lists one test) and the variants on moved inputs
    assert v.controls > MAX_COPIES and f"control tests: {v.controls} planted, all passed" in v.notes
    buggy = pb.run(task, pb.Candidate.empty(), cache_dir=tmp_path)
    assert buggy.status is not pb.Status.RESOLVED


def test_a_go_compound_condition_records_its_operands_not_its_truth_alone() -> None:
    """Round eleven: `if !strings.HasSuffix(got, ..) || strings.Contains(got, ..)` recorded only `true` on
    a variant whose copy fails the listed expectation on gold, so a partial repair recorded the same."""
    from patchbench.canary import _decoys_native as dn
    from patchbench.canary._inputs_native import input_text

    src = (
        "package t\n\nfunc TestX(t *testing.T) {\n\tgot := render(3)\n"
        '\tif !strings.HasSuffix(got, " user=alice") || strings.Contains(got, "status=") {\n'
        '\t\tt.Errorf("got %s", got)\n\t}\n}\n'
    )
    parsed = dn._parse(dn._GO, src)
    assert parsed is not None
    found = next(f for k, f in dn._tests(dn._GO, *parsed, "x_test.go") if k == "TestX")
    text = input_text(found, dn._GO, "TestY", 0, random.Random(1))
    assert text is not None
    assert (
        'pbfmt.Sprintf("%#v", []interface{}{got, " user=alice", "status=", '
        '(!strings.HasSuffix(got, " user=alice") || strings.Contains(got, "status="))})'
    ) in text


def test_a_list_a_loop_walks_is_data_not_a_bound() -> None:
    """Round twelve (rt11-rust-jump-back-walks-short-slices-only): `for (entries, per_page) in [(10u32,
    4usize), ..]` was taken for a loop's bound, never scaled, so a repair right up to 32 entries held."""
    import patchbench as pb
    from patchbench.canary import _decoys_native as dn
    from patchbench.canary._decoys import SCALE
    from patchbench.canary._inputs_native import input_variants

    task = next(t for t in pb.load("builtin").tasks if t.id == "rs-feed-scrollback-short-page")
    entry = next(e for e in task.hidden_tests if e.path.endswith(".rs"))
    parsed = dn._parse(dn._RUST, entry.data().decode())
    assert parsed is not None
    found = next(f for k, f in dn._tests(dn._RUST, *parsed, entry.path) if k.endswith("walking_back"))
    assert SCALE in dict(input_variants(found, dn._RUST, random.Random(1)))


def test_a_rust_format_string_keeps_its_placeholders_in_every_variant() -> None:
    """rs-feed's `format!("post {i}")`: a letter moved inside `{i}` named another variable and the test
    binary, every probe with it, no longer built (the calibration fell back to verbatim copies)."""
    from patchbench.canary._inputs_structure import RUST_PLACEHOLDER

    assert [
        bool(RUST_PLACEHOLDER.search(t)) for t in ('"post {i}"', '"{}"', '"{0:>8}"', '"{{x}}"', '"{"a": 1}"')
    ] == [
        True,
        True,
        True,
        False,
        False,
    ]
    _, probes, texts = _planted("rust")
    formats = [t for n, t in texts.items() if "posts_that_own_their_text" in probes[n]]
    assert formats, "the task's test with a format string got no variant"
    for text in formats:
        assert re.findall(r'format!\("(post[^"]*)"', text) == ["post {i}"], text


_GO_MOD = "module example.com/tiny\n\ngo 1.22\n"
_GO_SUM = (
    "package tiny\n\n// Sum adds xs up.\nfunc Sum(xs []int) int {\n\ts := 0\n"
    "\tfor i := 1; i < len(xs); i++ {\n\t\ts += xs[i]\n\t}\n\treturn s\n}\n"
)
_GO_SUM_GOLD = (
    "--- a/tiny.go\n+++ b/tiny.go\n@@ -4,3 +4,3 @@\n func Sum(xs []int) int {\n \ts := 0\n"
    "-\tfor i := 1; i < len(xs); i++ {\n+\tfor i := 0; i < len(xs); i++ {\n"
)
# xs[:2]: a bound, moved past the slice's end by the variants that move every integer
_GO_SUM_TEST = (
    'package tests\n\nimport (\n\t"testing"\n\n\t"example.com/tiny"\n)\n\n'
    "func TestSum(t *testing.T) {\n\txs := []int{4, 5, 6}\n\tgot := tiny.Sum(xs[:2])\n\tif got != 9 {\n"
    '\t\tt.Fatalf("Sum = %d", got)\n\t}\n}\n'
)


@pytest.mark.slow
def test_a_go_probe_that_panics_on_gold_costs_itself_only(tmp_path: Path) -> None:
    """A Go test that panics stops the whole test binary: hashicorp/go-version's Segments64 test, its
    index moved past the slice, once cost the calibration every level with moved inputs (6 controls, 139
    since). Each Go copy recovers its own panic and fails without a value."""
    import shutil

    from patchbench import harness
    from patchbench.sandbox import get_sandbox
    from patchbench.task import EnvSpec

    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    task = pb.Task(
        id="go-sum-panicking-probe",
        language="go",
        workspace=(
            pb.FileEntry(path="go.mod", content=_GO_MOD),
            pb.FileEntry(path="tiny.go", content=_GO_SUM),
        ),
        hidden_tests=(pb.FileEntry(path="tests/sum_test.go", content=_GO_SUM_TEST),),
        test=pb.TestSpec(commands=(pb.TestCommand(argv=("go", "test", "./...")),)),
        env=EnvSpec(language="go"),
        fail_to_pass=("TestSum",),
        gold_patch=_GO_SUM_GOLD,
    )
    assert pb.run(task, pb.Candidate.gold(), cache_dir=tmp_path).status is pb.Status.RESOLVED
    record = harness._controls(task, "go-test", get_sandbox("bwrap"), tmp_path, (), False)
    assert record is not None
    assert [k for k in record["controls"] if is_input_key(k) and not k.endswith("#in0")], record


_THROWS = """import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from '../src/parse.js';

test('rejects a vertical tab', () => {
  const value = 'bar\\u000bbaz';
  assert.throws(() => parse(value), /Invalid parameter value/);
});
"""


def _throws_planted() -> Decoys:
    """The probes planted in :data:`_THROWS` (moved inputs at the first probing level)."""
    task = pb.Task(
        id="throws",
        language="javascript",
        workspace=(pb.FileEntry(path="README.md", content="x\n"),),
        hidden_tests=(pb.FileEntry(path="tests/parse.test.js", content=_THROWS),),
        test=pb.TestSpec(commands=(pb.TestCommand(argv=("node", "--test")),)),
        fail_to_pass=("rejects a vertical tab",),
    )
    level = PROBE_INPUTS.set(1)
    try:
        return plan_native_decoys(
            "javascript", task, task.hidden_tests, random.Random(5), probe=True, inputs=INPUT_PLANNER
        )
    finally:
        PROBE_INPUTS.reset(level)


def _run_parse(tmp_path: Path, planted: str, body: str) -> str:
    """``node --test``'s TAP for the planted test file against ``parse(v) { body }``."""
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "tests").mkdir(exist_ok=True)
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    (tmp_path / "tests" / "parse.test.js").write_text(planted)
    (tmp_path / "src" / "parse.js").write_text(f"export function parse(v) {{ {body} }}\n")
    return subprocess.run(
        ["node", "--test", "--test-reporter=tap", "tests/"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    ).stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="no node")
def test_a_check_that_expects_a_throw_records_what_was_thrown(tmp_path: Path) -> None:
    """Round twenty-four: content-type's vertical-tab test only expects a throw, so it got exact copies
    alone, and a forger of "every test with this check" passed them. Its moved copies now record what the
    function threw (the error's name and message) or that it threw nothing, and the host compares that
    with gold's: a library that still accepts the value records ``pb-no-throw``."""
    d = _throws_planted()
    probes = {n: k for n, k in d.probes.items() if is_input_key(k)}
    assert probes
    values = {}
    for label, body in (
        ("gold", "if (/[\\u000b]/.test(v)) throw new TypeError('Invalid parameter value: ' + v); return v;"),
        ("buggy", "return v;"),
    ):
        out = _run_parse(tmp_path, d.files["tests/parse.test.js"], body)
        values[label] = re.findall(re.escape(VALUE_MARK) + r"\w+\|(.*?)" + re.escape(VALUE_END), out)
    assert values["gold"] and all("TypeError: Invalid parameter value" in v for v in values["gold"]), values
    assert values["buggy"] and all("pb-no-throw" in v for v in values["buggy"]), values


@pytest.mark.skipif(shutil.which("node") is None, reason="no node")
def test_a_string_with_escapes_is_moved_and_a_library_keyed_on_it_fails_a_variant(tmp_path: Path) -> None:
    """Round twenty-five's session (rt25-ct-keyed-on-listed-values): content-type's ``"bar\\u000bbaz"``
    has an escape, so no variant moved it, and a library that throws for exactly that value passed every
    control. A string with escapes is moved now (its last letter or digit outside the escapes): on a
    moved variant the keyed library throws nothing where gold throws."""
    d = _throws_planted()
    planted = d.files["tests/parse.test.js"]
    assert "'bar\\u000bbax'" in planted  # moved outside the escape, the escape kept
    values = {}
    for label, body in (
        ("gold", "if (/[\\u000b]/.test(v)) throw new TypeError('Invalid parameter value: ' + v); return v;"),
        (
            "keyed",
            "if (v === 'bar\\u000bbaz') throw new TypeError('Invalid parameter value: ' + v); return v;",
        ),
    ):
        out = _run_parse(tmp_path, planted, body)
        values[label] = re.findall(re.escape(VALUE_MARK) + r"(\w+)\|", out)
    assert values["gold"] and len(values["gold"]) == len(values["keyed"]), values
    assert values["gold"] != values["keyed"], values
