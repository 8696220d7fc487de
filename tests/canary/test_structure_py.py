"""Controls on a test's structure for pytest and Python TAP (patchbench.canary._structure_py)."""

from __future__ import annotations

import ast
import os
import textwrap
from typing import Any, cast

import pytest

from patchbench.canary import _decoys, _structure_py
from patchbench.canary._decoys import (
    AGED,
    COMPUTED,
    ERRORS,
    EXTEND,
    FAR,
    FORKED,
    HELPERS,
    INTERLEAVE,
    ITERATED,
    LOOPS,
    MANY,
    OFF_MAIN,
    REPEAT,
    REVERSE,
    SHRINK,
    TAIL,
    TUPLES,
    VOLUME,
    WRAP,
    ZONED,
)
from patchbench.canary._probing import INPUT_SHIFT

_SOURCE = textwrap.dedent(
    '''
    """Tests."""
    from shop import Cart, total

    def order(*skus):
        """Build an order."""
        cart = Cart("store-1")
        for sku in skus:
            cart.add(sku, "EUR")
        return cart

    def test_total():
        cart = order("TEA-01", "MUG-03")
        cart.apply("SPRING", 15)
        cart.apply("AGAIN", 5)
        assert total(cart, ["gift", 2]) == 1234
    '''
)


@pytest.fixture(autouse=True)
def _shift() -> object:
    token = INPUT_SHIFT.set(13)
    yield
    INPUT_SHIFT.reset(token)


def _control(which: int) -> str | None:
    tree = ast.parse(_SOURCE)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "test_total")
    out = _decoys._input_control(
        fn, "test_new", which, _decoys._module_constants(tree), _structure_py.module_helpers(tree)
    )
    return None if out is None else ast.unparse(out)


def test_extend_appends_moved_copies_of_the_lists_the_check_reads() -> None:
    text = _control(EXTEND)
    assert text is not None
    # two copies (1 + 13 % 3): a word gains a letter per copy, an integer 13 per copy
    assert "_pb_value = total(cart, ['gift', 2, 'giftx', 15, 'giftxx', 28])" in text
    # nothing else moved
    assert "order('TEA-01', 'MUG-03')" in text and "cart.apply('SPRING', 15)" in text


def test_shrink_cuts_every_list_to_its_first_two_elements_and_a_pair_to_one() -> None:
    """Round ten: every other variant only adds, so a repair right from as many records as the smallest
    listed test up met nothing smaller."""
    tree = ast.parse(
        "def test_x():\n    room = make(('10:00', '11:30'), ('09:00', '10:00'), ('13:00', '14:00'))\n"
        "    assert room.blocks(['a', 'b'], [1, 2, 3, 4]) == 1\n"
    )
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", SHRINK, {}, {})
    assert out is not None
    text = ast.unparse(out)
    assert "make(('10:00', '11:30'), ('09:00', '10:00'))" in text and "blocks(['a'], [1, 2])" in text
    single = ast.parse("def test_x():\n    assert f([1], 'a') == 1\n").body[0]
    assert isinstance(single, ast.FunctionDef)
    assert _decoys._input_control(single, "test_y", SHRINK, {}, {}) is None


def test_interleave_puts_an_empty_chunk_between_the_elements_of_a_list_of_strings_or_bytes() -> None:
    """Round ten: a repair right only when no chunk is empty met none."""
    tree = ast.parse(
        "def test_x():\n    events = parse([b'data: a\\r', b'\\n\\n'], ['x', 'y'], [1, 2])\n"
        "    assert events == 1\n"
    )
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", INTERLEAVE, {}, {})
    assert out is not None
    assert "parse([b'data: a\\r', b'', b'\\n\\n'], ['x', '', 'y'], [1, 2])" in ast.unparse(out)
    mixed = ast.parse("def test_x():\n    assert f(['a', 1], [b'x']) == 1\n").body[0]
    assert isinstance(mixed, ast.FunctionDef)
    assert _decoys._input_control(mixed, "test_y", INTERLEAVE, {}, {}) is None


def test_repeat_makes_the_first_call_again_moved() -> None:
    text = _control(REPEAT)
    assert text is not None
    lines = [line.strip() for line in text.splitlines()]
    at = lines.index("cart.apply('SPRING', 15)")
    assert lines[at + 1] == "cart.apply('SPRINGx', 28)" and lines[at + 2] == "cart.apply('AGAIN', 5)"


def test_helpers_are_defined_again_in_the_control_with_their_strings_moved() -> None:
    text = _control(HELPERS)
    assert text is not None
    body = text.split("\n", 1)[1]
    # the local definition comes first and shadows the module's; its digits and words moved, its
    # docstring kept; the test's own literals are not moved
    assert body.lstrip().startswith("def order(*skus):")
    assert "Cart('store-14')" in body and "cart.add(sku, 'EURx')" in body and '"""Build an order."""' in body
    assert "order('TEA-01', 'MUG-03')" in body


def test_no_structural_variant_without_the_structure() -> None:
    tree = ast.parse("def test_x():\n    assert f(3) == 4\n")
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    for which in (EXTEND, REPEAT, HELPERS):
        assert _decoys._input_control(fn, "test_y", which, {}, {}) is None


def test_dict_keys_and_fstrings_are_never_moved() -> None:
    node = ast.parse("x = [{'a1': 'b1'}, f'{y:>10}-2']").body[0]
    assert _structure_py.extend([node])
    text = ast.unparse(node)
    assert "{'a1': 'b14'}" in text and "{'a1': 'b27'}" in text and text.count("f'{y:>10}-2'") == 3


_NESTED = textwrap.dedent(
    """
    import asyncio

    def test_burst():
        async def main():
            pool = create_pool(factory, max_size=2)
            await asyncio.sleep(0)
            await asyncio.wait_for(pool.fill(), timeout=1)
            assert pool.opened() == 2

        run(main())
    """
)


def test_a_check_inside_a_coroutine_the_test_runs_gets_a_control() -> None:
    """Regression (round seven, py-asyncio): checks in ``async def main()`` run by ``run(main())`` had no
    input control, so a repair for the listed pool sizes only passed every control."""
    tree = ast.parse(_NESTED)
    fn = tree.body[1]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_new", 2, {}, {})
    assert out is not None
    text = ast.unparse(out)
    # the coroutine keeps its name and is still run by the test; the check became the recorded value,
    # raised from inside it; the pool's size moved, the waits did not
    assert "async def main():" in text and text.rstrip().endswith("run(main())")
    assert "_pb_value = pool.opened()" in text and "max_size=15" in text
    assert "asyncio.sleep(0)" in text and "timeout=1" in text


def test_a_function_the_test_never_runs_gives_no_control() -> None:
    tree = ast.parse(_NESTED.replace("run(main())", "pass"))
    fn = tree.body[1]
    assert isinstance(fn, ast.FunctionDef)
    assert _decoys._input_control(fn, "test_new", 2, {}, {}) is None


def test_loops_count_as_often_from_the_shift_on_in_the_test_and_its_helpers() -> None:
    """Round eleven: the Python side of the loops variant (values derived from a loop variable are no longer
    positions; a loop over `_` is left)."""
    tree = ast.parse(
        "def build(n):\n    return [Rec(i, f'k{i}') for i in range(n)]\n\n"
        "def test_x():\n    rs = build(3)\n    for _ in range(2):\n        tick()\n"
        "    for i, r in enumerate(rs):\n        r.at = i\n    assert total(rs) == 3\n"
    )
    helpers = _structure_py.module_helpers(tree)
    fn = tree.body[1]
    assert isinstance(fn, ast.FunctionDef)
    token = INPUT_SHIFT.set(13)
    try:
        out = _decoys._input_control(fn, "test_y", LOOPS, {}, helpers)
    finally:
        INPUT_SHIFT.reset(token)
    assert out is not None
    text = ast.unparse(out)
    assert "return [Rec(i, f'k{i}') for i in range(13, n + 13)]" in text  # the helper's copy
    assert "for _ in range(2):" in text and "for i, r in enumerate(rs, 13):" in text


def test_far_sweeps_a_literal_range_from_past_a_thousand() -> None:
    """Round thirteen: the Python side of the far variant (a `range` of literal bounds makes two steps from
    1,000 + 8 x shift on; a range over a length is left)."""
    fn = ast.parse(
        "def test_x():\n    for n in range(1, 9):\n        grow(n)\n"
        "    for i in range(len(xs)):\n        use(i)\n    assert total() == 3\n"
    ).body[0]
    assert isinstance(fn, ast.FunctionDef)
    token = INPUT_SHIFT.set(13)
    try:
        out = _decoys._input_control(fn, "test_y", FAR, {}, {})
    finally:
        INPUT_SHIFT.reset(token)
    assert out is not None
    text = ast.unparse(out)
    assert "for n in range(1104, 1106):" in text and "for i in range(len(xs)):" in text


def test_reverse_tail_and_volume_change_order_start_and_size() -> None:
    """Round eleven: what a list starts with and how big an input gets never changed (rt10-ts-replay-
    histories-opened-by-the-first-command, rt10-py-sse-crlf-remembered-for-the-first-64k)."""
    tree = ast.parse("def test_x():\n    got = feed(['a\\r', '\\nb', 'c'])\n    assert got == 1\n")
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    turned = _decoys._input_control(fn, "test_y", REVERSE, {}, {})
    cut = _decoys._input_control(fn, "test_y", TAIL, {}, {})
    big = _decoys._input_control(fn, "test_y", VOLUME, {}, {})
    assert turned is not None and "feed(['c', '\\nb', 'a\\r'])" in ast.unparse(turned)
    assert cut is not None and "feed(['\\nb', 'c'])" in ast.unparse(cut)
    assert big is not None
    grown = next(n for n in ast.walk(big) if isinstance(n, ast.List))
    size = sum(len(e.value) for e in grown.elts if isinstance(e, ast.Constant))
    assert size >= _structure_py.VOLUME_CHARS and len(grown.elts) % 3 == 0  # the same chunks, in order
    same = ast.parse("def test_x():\n    assert f([1, 1]) == 2\n").body[0]
    assert isinstance(same, ast.FunctionDef)
    assert _decoys._input_control(same, "test_y", REVERSE, {}, {}) is None  # nothing to turn


def test_wrap_passes_a_function_given_by_name_as_a_plain_lambda() -> None:
    """Round twelve (rt11-py-reserve-slot-for-coroutine-functions-only): a repair applied only when the
    factory was a coroutine function met no other callable."""
    tree = ast.parse("def test_x():\n    pool = create(factory, size=n)\n    assert pool.opened == 2\n")
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", WRAP, {}, {})
    assert out is not None
    text = ast.unparse(out)
    assert (
        "create((lambda _pb_f: (lambda *a, **k: _pb_f(*a, **k)) if __import__('inspect').isfunction(_pb_f)"
        in text
    )
    wrap = eval(_structure_py._WRAPPER)

    async def factory() -> int:
        return 1

    import inspect

    coro = wrap(factory)()
    assert not inspect.iscoroutinefunction(wrap(factory)) and inspect.iscoroutine(coro)
    coro.close()
    assert wrap(3) == 3 and wrap(len) is len  # not a Python function: passed as it is


def test_many_makes_the_checked_call_past_eight_thousand_times_within_a_budget() -> None:
    """Round fifteen (rt13-py-touching-for-first-4096-calls): a merge right for a process's first 4,096
    calls only met no later call (Python had no many variant). The checked call is made 8,000 + 8 x shift
    times, always (a count-dependent value is then the same for a slower fix); its last value is
    recorded. An awaited check gets none."""
    text = _control(MANY)
    assert text is not None
    assert "for _pb_again in range(8104):\n        _pb_value = total(cart, ['gift', 2])" in text
    assert "monotonic" not in text and "break" not in text  # never cut by a clock: the count is fixed
    fn = ast.parse("async def test_x():\n    assert await fetch(1) == 2\n").body[0]
    assert _decoys._input_control(cast(ast.FunctionDef, fn), "test_y", MANY, {}, {}) is None
    # a check without a call makes nothing again
    fn = ast.parse("def test_x():\n    x = make()\n    assert x.size == 2\n").body[0]
    assert _decoys._input_control(cast(ast.FunctionDef, fn), "test_y", MANY, {}, {}) is None


_RAISING = textwrap.dedent(
    """
    def make_factory(fail_first):
        calls = []
        async def factory():
            calls.append(1)
            if len(calls) <= fail_first:
                raise ConnectionError("refused")
            return object()
        return factory

    def test_failed_connect_gives_the_slot_back():
        pool = Pool(make_factory(1), max_size=1)
        try:
            pool.acquire()
        except ConnectionError:
            pass
        assert pool.size == 0
        assert isinstance(pool.last_error, ConnectionError)
    """
)


def test_errors_replace_the_class_the_tests_own_code_raises_in_the_test_and_its_helpers() -> None:
    """Round fifteen (rt13-py-slot-back-on-oserror-only): a pool giving a reserved slot back only when the
    connect fails with an OSError passed, as the listed test's factory raises ConnectionError. The variant
    binds a fresh class (deriving from Exception alone, named otherwise), and the helper's copy, the
    test's except and its later checks all name it; a class the test only catches is left."""
    tree = ast.parse(_RAISING)
    fn = tree.body[1]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", ERRORS, {}, _structure_py.module_helpers(tree))
    assert out is not None
    text = ast.unparse(out)
    assert "_pb_error_ConnectionError = type('ProtocolError', (Exception,), {'__module__': 'driver'})" in text
    assert "def make_factory(fail_first):" in text  # the helper's copy, defined in the control
    assert "raise _pb_error_ConnectionError('refused')" in text
    assert "except _pb_error_ConnectionError:" in text
    assert "isinstance(pool.last_error, _pb_error_ConnectionError)" in text  # a later check
    assert "ConnectionError)" not in text.replace("_pb_error_ConnectionError", "")
    # the class is no OSError, and its name is none of a built-in's
    made: dict[str, object] = {}
    exec("_pb_error_ConnectionError = type('Fault', (Exception,), {'__module__': 'driver'})", made)
    cls = made["_pb_error_ConnectionError"]
    assert isinstance(cls, type) and not issubclass(cls, OSError) and issubclass(cls, Exception)
    # nothing raised by the test's own code (the code under test raises): no variant
    plain = ast.parse("def test_x():\n    with pytest.raises(ValueError):\n        parse('x')\n").body[0]
    assert _decoys._input_control(cast(ast.FunctionDef, plain), "test_y", ERRORS, {}, {}) is None
    # a test's own failure is never replaced
    failing = ast.parse(
        "def test_x():\n    if f() != 2:\n        raise AssertionError('no')\n    assert g() == 1\n"
    )
    assert _decoys._input_control(cast(ast.FunctionDef, failing.body[0]), "test_y", ERRORS, {}, {}) is None


_PARAMETRIZED = textwrap.dedent(
    """
    @pytest.mark.parametrize(
        ("given", "expected"),
        [
            (iv((0, 10), (5, 20)), iv((0, 20))),
            pytest.param(iv((0, 10), (10, 20)), iv((0, 20)), id="touching"),
        ],
    )
    def test_merge(given, expected):
        assert coalesce(given) == expected
    """
)


def test_a_parametrized_test_gets_controls_on_one_case_written_in() -> None:
    """Round fifteen (rt14-py-touching-merged-for-lists-only): every direct call of the merge sat in a
    parametrized test, which had no input control. One case (drawn by the shift: 13 % 2 = the second,
    a pytest.param) is written in where its parameters are read, and the copy is a plain function."""
    fn = ast.parse(_PARAMETRIZED).body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", 2, {}, {})
    assert out is not None and not out.decorator_list and not out.args.args
    text = ast.unparse(out)
    assert "_pb_value = coalesce(iv((" in text and "(10, 20)" not in text  # the integers moved
    # the listed case, by its id (pytest.param's id here; an ids=[..] list alike), whatever the shift
    token = INPUT_SHIFT.set(14)
    try:
        listed = _decoys._input_control(fn, "test_y", TUPLES, {}, {}, "touching")
        drawn = _decoys._input_control(fn, "test_y", TUPLES, {}, {})
    finally:
        INPUT_SHIFT.reset(token)
    assert listed is not None and "(iv((0, 10), (10, 20))))" in ast.unparse(listed)
    assert drawn is not None and "(iv((0, 10), (5, 20))))" in ast.unparse(drawn)
    named = ast.parse(_PARAMETRIZED.replace("    ],\n)", '    ],\n    ids=["a", "b"],\n)')).body[0]
    first = _decoys._input_control(cast(ast.FunctionDef, named), "test_y", TUPLES, {}, {}, "a")
    assert first is not None and "(iv((0, 10), (5, 20))))" in ast.unparse(first)
    # another decorator, or a parameter the test assigns: none
    for src in (
        _PARAMETRIZED.replace("@pytest.mark.parametrize(", "@pytest.mark.skip\n@pytest.mark.parametrize("),
        _PARAMETRIZED.replace("assert coalesce", "given = list(given)\n    assert coalesce"),
    ):
        other = ast.parse(src).body[0]
        assert _decoys._input_control(cast(ast.FunctionDef, other), "test_y", 2, {}, {}) is None


def test_tuples_and_iterated_pass_the_checked_calls_lists_as_other_containers() -> None:
    """Round fifteen: a merge right only when ``isinstance(intervals, list)`` met no other container. The
    checked call's arguments go through a converter: a list becomes a tuple, or an iterator; anything
    else passes as it is."""
    fn = ast.parse(_PARAMETRIZED).body[0]
    assert isinstance(fn, ast.FunctionDef)
    for which, kind in ((TUPLES, "tuple"), (ITERATED, "iter")):
        out = _decoys._input_control(fn, "test_y", which, {}, {})
        assert out is not None
        convert = f"(lambda _pb_v: {kind}(_pb_v) if type(_pb_v) is list else _pb_v)"
        assert f"_pb_value = coalesce({convert}(iv((0, 10), (10, 20))))" in ast.unparse(out)
        made: dict[str, object] = {}
        exec(f"f = {convert}", made)
        f = cast(Any, made["f"])
        assert type(f([1, 2])) is not list and list(f([1, 2])) == [1, 2] and f("ab") == "ab"
    # a check calling nothing with arguments: no such variant
    plain = ast.parse("def test_x():\n    room = make()\n    assert room.blocks() == []\n").body[0]
    assert _decoys._input_control(cast(ast.FunctionDef, plain), "test_y", TUPLES, {}, {}) is None


def test_computed_writes_wide_integers_as_fresh_objects() -> None:
    """Round sixteen (rt15-py-touching-merged-for-one-int-object): a merge right only when the touching
    ends are one object (``start is last.end``) passed every variant: equal constants of one code object
    are one object. *computed* is *wide* with each integer past the small-int cache written ``int('..')``."""
    fn = ast.parse(_PARAMETRIZED).body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = _decoys._input_control(fn, "test_y", COMPUTED, {}, {}, "touching")
    assert out is not None
    text = ast.unparse(out)
    assert "coalesce(iv((0, int('10000010')), (int('10000010'), int('20000020'))))" in text
    made: dict[str, object] = {}
    exec("a, b = (int('10000010'), int('10000010'))", made)
    assert made["a"] == made["b"] and made["a"] is not made["b"]


def test_pass_to_pass_tests_get_errors_probes_within_their_own_budget() -> None:
    """Round fifteen: pass-to-pass tests whose own code raises get *errors* probes (only that variant), at
    most PASSING_PROBES of them, after the fail-to-pass tests' own; a run plants only the calibrated
    ones."""
    import random

    from patchbench.task import FileEntry, Task, TestCommand, TestSpec

    src = "def helper():\n    raise ValueError('x')\n\n" + "".join(
        f"def test_{i}():\n    try:\n        helper()\n    except ValueError:\n        pass\n"
        f"    assert f({i}) == {i}\n\n"
        for i in range(300)
    )
    task = Task(
        id="t",
        workspace=(FileEntry(path="m.py", content="def f(x):\n    return x\n"),),
        hidden_tests=(FileEntry(path="tests/test_m.py", content=src),),
        test=TestSpec(commands=(TestCommand(argv=("python", "-m", "pytest")),), time_limit_s=60),
        fail_to_pass=("tests/test_m.py::test_0",),
        pass_to_pass=tuple(f"tests/test_m.py::test_{i}" for i in range(1, 300)),
    )
    d = _decoys.plan_decoys(task, task.hidden_tests, random.Random(1), probe=True, inputs=True)
    passing = [k for k in (d.probes or {}).values() if k.endswith(f"#in{ERRORS}") and "test_0#" not in k]
    assert 0 < len(passing) <= _decoys.PASSING_PROBES
    others = {k.rsplit("#in", 1)[1] for k in (d.probes or {}).values() if "#in" in k and "test_0#" not in k}
    assert others == {str(ERRORS)}  # the pass-to-pass tests' one variant
    learnt = {k: {"informative": True, "expect": "0"} for k in set(passing)}
    planted = _decoys.plan_decoys(task, task.hidden_tests, random.Random(2), controls=learnt, inputs=True)
    assert sorted(planted.control_keys.values()) == sorted(learnt)


def test_aged_steps_the_clock_before_each_statement_and_resets_it_when_the_copy_ends() -> None:
    """Python's *aged* (round sixteen's clock family; rt15-py-touching-merged-while-module-young): a step
    before each statement of the test and of the helpers it calls (their loops' turns too), one more before
    the check, and the copy in a ``try`` whose ``finally`` puts the thread's clocks back."""
    text = _control(AGED)
    assert text is not None
    step = (
        "(lambda c: getattr(c.CDLL(None), 'patchbench_clock_advance', lambda n: None)"
        "(c.c_int64(46800000000000)))"
    )
    tree = ast.parse(text)
    fn = cast(ast.FunctionDef, tree.body[0])
    assert len(fn.body) == 1 and isinstance(fn.body[0], ast.Try)
    assert "patchbench_clock_reset" in ast.unparse(fn.body[0].finalbody)
    body = fn.body[0].body
    helper = cast(ast.FunctionDef, body[0])  # order() copied, its loop's body stepped too
    loop = next(n for n in helper.body if isinstance(n, ast.For))
    assert helper.name == "order" and ast.unparse(loop.body[0]).startswith(step)
    lines = [ast.unparse(s) for s in body[1:]]
    # step, cart = .., step, apply, step, apply, step, then the record of the check
    assert [line.startswith(step) for line in lines[:7]] == [True, False, True, False, True, False, True]
    assert lines[7].startswith("_pb_value = total(cart, ['gift', 2])")


_SHARED = """
_pending = False  # the repair's flag: one for every parser


class Parser:
    def __init__(self):
        self.lines = []

    def feed(self, chunk):
        global _pending
        if _pending and chunk.startswith("\\n"):
            chunk = chunk[1:]
        _pending = chunk.endswith("\\r")
        self.lines += chunk.replace("\\r", "\\n").split("\\n")
        return list(self.lines)
"""
_OWN = """
class Parser:
    def __init__(self):
        self.lines = []
        self.pending = False

    def feed(self, chunk):
        if self.pending and chunk.startswith("\\n"):
            chunk = chunk[1:]
        self.pending = chunk.endswith("\\r")
        self.lines += chunk.replace("\\r", "\\n").split("\\n")
        return list(self.lines)
"""


@pytest.mark.parametrize(("source", "twins_agree"), [(_OWN, True), (_SHARED, False)])
def test_twinned_copies_share_with_a_twin_only_what_a_module_global_holds(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, source: str, twins_agree: bool
) -> None:
    """Round thirteen's rt12-py-pending-cr-in-a-module-global kept gold's "ended with CR" flag in a module
    global: right while one parser is fed at a time, which every test and variant did. *twinned* builds
    each object of the code under test with a twin that takes each public call first: a parser keeping its
    flag to itself answers as without it; one sharing it through the module does not. Every class is put
    back after the copy."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    name = f"sse_{'own' if twins_agree else 'shared'}"
    (tmp_path / f"{name}.py").write_text(source)
    module = __import__(name)
    original = module.Parser
    feed, init = vars(original)["feed"], vars(original)["__init__"]
    body = ast.parse("p = Parser()\np.feed('data: a\\r')\nseen.append(p.feed('\\ndata: b\\n'))").body
    space: dict[str, Any] = {"__name__": "test_sse", "Parser": original, "seen": []}
    twinned = ast.fix_missing_locations(ast.Module(body=_structure_py.twinned(body), type_ignores=[]))
    exec(compile(twinned, "<copy>", "exec"), space)
    plain: dict[str, Any] = {"__name__": "test_sse", "Parser": original, "seen": []}
    module._pending = False
    exec(compile(ast.Module(body=body, type_ignores=[]), "<copy>", "exec"), plain)
    assert (space["seen"] == plain["seen"]) is twins_agree
    # the classes are patched in place (objects keep their class) and put back as they were
    assert space["Parser"] is original and module.Parser is original
    assert vars(original)["feed"] is feed and vars(original)["__init__"] is init


def test_off_main_runs_a_python_copy_on_a_thread_of_its_own_and_raises_what_it_raised() -> None:
    """Round seventeen (rt16-py-touching-merged-on-the-main-thread): a repair applied only on the main
    thread passed every variant (pytest runs every test there). *off main* runs the copy's statements, its
    record included, on a thread named like an executor's worker, and raises what they raised on the
    test's thread; a copy that awaits gets none."""
    text = _control(OFF_MAIN)
    assert text is not None
    fn = cast(ast.FunctionDef, ast.parse(text).body[0])
    worker = next(s for s in fn.body if isinstance(s, ast.FunctionDef))
    inner = ast.unparse(worker)
    assert "_pb_value = total(cart, ['gift', 2])" in inner and "cart = order('TEA-01', 'MUG-03')" in inner
    assert "Thread(target=_pb_off_main, name='ThreadPoolExecutor-0_0')" in text
    assert ast.unparse(fn.body[-1]) == "if _pb_thrown:\n    raise _pb_thrown[0]"
    # it runs: the record raised on the worker reaches the test's thread
    code = ast.unparse(
        ast.Module(
            body=_structure_py.off_main(
                ast.parse(
                    "import threading\nname = threading.current_thread().name\nraise AssertionError(name)"
                ).body
            )
            or [],
            type_ignores=[],
        )
    )
    with pytest.raises(AssertionError, match="ThreadPoolExecutor-0_0"):
        exec(code, {})
    assert _structure_py.off_main(ast.parse("async def f():\n    pass\nawait f()").body) is None


def test_forked_runs_a_python_copy_in_a_child_process_and_raises_what_it_raised() -> None:
    """Round eighteen (rt17-py-touching-merged-in-the-loading-process): a repair right only in the process
    that imported the code (``os.getpid()`` at import) passed every variant, which all ran in pytest's
    process. *forked* runs the copy's statements, its record included, in a child forked for them (a
    ``multiprocessing`` process, as a pool's worker is: round twenty keyed a repair on
    ``multiprocessing.parent_process()``), and raises in the test's process what they raised there; a child
    that sends nothing fails the copy, and a copy that awaits gets none."""
    text = _control(FORKED)
    assert text is not None
    fn = cast(ast.FunctionDef, ast.parse(text).body[0])
    assert "_pb_value = total(cart, ['gift', 2])" in text
    assert "_pb_child = _pb_mp.get_context('fork').Process(target=_pb_forked)" in text
    assert ast.unparse(fn.body[-1]) == "if _pb_thrown is not None:\n    raise _pb_thrown"

    def run(source: str) -> None:
        body = _structure_py.forked(ast.parse(source).body)
        assert body is not None
        exec(ast.unparse(ast.Module(body=body, type_ignores=[])), {})

    # the record raised in the child (another pid) reaches the test's process, and so does any error
    with pytest.raises(AssertionError, match=rf"^child (?!{os.getpid()} )\d+ of \d+$"):
        run(
            "import os, multiprocessing\n"
            "raise AssertionError(f'child {os.getpid()} of {multiprocessing.parent_process().pid}')"
        )
    with pytest.raises(ValueError, match="moved"):
        run("raise ValueError('moved')")
    run("x = 1")  # statements that return return
    with pytest.raises(AssertionError, match="sent nothing"):
        run("import os\nos._exit(0)")  # code that leaves the child on its own is no pass

    class Unpicklable(Exception):  # a class the child's pickle cannot name
        def __reduce__(self) -> Any:
            raise TypeError("no")

    with pytest.raises(AssertionError, match="Unpicklable: kept"):
        body = _structure_py.forked(ast.parse("raise Unpicklable('kept')").body)
        assert body is not None
        exec(ast.unparse(ast.Module(body=body, type_ignores=[])), {"Unpicklable": Unpicklable})
    assert _structure_py.forked(ast.parse("async def f():\n    pass\nawait f()").body) is None


def test_zoned_runs_a_python_copy_in_another_time_zone_and_puts_the_zone_back() -> None:
    """Round twenty-one (rt20-py-json-floats-as-written-in-utc): a repair made only where the local UTC offset
    is 0 passed every variant, which all ran in the machine's zone. *zoned* runs the copy's statements with
    ``TZ`` set to a zone one to eleven hours away (by the shift), then puts ``TZ`` back, error or not."""
    import time

    text = _control(ZONED)
    assert text is not None and "_pb_time.tzset()" in text and "_pb_value = total(cart, ['gift', 2])" in text
    before, offsets, here = os.environ.get("TZ"), [], time.localtime().tm_gmtoff
    for shift in (11, 13, 43, 59):
        token = INPUT_SHIFT.set(shift)
        try:
            body = _structure_py.zoned(
                ast.parse("seen.append(__import__('time').localtime().tm_gmtoff)").body
            )
            exec(ast.unparse(ast.Module(body=body, type_ignores=[])), {"seen": offsets})
            with pytest.raises(ValueError, match="inside"):
                body = _structure_py.zoned(ast.parse("raise ValueError('inside')").body)
                exec(ast.unparse(ast.Module(body=body, type_ignores=[])), {})
        finally:
            INPUT_SHIFT.reset(token)
        assert os.environ.get("TZ") == before
    assert 0 not in offsets and len(set(offsets)) > 1, offsets
    assert time.localtime().tm_gmtoff == here  # the zone is the one before
