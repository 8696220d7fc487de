"""Control tests on moved inputs for node:test, Go, Rust and JUnit: what the test checks, captured.

A copy of a fail-to-pass test under a drawn name in which every check the copy keeps *records* the value
it checks (its computed side, rendered as text) instead of asserting it, with literals of the test's own
code before those checks moved (every string, every integer three up, every word, or one literal: see
:func:`_moves`), or none. It ends by failing with the digest of the recorded values and a preview
(``pb-value:<digest>|<preview>:pb-end``). A calibration run of the gold patch plants each variant twice;
the untouched task runs them too. A variant becomes a control when gold's values are stable, comparable
and not the buggy code's; a run plants it as it is (it fails there too), and the host compares the digest
it reports with gold's (:func:`patchbench.canary.control_passed`): gold's is never in the sandbox.

Correct code passes a control by construction of the calibration. Code that answers only the tests as
written fails it: an oracle keyed on a listed test's body finds no such body (the checks are gone), an
answer table keyed on the listed inputs meets an input it does not hold. A decoy cannot catch either (a
decoy fails on correct code too).

Gold safety first, as for the decoys: only checks this module knows (the assert forms of each language,
Go's ``if .. { t.Errorf(..) }``) are captured; the copy reports after the last top-level statement
holding one, and stops at any statement holding an assertion, a failure or an exit it cannot capture;
the code after the report is kept as it is but never runs (every name it reads stays read, so nothing
new is unused). A value that could differ between two correct runs is never kept: floats, pointers and
identity hashes, unordered sets and maps (by their runtime type where the language tells it).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from . import _respell
from ._decoys import (
    BOUNDS,
    DIGITS,
    FIRST_SINGLE,
    FRACTION,
    FUTURE,
    LATE,
    NEGATE,
    NEGATE_REST,
    OFF_MAIN,
    PRECISE,
    RESPELL,
    SCALE_DECIMALS,
    SCALES,
    SCRIPT,
    WIDE,
    ZERO,
    ZERO_REST,
    shifted_digits,
)
from ._decoys_native import (
    Node,
    _containers,
    _edited,
    _exits,
    _Found,
    _key_nodes,
    _Lang,
    _named,
    _perturb_leaf,
    _split_tokens,
    _statements,
    _t,
    _walk,
    expect_subject,
)
from ._inputs_structure import RUST_PLACEHOLDER, in_worker, structural
from ._probing import INPUT_SHIFT

#: The moved literals probed per test (the nearest to the checks first), and the tests probed per task (a
#: secret draw when it has more: round twelve's repair was right for the fourth listed test alone, which
#: the first three never reached).
MAX_MOVES = 3
MAX_TESTS = 6
VALUE_MARK = "pb-value:"
VALUE_END = ":pb-end"

_JS_CAPTURED = frozenset({
    "equal", "strictEqual", "deepEqual", "deepStrictEqual", "notEqual", "notStrictEqual", "notDeepEqual",
    "notDeepStrictEqual",
})  # fmt: skip
_JAVA_CAPTURED = frozenset({"assertEquals", "assertNotEquals", "assertTrue", "assertFalse", "assertNull",
                            "assertNotNull"})  # fmt: skip

#: What may fail or end a test without being a captured check: a statement holding one stops the copy.
_FAILS = {
    "go": r"\b{p}\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow|Skip|Skipf|SkipNow|Run|Parallel|Cleanup)\b"
    r"|\bpanic\(|\bos\.Exit\b|\bruntime\.Goexit\b|\blog\.Fatal",
    "rust": r"\b(?:assert\w*|debug_assert\w*|panic|unreachable|todo|unimplemented)!",
    "javascript": r"\bassert\b|\bexpect\b|\bt\.(?:plan|skip|todo|mock)\b|\bprocess\.exit\b",
    "java": r"\bassert\w*\s*\(|\bfail\s*\(|\bassume\w*\s*\(|\bSystem\.exit\b",
}
_FAILS["typescript"] = _FAILS["javascript"]


@dataclass(frozen=True)
class _Capture:
    """The spans of a test's copy: what each captured check becomes, and where the report goes."""

    edits: list[tuple[int, int, str]]
    checks: list[tuple[int, int]]  # the captured checks' spans (no literal in them is moved)
    report_at: int  # the byte after which the report is inserted


def _go_capture(stmt: Node, src: bytes, param: str, var: str) -> str | None:
    """``if [init;] COND { ..t.Errorf(..).. }`` (no ``else``): the check's operands recorded instead, the
    body kept but never run (``if false``), so every name it reads stays read."""
    if stmt.type != "if_statement" or stmt.child_by_field_name("alternative") is not None:
        return None
    body, cond = stmt.child_by_field_name("consequence"), stmt.child_by_field_name("condition")
    init = stmt.child_by_field_name("initializer")
    if body is None or cond is None:
        return None
    if not re.search(rf"\b{re.escape(param)}\.(?:Errorf?|Fatalf?|Fail|FailNow)\(", _t(src, body)):
        return None
    if re.search(_FAILS["go"].format(p=re.escape(param)), _t(src, cond)):
        return None
    if cond.type == "binary_expression" and _t(src, cond.child_by_field_name("operator") or cond) in (
        "!=",
        "==",
    ):
        left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        if left is None or right is None:
            return None
        what = f"[]interface{{}}{{{_t(src, left)}, {_t(src, right)}}}"
    elif cond.type == "unary_expression" and _t(src, cond).startswith("!"):
        call = cond.child_by_field_name("operand")
        args = _named(call.child_by_field_name("arguments") or call) if call is not None else []
        if call is None or call.type != "call_expression" or not args:
            what = f"({_t(src, cond)})"
        else:
            what = "[]interface{}{" + ", ".join(_t(src, a) for a in args) + f", {_t(src, cond)}}}"
    else:
        # a compound condition (`!HasSuffix(got, ..) || Contains(got, ..)`): the operands of its calls and
        # comparisons too, not its truth alone (round eleven: a variant whose copy fails the listed
        # expectation on gold, more fields logged, recorded `true` for gold and a partial repair alike)
        what = "[]interface{}{" + "".join(f"{x}, " for x in _go_operands(cond, src)) + f"({_t(src, cond)})}}"
    head = f"{_t(src, init)}; " if init is not None else ""
    return (
        f'if {head}true {{ {var} = append({var}, pbfmt.Sprintf("%#v", {what})); if false {_t(src, body)} }}'
    )


def _go_operands(cond: Node, src: bytes) -> list[str]:
    """The operands of the calls and comparisons in a Go condition, in order, each once; none that holds
    a call itself (recorded twice, it would run twice) or a function literal."""
    out: list[str] = []
    for n in _walk(cond):
        parts: list[Node] = []
        if n.type == "call_expression":
            parts = _named(n.child_by_field_name("arguments") or n)
        elif n.type == "binary_expression" and _t(src, n.child_by_field_name("operator") or n) in _COMPARE:
            parts = [
                p for p in (n.child_by_field_name("left"), n.child_by_field_name("right")) if p is not None
            ]
        for p in parts:
            if p.type == "comment" or any(c.type in ("call_expression", "func_literal") for c in _walk(p)):
                continue
            if _t(src, p) not in out:
                out.append(_t(src, p))
    return out


_COMPARE = frozenset({"==", "!=", "<", "<=", ">", ">="})


def _js_capture(stmt: Node, src: bytes, var: str) -> str | None:
    """``assert.equal(X, Y[, msg])`` and its kin (``X`` recorded, the rest still read), ``assert.ok(X)`` /
    ``assert(X)`` (its truth recorded), ``assert.throws(F, ..)`` / ``assert.doesNotThrow(F, ..)`` (what
    ``F()`` throws recorded: its error's name and message, or that it threw nothing); Vitest's and Jest's
    ``expect`` (:func:`_js_expect_capture`)."""
    if stmt.type != "expression_statement" or not stmt.named_children:
        return None
    call = stmt.named_children[0]
    if call.type == "await_expression":
        return None
    if call.type != "call_expression":
        return None
    if expect_subject(call, src) is not None:
        return _js_expect_capture(call, src, var)
    fn = call.child_by_field_name("function")
    args = _named(call.child_by_field_name("arguments") or call)
    if fn is None or not args or any(a.type == "spread_element" for a in args):
        return None
    name = _t(src, fn)
    rest = ", ".join(_t(src, a) for a in args[1:])
    tail = f" void [{rest}];" if rest else ""
    if name in {f"assert.{m}" for m in _JS_CAPTURED} and len(args) >= 2:
        # both sides: an expectation the test computes is a value too (each evaluated once, in order)
        msg = ", ".join(_t(src, a) for a in args[2:])
        return (
            f"{var}.push(String(JSON.stringify({_t(src, args[0])})), "
            f"String(JSON.stringify({_t(src, args[1])})));" + (f" void [{msg}];" if msg else "")
        )
    if name in ("assert", "assert.ok") and args:
        return f"{var}.push(String(!!({_t(src, args[0])})));{tail}"
    if name in ("assert.throws", "assert.doesNotThrow") and args:
        # what the function throws, if anything (round twenty-four: a check that only expects a throw had
        # exact copies alone, and a forger of "tests with this check" passed them): its error's class and
        # message, recorded like a value
        return f"{var}.push({_js_thrown(var, _t(src, args[0]))});{tail}"
    return None


def _js_thrown(var: str, fn: str) -> str:
    """What calling ``fn`` throws, as text: its error's name and message, or ``pb-no-throw``."""
    caught = f"String({var}E && {var}E.name) + ': ' + String({var}E && {var}E.message)"
    return f"(() => {{ try {{ ({fn})(); return 'pb-no-throw'; }} catch ({var}E) {{ return {caught}; }} }})()"


def _js_expect_capture(call: Node, src: bytes, var: str) -> str | None:
    """Vitest's and Jest's ``expect(X[, msg])[.not].M(ARGS)``: for a matcher of :data:`_EXPECT_VALUE`,
    ``X`` and ``ARGS`` recorded (as ``assert.equal``'s both sides); of :data:`_EXPECT_STATE`, ``X``'s
    type, nullness and truth; of :data:`_EXPECT_THROW`, what calling ``X`` throws. Any other matcher (a
    float's ``toBeCloseTo``, a mock's, a snapshot's) or chain (``.resolves``, ``.rejects``) is not
    captured: the copy stops before it."""
    found = expect_subject(call, src)
    if found is None:
        return None
    subject, args, chain = found
    got = _named(subject.child_by_field_name("arguments") or subject)
    if not got or any(a.type == "spread_element" for a in (*got, *args)):
        return None
    if chain[:-1] not in ([], ["not"]):
        return None
    matcher, x = chain[-1], _t(src, got[0])
    extra = ", ".join(_t(src, a) for a in got[1:])
    tail = f" void [{extra}];" if extra else ""
    if matcher in _EXPECT_VALUE:
        values = [x, *(_t(src, a) for a in args)]
        return f"{var}.push({', '.join(f'String(JSON.stringify({v}))' for v in values)});{tail}"
    if matcher in _EXPECT_STATE and not args:
        return (
            f"{var}.push((({var}X) => [typeof {var}X, {var}X === null, !!{var}X, Number.isNaN({var}X)]"
            f".join(','))({x}));{tail}"
        )
    if matcher in _EXPECT_THROW:
        what = ", ".join(_t(src, a) for a in args)
        return f"{var}.push({_js_thrown(var, x)});{tail}" + (f" void [{what}];" if what else "")
    return None


#: ``expect`` matchers whose subject and arguments are values to record.
_EXPECT_VALUE = frozenset({
    "toBe", "toEqual", "toStrictEqual", "toMatchObject", "toContain", "toContainEqual", "toHaveLength",
    "toMatch", "toHaveProperty", "toBeGreaterThan", "toBeGreaterThanOrEqual", "toBeLessThan",
    "toBeLessThanOrEqual", "toBeTypeOf", "toBeOneOf",
})  # fmt: skip
#: ``expect`` matchers of no argument on the subject's state.
_EXPECT_STATE = frozenset({"toBeTruthy", "toBeFalsy", "toBeNull", "toBeUndefined", "toBeDefined", "toBeNaN"})
#: ``expect`` matchers on what a function throws.
_EXPECT_THROW = frozenset({"toThrow", "toThrowError"})


#: Java's renderer: a value's ``toString`` on one line; an unordered set or map (its order may change
#: from one JVM to the next: ``Set.of`` draws a salt per JVM, enums hash by identity) is never compared.
_JAVA_RENDER = (
    "java.util.function.Function<Object, String> {var}R = {var}o -> "
    "({var}o instanceof java.util.Set && !({var}o instanceof java.util.SortedSet) "
    "&& !({var}o instanceof java.util.LinkedHashSet)) "
    "|| ({var}o instanceof java.util.Map && !({var}o instanceof java.util.SortedMap) "
    '&& !({var}o instanceof java.util.LinkedHashMap)) ? "pb-unordered" '
    ': String.valueOf({var}o).replace("\\\\", "\\\\\\\\").replace("\\n", "\\\\n").replace("\\r", "\\\\r");'
)


def _java_capture(stmt: Node, src: bytes, var: str) -> str | None:
    """``assertEquals(E, X[, msg])`` / ``assertNotEquals`` (``X`` recorded), ``assertTrue/False(X)``,
    ``assertNull/NotNull(X)`` (its truth), AssertJ's ``assertThat(X).isEqualTo(E)`` (``X``)."""
    if stmt.type != "expression_statement" or not stmt.named_children:
        return None
    call = stmt.named_children[0]
    if call.type != "method_invocation":
        return None
    name = _t(src, call.child_by_field_name("name") or call)
    obj = call.child_by_field_name("object")
    args = _named(call.child_by_field_name("arguments") or call)
    what: str | None = None
    if name == "isEqualTo" and obj is not None and obj.type == "method_invocation" and len(args) == 1:
        inner = _named(obj.child_by_field_name("arguments") or obj)
        if _t(src, obj.child_by_field_name("name") or obj) == "assertThat" and len(inner) == 1:
            return _java_pair(var, _t(src, inner[0]), _t(src, args[0]), actual_first=True)
    elif name in _JAVA_CAPTURED and (obj is None or _t(src, obj) in ("Assertions", "Assert")):
        if name in ("assertEquals", "assertNotEquals") and len(args) in (2, 3):
            return _java_pair(var, _t(src, args[1]), _t(src, args[0]), actual_first=False)
        elif name in ("assertTrue", "assertFalse") and len(args) in (1, 2):
            what = f"(boolean) ({_t(src, args[0])})"
        elif name in ("assertNull", "assertNotNull") and len(args) in (1, 2):
            what = f"({_t(src, args[0])}) == null"
    if what is None:
        return None
    return f"{var}.add({var}R.apply((Object) ({what})));"


def _java_pair(var: str, actual: str, expected: str, *, actual_first: bool) -> str:
    """The actual value and whether it equals the expected one (two computed values may render alike with
    and without the fix: semver4j's parsed versions), each side evaluated once, in the check's order."""
    sides = [f"Object {var}A = ({actual});", f"Object {var}E = ({expected});"]
    return (
        f"{{ {' '.join(sides if actual_first else sides[::-1])} {var}.add({var}R.apply({var}A)); "
        f"{var}.add(String.valueOf(java.util.Objects.equals({var}A, {var}E))); }}"
    )


def _rust_capture(stmt: Node, src: bytes, var: str) -> str | None:
    """``assert_eq!(X, Y[, ..])`` / ``assert_ne!`` (``X`` recorded with its type's name), ``assert!(X)``."""
    mac = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else stmt
    if mac.type != "macro_invocation":
        return None
    name = _t(src, mac.child_by_field_name("macro") or mac)
    tree = next((c for c in mac.named_children if c.type == "token_tree"), None)
    if tree is None or name not in ("assert_eq", "assert_ne", "assert"):
        return None
    groups = _split_tokens(tree, ",")
    if not groups or not groups[0] or (name != "assert" and (len(groups) < 2 or not groups[1])):
        return None
    first = src[groups[0][0].start_byte : groups[0][-1].end_byte].decode("utf-8", "replace")
    if name == "assert":
        return (
            f"{var}.push({{ let pbo = &({first}); "
            f'format!("{{}}|{{:?}}", std::any::type_name_of_val(pbo), pbo) }});'
        )
    second = src[groups[1][0].start_byte : groups[1][-1].end_byte].decode("utf-8", "replace")
    # both sides evaluated and compared as assert_eq! does (the comparison drives type inference)
    return (
        f"{var}.push({{ let pbo = &({first}); let pbw = &({second}); let pbe = *pbo == *pbw; "
        f'format!("{{}}|{{:?}}|{{}}", std::any::type_name_of_val(pbo), pbo, pbe) }});'
    )


def _capture_stmt(stmt: Node, lang: _Lang, src: bytes, param: str, var: str) -> str | None:
    if lang.grammar == "go":
        return _go_capture(stmt, src, param, var)
    if lang.grammar == "rust":
        return _rust_capture(stmt, src, var)
    if lang.grammar == "java":
        return _java_capture(stmt, src, var)
    return _js_capture(stmt, src, var)


def _fails(lang: _Lang, param: str) -> re.Pattern[str]:
    return re.compile(_FAILS[lang.grammar].format(p=re.escape(param or "t")))


def _nested(stmt: Node, lang: _Lang, src: bytes, param: str, var: str) -> _Capture | None:
    """Every failure in ``stmt`` (a loop or an ``if``) captured as a check at some depth, else None."""
    fails = _fails(lang, param)
    edits: list[tuple[int, int, str]] = []
    checks: list[tuple[int, int]] = []
    for block in _containers(stmt, lang):
        for inner in _statements(block):
            new = _capture_stmt(inner, lang, src, param, var)
            if new is not None:
                edits.append((inner.start_byte, inner.end_byte, new))
                checks.append((inner.start_byte, inner.end_byte))
                continue
            if _exits(inner, lang):
                return None
            if fails.search(_t(src, inner)):
                sub = _nested(inner, lang, src, param, var)
                if sub is None:
                    return None
                edits += sub.edits
                checks += sub.checks
    # what holds a failure outside the blocks searched (a loop's header, an if's condition) is not captured
    text = bytearray(src[stmt.start_byte : stmt.end_byte])
    for s, e in checks:
        text[s - stmt.start_byte : e - stmt.start_byte] = b" " * (e - s)
    if fails.search(text.decode("utf-8", "replace")):
        return None
    return _Capture(edits, checks, stmt.end_byte) if checks else None


def _capture(found: _Found, lang: _Lang, var: str) -> _Capture | None:
    """The captured checks of a test, in order: top-level statements up to the first that holds a failure
    or an exit this module cannot capture."""
    src, param = found.src, found.param
    fails = _fails(lang, param)
    edits: list[tuple[int, int, str]] = []
    checks: list[tuple[int, int]] = []
    report_at = -1
    for stmt in _statements(found.body):
        new = _capture_stmt(stmt, lang, src, param, var)
        if new is not None:
            edits.append((stmt.start_byte, stmt.end_byte, new))
            checks.append((stmt.start_byte, stmt.end_byte))
            report_at = stmt.end_byte
            continue
        if _exits(stmt, lang):
            break
        if fails.search(_t(src, stmt)):
            sub = _nested(stmt, lang, src, param, var)
            if sub is None:
                break
            edits += sub.edits
            checks += sub.checks
            report_at = stmt.end_byte
    if not checks:
        return None
    return _Capture(edits, checks, report_at)


def _movable(found: _Found, lang: _Lang, cap: _Capture) -> list[tuple[Node, str]]:
    """The literals a copy may move: scalars of the test's code before its report, outside the captured
    checks and map keys, the nearest to the report first (with their kind); a boolean never."""
    keys = _key_nodes(found.body)
    out: list[tuple[Node, str]] = []
    for n in _walk(found.body):
        kind = lang.leaves.get(n.type)
        if not kind or kind == "bool" or n.id in keys or n.end_byte > cap.report_at:
            continue
        if kind == "string" and lang.grammar == "rust" and RUST_PLACEHOLDER.search(_t(found.src, n)):
            # a format string (`format!("post {i}")`): a letter moved inside a placeholder names another
            # variable, and the copy (the whole test binary with it) no longer builds
            continue
        if not any(s <= n.start_byte < e for s, e in cap.checks):
            out.append((n, kind))
    out.sort(key=lambda m: -m[0].start_byte)
    return out


_FAR = re.compile(r"^([1-9][0-9]{0,8}|0)(usize|u32|u64|i32|i64|L|l)?$")


def _far(text: str) -> str | None:
    """An integer :data:`INPUT_SHIFT` steps up (a wider move than one step, and not one the candidate can
    know: code keyed on inputs *near* the listed ones meets one it does not hold); None for anything
    else, or a type too narrow to be sure of."""
    m = _FAR.match(text)
    return f"{int(m.group(1)) + INPUT_SHIFT.get()}{m.group(2) or ''}" if m is not None else None


def _shifted_string(text: str) -> str | None:
    """A string literal with its last digits moved by :data:`INPUT_SHIFT` (see :func:`shifted_digits`),
    or its last letter changed when it has no digit; with escapes, its last letter or digit outside them
    changed (see :func:`._decoys_native._perturb_string_body`: round twenty-five's session, content-type's
    ``"bar\\tbaz"`` was never moved, and a library keyed on that exact value passed every control)."""
    if not _plain(text, bool):
        return _perturb_leaf(text, "string") if "${" not in text else None
    body = _inside(text, lambda b: shifted_digits(b, INPUT_SHIFT.get()))
    return body if body is not None else _perturb_leaf(text, "string")


def _moves(found: _Found, lang: _Lang, cap: _Capture) -> dict[int, list[tuple[int, int, str]]]:
    """The moves a copy may make, by variant: 1 every string literal at once (its last digits by
    :data:`INPUT_SHIFT`), 2 every integer :data:`INPUT_SHIFT` steps up at once (code keyed on one input,
    or on inputs near the listed ones, meets another), 3 every string that ends in a letter (names and
    labels, not dates), then from :data:`FIRST_SINGLE` one literal each (the :data:`MAX_MOVES` nearest
    the checks). A variant with nothing to move is absent."""
    src = found.src
    movable = _movable(found, lang, cap)
    out: dict[int, list[tuple[int, int, str]]] = {}
    strings = [(n.start_byte, n.end_byte, new) for n, kind in movable
               if kind == "string" and (new := _shifted_string(_t(src, n))) is not None]  # fmt: skip
    numbers = [(n.start_byte, n.end_byte, new) for n, kind in movable
               if kind == "number" and (new := _far(_t(src, n))) is not None]  # fmt: skip
    # words only (a name, a label; not a date or a number written as a string, which may no longer parse)
    words = [(n.start_byte, n.end_byte, new) for n, kind in movable if kind == "string" and _wordy(_t(src, n))
             and (new := _perturb_leaf(_t(src, n), kind)) is not None]  # fmt: skip
    respelled = [(n.start_byte, n.end_byte, new) for n, kind in movable
                 if kind == "string" and (new := _respelled(_t(src, n))) is not None]  # fmt: skip
    # the integers and the numbers written as strings, in the order written (see _respell.scaled_text)
    numeric = _respell.is_number_text
    scalable = sorted((n.start_byte, n.end_byte, _t(src, n)) for n, kind in movable if not _bound(n) and (
        _FAR.match(_t(src, n)) if kind == "number" else _plain(_t(src, n), numeric)))  # fmt: skip
    scales = [(j, [(s, e, big) for i, (s, e, text) in enumerate(scalable)
                   if (big := _scaled(text, i, parity)) is not None])
              for j, parity in SCALES.items()]  # fmt: skip
    digits = [(n.start_byte, n.end_byte, new) for n, kind in movable
              if (new := _refined(_t(src, n), kind)) is not None]  # fmt: skip
    texts = [(n.start_byte, n.end_byte, _t(src, n)) for n, kind in movable
             if kind == "string" and _plain(_t(src, n), bool)]  # fmt: skip
    delta = _respell.late_delta([text[1:-1] for _, _, text in texts])
    late = [(s, e, text[0] + moved + text[0]) for s, e, text in texts
            if delta and (moved := _respell.later(text[1:-1], delta)) is not None]  # fmt: skip
    years = _respell.future_years([text[1:-1] for _, _, text in texts])
    future = [(s, e, text[0] + moved + text[0]) for s, e, text in texts
              if years and (moved := _respell.futured(text[1:-1], years)) is not None]  # fmt: skip
    negated = [(n.start_byte, n.end_byte, new) for n, kind in movable
               if (new := _negated(_t(src, n), kind)) is not None]  # fmt: skip
    fraction = _respell.fraction_text
    fractions = [(s, e, part) for i, (s, e, text) in enumerate(scalable)
                 if (part := _inside(text, partial(fraction, position=i))) is not None]  # fmt: skip
    # the integer nearest the checks and every other of its value, made 0 (its type's suffix kept)
    ints = [(n.start_byte, n.end_byte, m) for n, kind in movable if kind == "number"
            and (m := _FAR.match(_t(src, n))) is not None and int(m.group(1))]  # fmt: skip
    zeros = [(s, e, f"0{m.group(2) or ''}") for s, e, m in ints if m.group(1) == ints[0][2].group(1)]
    scripted = [(n.start_byte, n.end_byte, new) for n, kind in movable if kind == "string"
                and (new := _inside(_t(src, n), _respell.scripted)) is not None]  # fmt: skip
    decimals = [(n.start_byte, n.end_byte, new) for n, kind in movable if (new := (
        _respell.decimal_number_scaled(_t(src, n)) if kind == "number"
        else _inside(_t(src, n), _respell.decimals_scaled))) is not None]  # fmt: skip
    # every decimal but the first written (movable lists the nearest to the checks first)
    negated_rest = sorted(negated)[1:]
    zeroed = sorted((n.start_byte, n.end_byte, new) for n, kind in movable if (new := (
        _respell.zeroed_number(_t(src, n)) if kind == "number" else _inside(_t(src, n), _respell.zeroed)))
        is not None)[1:]  # fmt: skip
    ints_at = [(n.start_byte, n.end_byte, m) for n, kind in movable if kind == "number"
               and not _bound(n) and (m := _FAR.match(_t(src, n))) is not None]  # fmt: skip
    # JavaScript's numbers are exact up to 2^53: past 2^31 there (a BigInt literal is not matched)
    offset = _respell.WIDE_OFFSET if lang.grammar in ("javascript", "typescript") else 0
    wide = _respell.widened([int(m.group(1)) for _, _, m in ints_at], offset=offset) or []
    widened = [(s, e, f"{big}{m.group(2) or ''}") for (s, e, m), big in zip(ints_at, wide, strict=False)]
    exact = _respell.precise_text
    precise = [(s, e, more) for i, (s, e, text) in enumerate(scalable)
               if (more := _inside(text, partial(exact, position=i))) is not None]  # fmt: skip
    several = ((1, strings), (2, numbers), (3, words if words != strings else []), (RESPELL, respelled),
               *scales, (DIGITS, digits), (LATE, late), (NEGATE, negated), (ZERO, zeros),
               (FRACTION, fractions), (BOUNDS, _bounds_scaled(found, movable, scalable)), (SCRIPT, scripted),
               (SCALE_DECIMALS, decimals), (NEGATE_REST, negated_rest), (ZERO_REST, zeroed),
               (WIDE, widened), (PRECISE, precise), (FUTURE, future))  # fmt: skip
    for j, moves in several:
        if moves:
            out[j] = moves
    singles = [(n.start_byte, n.end_byte, new) for n, kind in movable
               if (new := _perturb_leaf(_t(src, n), kind)) is not None]  # fmt: skip
    for j, move in enumerate(singles[:MAX_MOVES], start=FIRST_SINGLE):
        out[j] = [move]
    return out


#: Where an integer bounds a loop (a C-style for's header, a Rust range): scaled by thousands, the loop
#: runs past the test's time (go-logger's `depth <= 8` times 3481, each step deriving a longer chain).
#: A for-of or range loop over a written list is data, not a bound.
_LOOP_HEADERS = frozenset({"for_clause", "range_expression"})


#: A written list (or a tuple in it): a literal inside one, even in a loop's header, is data the loop
#: walks, not a bound (round twelve: Rust's `for (entries, per_page) in [(10u32, 4usize), ..]` was never
#: scaled, so a repair right up to 32 entries met none larger).
_DATA = frozenset({"array_expression", "array", "composite_literal", "tuple_expression", "array_initializer"})


def _bound(node: Node) -> bool:
    """Whether an integer literal bounds a loop (see :data:`_LOOP_HEADERS`)."""
    n = node.parent
    while n is not None and n.type not in ("block", "statement_block", "expression_statement"):
        if n.type in _DATA:
            return False
        if n.type in _LOOP_HEADERS:
            return True
        parent = n.parent
        if (
            parent is not None
            and parent.type in ("for_statement", "for_expression")
            and n != parent.child_by_field_name("body")
        ):
            return True
        n = parent
    return False


def _bounds_scaled(
    found: _Found, movable: list[tuple[Node, str]], scalable: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """The :data:`BOUNDS` variant's moves: every integer and number written as a string (``scalable``)
    and the integers bounding a loop, multiplied by :func:`._respell.bound_factor`; none without a bound."""
    src = found.src
    loops = [(n.start_byte, n.end_byte, _t(src, n)) for n, kind in movable
             if kind == "number" and _bound(n) and _FAR.match(_t(src, n))]  # fmt: skip
    factor = _respell.bound_factor([int(m.group(1)) for _, _, t in loops if (m := _FAR.match(t))])
    if factor is None:
        return []
    out = []
    for s, e, text in [*scalable, *loops]:
        m = _FAR.match(text)
        if m is not None:
            big = f"{int(m.group(1)) * factor}{m.group(2) or ''}" if int(m.group(1)) else None
        else:
            big = _inside(text, partial(_respell.times_text, factor=factor))
        if big is not None:
            out.append((s, e, big))
    return out


def _plain(text: str, test: Callable[[str], bool]) -> bool:
    """Whether a string literal has no escape or interpolation and its text passes ``test``."""
    quote = text[:1]
    if len(text) < 2 or quote not in "\"'`" or text[-1] != quote or "\\" in text or "${" in text:
        return False
    return test(text[1:-1])


def _inside(text: str, change: Callable[[str], str | None]) -> str | None:
    """A plain string literal (see :func:`_plain`) with its text changed by ``change``; None when it is not
    one, or ``change`` gives None."""
    body = change(text[1:-1]) if _plain(text, bool) else None
    return None if body is None else text[0] + body + text[0]


def _scaled(text: str, position: int, parity: str) -> str | None:
    """An integer literal (its suffix kept) or a number written as a string, scaled (see
    :func:`._respell.scaled`); None when it stays."""
    m = _FAR.match(text)
    if m is not None:
        big = _respell.scaled(int(m.group(1)), position, parity)
        return None if big is None else f"{big}{m.group(2) or ''}"
    return _inside(text, lambda body: _respell.scaled_text(body, position, parity))


def _refined(text: str, kind: str) -> str | None:
    """A decimal literal, or a string literal with decimals in it, given more digits (see
    :func:`._respell.refined`); None when it has none."""
    return _respell.refined_number(text) if kind == "number" else _inside(text, _respell.refined)


def _negated(text: str, kind: str) -> str | None:
    """A decimal literal negated, or a string literal with its positive decimals negated (see
    :func:`._respell.negated`); None when it has none."""
    return _respell.negated_number(text) if kind == "number" else _inside(text, _respell.negated)


def _respelled(text: str) -> str | None:
    """A string literal respelled (:func:`._respell.respelled`); None with escapes."""
    return _inside(text, _respell.respelled)


def _wordy(literal: str) -> bool:
    """A string literal whose last letter or digit is a letter (what a move changes is then a letter)."""
    alnum = [c for c in literal if c.isascii() and c.isalnum()]
    return bool(alnum) and alnum[-1].isalpha()


#: The recorded values travel as a digest (a 64-bit FNV-1a of their text; a failure message is cut at 2,000
#: characters by the parsers, and go test splits long lines) and a preview of their first characters.
PREVIEW_CHARS = 600


def _digest(lang: _Lang, var: str) -> str:
    """Statements that set ``<var>H`` to the digest of the recorded values' text and ``<var>P`` to its
    preview (one line: every renderer escapes line breaks)."""
    v = var
    g = lang.grammar
    if g == "go":
        return (
            f'{v}S := pbfmt.Sprintf("%q", {v}); {v}N := uint64(14695981039346656037); '
            f"for i := 0; i < len({v}S); i++ {{ {v}N ^= uint64({v}S[i]); {v}N *= 1099511628211 }}; "
            f'{v}H := pbfmt.Sprintf("%016x", {v}N); {v}P := {v}S; '
            f"if len({v}P) > {PREVIEW_CHARS} {{ {v}P = {v}P[:{PREVIEW_CHARS}] }}; _ = {v}P"
        )
    if g == "rust":
        return (
            f'let {v}S = format!("{{:?}}", {v}); let mut {v}N: u64 = 0xcbf29ce484222325; '
            f"for b in {v}S.bytes() {{ {v}N ^= b as u64; {v}N = {v}N.wrapping_mul(0x100000001b3); }} "
            f'let {v}H = format!("{{:016x}}", {v}N); '
            f"let {v}P: String = {v}S.chars().take({PREVIEW_CHARS}).collect();"
        )
    if g == "java":
        return (
            f"String {v}S = String.valueOf({v}); long {v}N = 0xcbf29ce484222325L; "
            f"for (int i = 0; i < {v}S.length(); i++) {{ {v}N ^= {v}S.charAt(i); {v}N *= 0x100000001b3L; }} "
            f'String {v}H = String.format("%016x", {v}N); '
            f"String {v}P = {v}S.substring(0, Math.min({v}S.length(), {PREVIEW_CHARS}));"
        )
    return (
        f"const {v}S = JSON.stringify({v}); let {v}A = 0x811c9dc5, {v}B = 0x01000193; "
        f"for (let i = 0; i < {v}S.length; i++) {{ "
        f"{v}A = Math.imul({v}A ^ {v}S.charCodeAt(i), 16777619) >>> 0; "
        f"{v}B = Math.imul({v}B ^ {v}S.charCodeAt(i), 2246822519) >>> 0; }} "
        f"const {v}H = {v}A.toString(16).padStart(8, '0') + {v}B.toString(16).padStart(8, '0'); "
        f"const {v}P = {v}S.slice(0, {PREVIEW_CHARS});"
    )


def _report(lang: _Lang, param: str, var: str) -> str:
    """The statements that end the copy (in a block of their own): it fails with the digest and a preview
    of the values it recorded. The probe and the control alike: the host compares the digest with gold's,
    so gold's is never written into the sandbox (code that read it there could answer it)."""
    g = lang.grammar
    v = var
    head = _digest(lang, var)
    tail = {
        "go": f'{param}.Fatalf("{VALUE_MARK}%s|%s{VALUE_END}", {v}H, {v}P)',
        "rust": f'panic!("{VALUE_MARK}{{}}|{{}}{VALUE_END}", {v}H, {v}P);',
        "java": f"if ({v} != null) "
        f'throw new AssertionError("{VALUE_MARK}" + {v}H + "|" + {v}P + "{VALUE_END}");',
    }.get(g, f"throw new Error('{VALUE_MARK}' + {v}H + '|' + {v}P + '{VALUE_END}');")
    return f"{{ {head} {tail} }}" if g != "go" else f"{{ {head}; {tail} }}"


def _declare(lang: _Lang, var: str) -> str:
    return {
        "go": f"var {var} []string",
        "rust": f"let mut {var}: Vec<String> = Vec::new();",
        "java": f"java.util.List<String> {var} = new java.util.ArrayList<>(); "
        + _JAVA_RENDER.format(var=var),
    }.get(lang.grammar, f"const {var} = [];")


def _indent_of(src: bytes, pos: int) -> str:
    start = src.rfind(b"\n", 0, pos) + 1
    raw = src[start:pos]
    return raw[: len(raw) - len(raw.lstrip())].decode("utf-8", "replace")


def input_variants(found: _Found, lang: _Lang, rng: random.Random) -> Iterator[tuple[int, Any]]:
    """The variants of a test a calibration probes: ``(j, plan)``, ``j`` 0 for the test's own inputs and
    ``j`` >= 1 for its moves (see :func:`_moves`)."""
    var = _var(found, rng)
    cap = _capture(found, lang, var)
    if cap is None:
        return
    yield 0, (cap, [], var, [])
    yield from ((j, (cap, moves, var, [])) for j, moves in _moves(found, lang, cap).items())
    fails = _fails(lang, found.param)
    for j, (edits, items) in structural(found, lang, cap.checks, cap.report_at, fails, rng).items():
        yield j, (cap, edits, var, items)


def _var(found: _Found, rng: random.Random) -> str:
    text = found.src.decode("utf-8", "replace")
    while True:
        name = f"pbSeen{rng.randrange(1000, 10000)}"
        if name not in text:
            return name


def input_text(found: _Found, lang: _Lang, new_name: str, which: int, rng: random.Random) -> str | None:
    """The copy of the test renamed ``new_name``, its ``which``-th literal moved (0: none), its checks
    recording their values and failing with them at the end (see :func:`_report`)."""
    variants = dict(input_variants(found, lang, rng))
    if which not in variants:
        return None
    cap, moves, var, items = variants[which]
    report = _report(lang, found.param, var)
    src = found.src
    body_open = found.body.start_byte + 1
    first = _statements(found.body)
    indent = _indent_of(src, first[0].start_byte) if first else ""
    edits = [*cap.edits, *moves]
    edits.append((cap.report_at, cap.report_at, f"\n{indent}{report}"))
    edits.append((body_open, body_open, f"\n{indent}{_declare(lang, var)}"))
    edits.append((found.name.start_byte, found.name.end_byte, new_name))
    copy = _edited(found, edits)
    if copy is not None and which == OFF_MAIN and lang.grammar == "javascript":
        copy = in_worker(found, copy)  # its statements in a Worker (see _inputs_structure)
    if copy is None or not items:
        return copy
    # the helpers' copies (structural variant): before the test in node (a top-level test may start before
    # the rest of the module is evaluated), after it elsewhere (Go and Java do not mind the order)
    if lang.grammar in ("javascript", "typescript"):
        return "\n\n".join([*items, copy])
    return "\n\n".join([copy, *items])


#: What may differ between two correct runs: a float's long tail or exponent (a short decimal, `1.5`,
#: `120.30`, a version `1.0.0-rc.1`, prints the same whichever way it was computed), a pointer, an identity
#: hash, an unordered collection.
_UNSTABLE = re.compile(
    r"\d\.\d{5,}|\d[eE][+-]?\d|0x[0-9a-fA-F]{5,}|@[0-9a-f]{5,8}\b|pb-unordered|Hash(?:Map|Set)<|NaN|Infinity"
)


def native_value(message: str | None) -> str | None:
    """The digest of the values a native probe recorded (``pb-value:<digest>|<preview>:pb-end`` on one
    line), when their preview can be compared exactly: no float with a long tail, pointers, identity
    hashes or unordered collections; None otherwise. (What the preview cuts off is vouched for by the two
    probes' agreement only: an address or a hash order differs from one probe to the other.)"""
    if not message or VALUE_MARK not in message:
        return None
    line = message.split(VALUE_MARK, 1)[1].split("\n", 1)[0]
    if VALUE_END not in line:
        return None
    digest, sep, preview = line.rsplit(VALUE_END, 1)[0].partition("|")
    if not sep or not re.fullmatch(r"[0-9a-f]{16}", digest) or not preview or _UNSTABLE.search(preview):
        return None
    return digest


class _Planner:
    """What :func:`._decoys_native.plan_native_decoys` plants variants with (given by its callers, so the
    two modules do not import each other)."""

    max_tests = MAX_TESTS
    variants = staticmethod(input_variants)
    text = staticmethod(input_text)


#: The planner of controls on moved inputs, for :func:`._decoys_native.plan_native_decoys`.
INPUT_PLANNER = _Planner()
