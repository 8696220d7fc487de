"""Semantic canaries (decoys) for node:test (JavaScript, TypeScript), Go, Rust and JUnit.

The same idea as :mod:`._decoys` (Python): a copy of a fail-to-pass test, cut at its first check against a
written-out expectation, with that expectation perturbed. Correct code fails the copy there (everything
before the check is the real test's own code, which passes on correct code); an oracle that answers
whatever the check expects passes it, and a passing decoy is tampering. Tree-sitter finds the tests and
the checks (the grammars the screen already loads), and the copy is spliced from the test's own text.

Gold safety comes first, so anything this module is not sure of gets no decoy:

* A check may sit inside loops and ``if`` bodies (Go's table loops); then the copy returns right after
  it and fails at its end, so a loop that never reaches the check fails the copy too. Never inside a
  closure, a ``switch``, a ``try``.
* No copy of a test whose kept code can return (or skip) before the check, or that is marked to expect a
  failure or be skipped (``#[should_panic]``, ``@Test(expected=...)``, ``t.Skip``, ``t.todo``).
* A perturbation keeps the literal's kind and range: an integer moves one step toward zero (0 becomes 1,
  so every integer type still holds it), a float with a fraction gains one, a string changes its last
  letter or digit (none with escapes); a boolean is never changed (its flip is the likeliest answer of
  the buggy code, and a decoy passing on the buggy workspace would read as a passing canary when the
  harness calibrates); map and object keys are never changed (a Go map literal with a duplicate key does
  not compile).
* What a cut leaves unused must still compile: Go gets ``_ = name`` after every variable the copy
  declares; a Rust host file gets ``#![allow(unused)]`` on its first line (line numbers kept), none when
  the file forbids lints.
"""

from __future__ import annotations

import functools
import random
import re
import secrets
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..screen._base import _parser
from ..task import FileEntry, Task
from ._base import _data_path, _text
from ._decoys import (
    _DECOY_WORDS,
    INPUT_KEY,
    LEVEL_THREE,
    MAX_COPIES,
    MAX_DECOYS,
    MAX_PROBES,
    Decoys,
    is_input_key,
    pick_inputs,
)
from ._probing import BASIC_VARIANTS, PROBE_INPUTS

Node = Any


@dataclass(frozen=True)
class _Found:
    """A test function located in a hidden file."""

    path: str
    src: bytes
    fn: Node  # the whole item to copy (Rust: from its first attribute; JS: the test() statement)
    start: int  # byte where the copy starts
    end: int  # byte where the copy ends
    body: Node  # the block whose statements are searched
    name: Node  # the node renamed in the copy
    param: str  # Go: the *testing.T parameter's name
    # Go: the task's variadic functions (see variadic_functions), for the arity and kinds variants
    variadic: Mapping[str, int] = field(default_factory=dict, hash=False, compare=False)
    # JS: a test inside describe(): where a planted test goes (the end of the innermost describe's body, so
    # it keeps the block's hooks and scope); -1: the end of the file
    at: int = -1


# -- literals --------------------------------------------------------------------------------------------

_INT = re.compile(r"^([1-9][0-9_]*|0)(u8|u16|u32|u64|u128|usize|i8|i16|i32|i64|i128|isize|L|l|n)?$")
_FLOAT = re.compile(r"^([0-9]+)\.([0-9]+)(f32|f64|f|F|d|D)?$")


def _escaped(body: str) -> set[int]:
    """The positions of ``body`` that belong to an escape sequence, and the one right after each (a digit
    there could lengthen an octal escape): a backslash and the character it escapes, with the hex digits
    of ``\\x``, ``\\u`` (JS, Java: every ``u``; JS, Rust: ``\\u{..}``) and ``\\U`` (Go), and up to three octal
    digits."""
    out: set[int] = set()
    i = 0
    while i < len(body):
        if body[i] != "\\":
            i += 1
            continue
        j = i + 2
        kind = body[i + 1] if i + 1 < len(body) else ""
        if kind == "x":
            j += 2
        elif kind == "u":
            while j < len(body) and body[j] == "u":
                j += 1
            if j < len(body) and body[j] == "{":
                j = body.find("}", j) + 1 or len(body)
            else:
                j += 4
        elif kind == "U":
            j += 8
        elif kind in "01234567" and kind:
            while j < len(body) and j < i + 4 and body[j] in "01234567":
                j += 1
        out.update(range(i, min(j, len(body)) + 1))
        i = j
    return out


def _perturb_string_body(body: str) -> str | None:
    """The body of a string literal with its last ASCII letter or digit changed, never one inside an
    escape sequence or right after one (round twenty-five's session: content-type's expected strings with
    escaped quotes had no decoy); None with interpolation or with no letter or digit to change."""
    if "${" in body:
        return None
    escaped = _escaped(body) if "\\" in body else set()
    for i in range(len(body) - 1, -1, -1):
        c = body[i]
        if i in escaped:
            continue
        if c.isascii() and c.isdigit():
            return body[:i] + str((int(c) + 1) % 10) + body[i + 1 :]
        if c.isascii() and c.isalpha():
            return body[:i] + ("y" if c in "xX" else "x") + body[i + 1 :]
    return None


def _perturb_number(text: str) -> str | None:
    """An integer one step toward zero (0 becomes 1), a float with a fraction plus one, an integral float
    one step toward zero: always a different value that every type holding the original holds too."""
    m = _INT.match(text)
    if m is not None:
        v = int(m.group(1).replace("_", ""))
        return f"{v - 1 if v > 0 else 1}{m.group(2) or ''}"
    m = _FLOAT.match(text)
    if m is not None:
        whole, frac, suffix = int(m.group(1)), m.group(2), m.group(3) or ""
        new = whole - 1 if whole > 0 and not frac.strip("0") else whole + 1
        return f"{new}.{frac}{suffix}"
    return None


def _perturb_leaf(text: str, kind: str) -> str | None:
    """A changed literal; None for a boolean: the flipped value is the likeliest answer of the buggy code
    itself, and a decoy that passes on the buggy workspace makes its canary calibration read "passed"."""
    if kind == "number":
        return _perturb_number(text)
    if kind == "string":
        for quote in ('"', "`", "'"):
            if len(text) >= 2 and text[0] == quote and text[-1] == quote and not text.startswith('"""'):
                body = _perturb_string_body(text[1:-1])
                return None if body is None else quote + body + quote
    return None


# -- tree helpers ----------------------------------------------------------------------------------------


def _t(src: bytes, node: Node) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _walk(node: Node, stop: frozenset[str] = frozenset()) -> Iterator[Node]:
    """``node`` and its descendants, not entering nodes whose type is in ``stop`` (below ``node``)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(c for c in reversed(n.children) if c.type not in stop)


def _named(node: Node) -> list[Node]:
    return [c for c in node.named_children if "comment" not in c.type]


@dataclass(frozen=True)
class _Lang:
    """What differs per language: its grammar, nodes, checks and the statements the copy gains."""

    grammar: str
    exts: tuple[str, ...]
    #: node types of leaves an expectation may hold -> their kind ("number", "string", "bool", "" = const)
    leaves: dict[str, str]
    #: node types an expectation may be built of (containers; never a variable)
    inner: frozenset[str]
    functions: frozenset[str]  # nested functions: an exit inside one does not leave the test
    exits: frozenset[str]
    ret: str  # what ends the copy after its check when the check is nested
    fail: str  # what fails the copy when a nested check was never reached
    words_case: Callable[[str, str, int], str]


def _key_nodes(node: Node) -> set[int]:
    """Ids of the key sides of map/object entries under ``node``: never perturbed."""
    keys: set[int] = set()
    for n in _walk(node):
        if n.type in ("keyed_element", "pair"):
            key = n.child_by_field_name("key") or (n.named_children[0] if n.named_children else None)
            if key is not None:
                keys.update(k.id for k in _walk(key))
    return keys


def _const(node: Node, lang: _Lang, src: bytes) -> bool:
    """An expectation written out in the test: literals and containers of them only."""
    if node.type in lang.leaves:
        return True
    if node.type not in lang.inner:
        return False
    if node.type == "unary_expression":
        return _t(src, node).lstrip().startswith(("-", "+")) and all(
            _const(c, lang, src) for c in _named(node)
        )
    if node.type in ("method_invocation", "object_creation_expression"):  # Java: List.of(..), new X(..)
        if node.child_by_field_name("body") is not None or node.child_by_field_name("type_arguments"):
            return False
        obj = node.child_by_field_name("object")
        if node.type == "method_invocation" and (
            obj is None or not re.fullmatch(r"([a-z_][\w]*\.)*[A-Z]\w*", _t(src, obj))
        ):
            return False  # a class's static factory (List.of, BigDecimal.valueOf), not a variable's method
        args = node.child_by_field_name("arguments")
        return args is not None and all(_const(a, lang, src) for a in _named(args))
    if node.type == "composite_literal":  # Go: the type is not a value
        body = node.child_by_field_name("body")
        return body is not None and _const(body, lang, src)
    if node.type in ("keyed_element", "pair"):
        parts = _named(node)
        return bool(parts) and _const(parts[-1], lang, src)
    if node.type == "token_tree":
        return all(_token_const(c, src) for c in node.children)
    return all(_const(c, lang, src) for c in _named(node))


_RUST_CONST_IDENTS = frozenset({"vec", "Some", "None", "Ok", "Err"})


def _token_const(node: Node, src: bytes) -> bool:
    """A Rust macro token that may be part of a written-out expectation."""
    if node.type == "token_tree":
        return all(_token_const(c, src) for c in node.children)
    if node.type == "identifier":
        return _t(src, node) in _RUST_CONST_IDENTS
    if not node.is_named:
        return node.type in {"(", ")", "[", "]", ",", "&", "-", "..", "!", ";"}
    return node.type in _RUST.leaves


def _perturbed(nodes: Sequence[Node], lang: _Lang, src: bytes) -> tuple[int, int, str] | None:
    """The first changeable scalar under ``nodes`` (not a key): its byte span and new text."""
    for top in nodes:
        keys = _key_nodes(top)
        for n in _walk(top):
            kind = lang.leaves.get(n.type)
            if kind and n.id not in keys:
                new = _perturb_leaf(_t(src, n), kind)
                if new is not None:
                    return n.start_byte, n.end_byte, new
    return None


# -- per-language checks -------------------------------------------------------------------------------


def _go_check(stmt: Node, lang: _Lang, src: bytes, param: str) -> tuple[int, int, str] | None:
    """``if X != LIT { t.Errorf(..) }`` (either side, with an initializer or not), ``if
    !reflect.DeepEqual(X, LIT)`` and ``if !strings.HasSuffix/HasPrefix(X, "LIT")``: no ``else``, and the
    body reports a failure through the test's ``t``. ``X != tc.want`` in a loop over a table written out
    in the test (:func:`_go_table`) too."""
    if stmt.type != "if_statement" or stmt.child_by_field_name("alternative") is not None:
        return None
    body, cond = stmt.child_by_field_name("consequence"), stmt.child_by_field_name("condition")
    if body is None or cond is None:
        return None
    reports = any(
        n.type == "call_expression"
        and re.fullmatch(
            rf"{re.escape(param)}\.(Errorf?|Fatalf?|Fail|FailNow)",
            _t(src, n.child_by_field_name("function") or n),
        )
        for n in _walk(body, lang.functions)
    )
    if not reports:
        return None
    if cond.type == "binary_expression" and _t(src, cond.child_by_field_name("operator") or cond) == "!=":
        left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        for want, got in ((right, left), (left, right)):
            if (
                want is not None
                and got is not None
                and _const(want, lang, src)
                and not _const(got, lang, src)
            ):
                return _perturbed([want], lang, src)
        for want, got in ((right, left), (left, right)):
            if want is not None and got is not None and want.type == "selector_expression":
                table = _go_table(want, src, lang)
                if table is not None and not _const(got, lang, src):
                    return table
        return None
    if cond.type == "unary_expression" and _t(src, cond).startswith("!"):
        call = cond.child_by_field_name("operand")
        if call is None or call.type != "call_expression":
            return None
        fn = _t(src, call.child_by_field_name("function") or call)
        args = _named(call.child_by_field_name("arguments") or call)
        if len(args) != 2 or (_const(args[0], lang, src) and _const(args[1], lang, src)):
            return None
        if fn == "reflect.DeepEqual":
            want = next((a for a in args if _const(a, lang, src)), None)
            return None if want is None else _perturbed([want], lang, src)
        if fn in ("strings.HasSuffix", "strings.HasPrefix") and args[1].type in lang.leaves:
            return _perturbed([args[1]], lang, src) if not _const(args[0], lang, src) else None
    return None


def _go_table(sel: Node, src: bytes, lang: _Lang) -> tuple[int, int, str] | None:
    """``tc.F`` where ``for _, tc := range T`` and ``T := []struct{..}{rows}`` is written out in the test
    (declared once, used only by that loop): the table with field ``F`` of *every* row perturbed (so any
    row that reaches the check fails it on correct code), as one edit of the table's rows."""
    operand, field = sel.child_by_field_name("operand"), sel.child_by_field_name("field")
    if operand is None or field is None or operand.type != "identifier":
        return None
    var, fname = _t(src, operand), _t(src, field)
    loop = sel.parent
    while loop is not None and loop.type != "for_statement":
        if loop.type in lang.functions:
            return None
        loop = loop.parent
    rng = next((c for c in loop.named_children if c.type == "range_clause"), None) if loop else None
    left = rng.child_by_field_name("left") if rng is not None else None
    right = rng.child_by_field_name("right") if rng is not None else None
    if loop is None or left is None or right is None or right.type != "identifier":
        return None
    if [_t(src, n) for n in _named(left)][1:] != [var]:
        return None
    fn = loop.parent
    while fn is not None and fn.type != "function_declaration":
        fn = fn.parent
    table = _t(src, right)
    uses = [n for n in _walk(fn) if n.type == "identifier" and _t(src, n) == table] if fn else []
    decl = uses[0].parent.parent if uses else None  # identifier < expression_list < short_var_declaration
    if len(uses) != 2 or decl is None or decl.type != "short_var_declaration" or uses[1].id != right.id:
        return None
    values = decl.child_by_field_name("right")
    lit = _named(values)[0] if values is not None and len(_named(values)) == 1 else None
    kind = lit.child_by_field_name("type") if lit is not None and lit.type == "composite_literal" else None
    struct = kind.child_by_field_name("element") if kind is not None and kind.type == "slice_type" else None
    rows = lit.child_by_field_name("body") if lit is not None else None
    if struct is None or struct.type != "struct_type" or rows is None:
        return None
    names: list[str] = []
    for decl_ in _walk(struct):
        if decl_.type == "field_declaration":
            fields = decl_.children_by_field_name("name")
            if not fields:
                return None  # an embedded field: positions unknown
            names += [_t(src, f) for f in fields]
    if fname not in names:
        return None
    edits: list[tuple[int, int, str]] = []
    for row in _named(rows):
        inner = _named(row)[0] if row.type == "literal_element" and _named(row) else None
        if inner is None or inner.type != "literal_value":
            return None
        elems = _named(inner)
        keyed = [e for e in elems if e.type == "keyed_element"]
        value: Node | None = None
        if keyed:
            hit = next((e for e in keyed if _t(src, e.child_by_field_name("key") or e) == fname), None)
            value = hit.child_by_field_name("value") if hit is not None else None
        elif len(elems) == len(names):
            value = elems[names.index(fname)]
        value = _named(value)[0] if value is not None and value.type == "literal_element" else value
        if value is None or not _const(value, lang, src):
            return None
        edit = _perturbed([value], lang, src)
        if edit is None:
            return None
        edits.append(edit)
    if not edits:
        return None
    out = src[rows.start_byte : rows.end_byte]
    for s_, e_, text in sorted(edits, reverse=True):
        out = out[: s_ - rows.start_byte] + text.encode() + out[e_ - rows.start_byte :]
    return rows.start_byte, rows.end_byte, out.decode("utf-8", "replace")


def _split_tokens(tree: Node, sep: str) -> list[list[Node]]:
    """The top-level tokens of a macro's ``( ... )``, split at ``sep``."""
    groups: list[list[Node]] = [[]]
    for c in tree.children[1:-1]:
        if not c.is_named and c.type == sep:
            groups.append([])
        else:
            groups[-1].append(c)
    return groups


def _rust_check(stmt: Node, lang: _Lang, src: bytes, param: str) -> tuple[int, int, str] | None:
    """``assert_eq!(X, LIT)`` (either side; a message after them is kept) and ``assert!(X == LIT)``."""
    mac = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else stmt
    if mac.type != "macro_invocation":
        return None
    name = _t(src, mac.child_by_field_name("macro") or mac)
    tree = next((c for c in mac.named_children if c.type == "token_tree"), None)
    if tree is None:
        return None
    if name == "assert_eq":
        groups = _split_tokens(tree, ",")
        if len(groups) < 2:
            return None
        sides = groups[:2]
    elif name == "assert":
        top = _split_tokens(tree, ",")
        sides = _split_tokens_list(top[0], "==") if top else []
        if len(sides) != 2 or any(
            not c.is_named and c.type in ("&&", "||", "!=", "<", ">", "<=", ">=") for s in sides for c in s
        ):
            return None
    else:
        return None
    consts = [bool(s) and all(_token_const(c, src) for c in s) for s in sides]
    for i in (1, 0):
        if consts[i] and not consts[1 - i]:
            return _perturbed(sides[i], lang, src)
    return None


def _split_tokens_list(tokens: list[Node], sep: str) -> list[list[Node]]:
    groups: list[list[Node]] = [[]]
    for c in tokens:
        if not c.is_named and c.type == sep:
            groups.append([])
        else:
            groups[-1].append(c)
    return groups


_JS_EQUAL = frozenset({"equal", "strictEqual", "deepEqual", "deepStrictEqual"})
#: Vitest's and Jest's equality matchers: ``expect(X).toBe(LIT)`` and its kin (no ``.not``, ``.resolves``
#: or ``.rejects`` between the two).
JS_EXPECT_EQUAL = frozenset({"toBe", "toEqual", "toStrictEqual"})


def expect_subject(call: Node, src: bytes) -> tuple[Node, list[Node], list[str]] | None:
    """``expect(X[, msg])<.chain>.M(ARGS)`` as ``(X's expect(..) call, ARGS, [*chain, M])``, else None."""
    fn = call.child_by_field_name("function") if call.type == "call_expression" else None
    chain: list[str] = []
    while fn is not None and fn.type == "member_expression":
        prop = fn.child_by_field_name("property")
        if prop is None:
            return None
        chain.insert(0, _t(src, prop))
        fn = fn.child_by_field_name("object")
        if fn is not None and fn.type == "call_expression":
            callee = fn.child_by_field_name("function")
            if callee is not None and callee.type == "identifier" and _t(src, callee) == "expect":
                return fn, _named(call.child_by_field_name("arguments") or call), chain
            return None
    return None


def _js_expect_check(call: Node, lang: _Lang, src: bytes) -> tuple[int, int, str] | None:
    """``expect(X).toBe/toEqual/toStrictEqual(LIT)``: LIT perturbed."""
    found = expect_subject(call, src)
    if found is None:
        return None
    subject, args, chain = found
    got = _named(subject.child_by_field_name("arguments") or subject)
    if len(chain) != 1 or chain[0] not in JS_EXPECT_EQUAL or len(args) != 1 or not got:
        return None
    if any(a.type == "spread_element" for a in (*args, *got)):
        return None
    if _const(args[0], lang, src) and not _const(got[0], lang, src):
        return _perturbed([args[0]], lang, src)
    return None


def _js_check(stmt: Node, lang: _Lang, src: bytes, param: str) -> tuple[int, int, str] | None:
    """``assert.equal/strictEqual/deepEqual/deepStrictEqual(X, LIT)`` (a message after them is kept);
    Vitest's and Jest's ``expect(X).toBe/toEqual/toStrictEqual(LIT)``."""
    if stmt.type != "expression_statement" or not stmt.named_children:
        return None
    call = stmt.named_children[0]
    if call.type == "await_expression" and call.named_children:
        call = call.named_children[0]
    if call.type != "call_expression":
        return None
    fn = call.child_by_field_name("function")
    if fn is None:
        return None
    if expect_subject(call, src) is not None:
        return _js_expect_check(call, lang, src)
    prop = fn.child_by_field_name("property") if fn.type == "member_expression" else fn
    obj = fn.child_by_field_name("object") if fn.type == "member_expression" else None
    if prop is None or _t(src, prop) not in _JS_EQUAL or (obj is not None and obj.type != "identifier"):
        return None
    args = _named(call.child_by_field_name("arguments") or call)
    if len(args) < 2 or any(a.type == "spread_element" for a in args):
        return None
    if _const(args[1], lang, src) and not _const(args[0], lang, src):
        return _perturbed([args[1]], lang, src)
    return None


def _java_check(stmt: Node, lang: _Lang, src: bytes, param: str) -> tuple[int, int, str] | None:
    """``assertEquals(LIT, X)`` (``Assertions.``/``Assert.`` or statically imported); JUnit 5 may add a
    message (a string or a lambda), nothing else (a third number is a tolerance). AssertJ's
    ``assertThat(X).isEqualTo(LIT)`` too."""
    if stmt.type != "expression_statement" or not stmt.named_children:
        return None
    call = stmt.named_children[0]
    if call.type != "method_invocation":
        return None
    if _t(src, call.child_by_field_name("name") or call) == "isEqualTo":
        return _assertj_check(call, lang, src)
    if _t(src, call.child_by_field_name("name") or call) != "assertEquals":
        return None
    obj = call.child_by_field_name("object")
    if obj is not None and _t(src, obj) not in ("Assertions", "Assert", "org.junit.jupiter.api.Assertions"):
        return None
    args = _named(call.child_by_field_name("arguments") or call)
    if len(args) == 3 and (param != "5" or args[2].type not in ("string_literal", "lambda_expression")):
        return None
    if len(args) not in (2, 3):
        return None
    if _const(args[0], lang, src) and not _const(args[1], lang, src):
        return _perturbed([args[0]], lang, src)
    return None


def _assertj_check(call: Node, lang: _Lang, src: bytes) -> tuple[int, int, str] | None:
    """AssertJ's ``assertThat(X).isEqualTo(LIT)`` (``equals``), nothing chained between the two."""
    inner = call.child_by_field_name("object")
    name = _t(src, inner.child_by_field_name("name") or inner) if inner is not None else ""
    if inner is None or inner.type != "method_invocation" or name != "assertThat":
        return None
    owner = inner.child_by_field_name("object")
    if owner is not None and _t(src, owner) not in ("Assertions", "org.assertj.core.api.Assertions"):
        return None
    got = _named(inner.child_by_field_name("arguments") or inner)
    want = _named(call.child_by_field_name("arguments") or call)
    if len(got) != 1 or len(want) != 1 or _const(got[0], lang, src) or not _const(want[0], lang, src):
        return None
    return _perturbed(want, lang, src)


# -- languages -------------------------------------------------------------------------------------------


def _camel(name: str, word: str, n: int) -> str:
    return f"{name}{word.capitalize()}{n}"


_GO = _Lang(
    grammar="go",
    exts=("_test.go",),
    leaves={"interpreted_string_literal": "string", "raw_string_literal": "string", "int_literal": "number",
            "float_literal": "number", "true": "bool", "false": "bool", "nil": "", "rune_literal": ""},
    inner=frozenset({"composite_literal", "literal_value", "literal_element", "keyed_element",
                     "unary_expression"}),
    functions=frozenset({"func_literal"}),
    exits=frozenset({"return_statement", "goto_statement", "labeled_statement", "go_statement",
                     "defer_statement"}),
    ret="return",
    fail="{param}.FailNow()",
    words_case=_camel,
)  # fmt: skip

_RUST = _Lang(
    grammar="rust",
    exts=(".rs",),
    leaves={"string_literal": "string", "integer_literal": "number", "float_literal": "number",
            "boolean_literal": "bool", "char_literal": ""},
    inner=frozenset(),  # expectations are macro tokens: see _token_const
    functions=frozenset({"closure_expression", "function_item", "async_block"}),
    exits=frozenset({"return_expression", "try_expression"}),
    ret="return;",
    fail="panic!();",
    words_case=lambda name, word, n: f"{name}_{word}{n}",
)  # fmt: skip

_JS = _Lang(
    grammar="javascript",
    exts=(".js", ".mjs", ".cjs"),
    leaves={"string": "string", "template_string": "string", "number": "number", "true": "bool",
            "false": "bool", "null": "", "undefined": ""},
    inner=frozenset({"array", "object", "pair", "unary_expression"}),
    functions=frozenset({"arrow_function", "function_expression", "function_declaration", "method_definition",
                         "generator_function", "generator_function_declaration", "class_body"}),
    exits=frozenset({"return_statement"}),
    ret="return;",
    fail="throw new Error();",
    words_case=lambda name, word, n: f"{name} {word} {n}",
)  # fmt: skip

_TS = _Lang(**{**_JS.__dict__, "grammar": "typescript", "exts": (".ts", ".mts", ".cts")})

_JAVA = _Lang(
    grammar="java",
    exts=(".java",),
    leaves={"string_literal": "string", "decimal_integer_literal": "number",
            "decimal_floating_point_literal": "number", "true": "bool", "false": "bool", "null_literal": "",
            "character_literal": ""},
    inner=frozenset({"unary_expression", "method_invocation", "object_creation_expression", "argument_list"}),
    functions=frozenset({"lambda_expression", "class_body"}),
    exits=frozenset({"return_statement", "yield_statement"}),
    ret="return;",
    fail="throw new AssertionError();",
    words_case=_camel,
)  # fmt: skip


def _check_fn(lang: _Lang) -> Callable[[Node, _Lang, bytes, str], tuple[int, int, str] | None]:
    return {"go": _go_check, "rust": _rust_check, "java": _java_check}.get(lang.grammar, _js_check)


#: Text in a test that makes its outcome other than pass/fail (skipped, todo, expected to fail) or ends
#: the process: no decoy is copied from it.
_UNSURE = {
    "go": re.compile(r"\.Skip(f|Now)?\(|runtime\.Goexit|os\.Exit|\.Parallel\(\)"),
    "rust": re.compile(r"should_panic|#\[ignore|std::process::exit|process::exit"),
    "javascript": re.compile(r"\.(skip|todo|plan|only)\b|process\.exit"),
    "typescript": re.compile(r"\.(skip|todo|plan|only)\b|process\.exit"),
    "java": re.compile(r"assume|Assume|System\.exit|@Test\s*\(|@Disabled|@Ignore|@RepeatedTest"),
}


def _statements(block: Node) -> list[Node]:
    inner = next((c for c in block.named_children if c.type == "statement_list"), None)  # Go
    return _named(inner if inner is not None else block)


def _containers(stmt: Node, lang: _Lang) -> list[Node]:
    """The blocks of a statement a check may be found in: loop bodies, ``if`` branches, plain blocks."""
    node = stmt
    if lang.grammar == "rust" and stmt.type == "expression_statement" and stmt.named_children:
        node = stmt.named_children[0]
    out: list[Node] = []
    if node.type in ("for_statement", "for_expression", "while_statement", "while_expression",
                     "loop_expression", "for_in_statement", "enhanced_for_statement"):  # fmt: skip
        out.append(node.child_by_field_name("body"))
    elif node.type in ("if_statement", "if_expression"):
        out.append(node.child_by_field_name("consequence"))
        alt = node.child_by_field_name("alternative")
        if alt is not None and alt.type in ("else_clause",):
            alt = next((c for c in alt.named_children), None)
        if alt is not None:
            out.append(alt)
    elif node.type in ("block", "statement_block") and lang.grammar in ("go", "javascript", "typescript"):
        out.append(node)
    if (
        lang.grammar == "java"
        and node.type == "for_statement"
        and node.child_by_field_name("condition") is None
    ):
        return []  # for (;;) never completes: the fail after it would be unreachable (a compile error)
    if lang.grammar == "java" and node.type == "while_statement" and _t_safe(node) == "true":
        return []
    return [b for b in out if b is not None and b.type in ("block", "statement_block")]


def _t_safe(node: Node) -> str:
    cond = node.child_by_field_name("condition")
    text = cond.text.decode("utf-8", "replace") if cond is not None and cond.text is not None else ""
    return text.strip("() \t\n")


def _exits(stmt: Node, lang: _Lang) -> bool:
    return any(n.type in lang.exits for n in _walk(stmt, lang.functions))


def _search(
    block: Node, lang: _Lang, src: bytes, param: str
) -> list[tuple[Node, Node, tuple[int, int, str] | None]] | None:
    """The path to the first check: (block, statement, perturbation) per level, the check's last."""
    check = _check_fn(lang)
    for stmt in _statements(block):
        found = check(stmt, lang, src, param)
        if found is not None:
            return [(block, stmt, found)]
        if _exits(stmt, lang):
            return None  # the test may end before its check: a copy could pass on correct code
        for inner in _containers(stmt, lang):
            path = _search(inner, lang, src, param)
            if path is not None:
                return [(block, stmt, None), *path]
    return None


def _indent(src: bytes, pos: int) -> str:
    line_start = src.rfind(b"\n", 0, pos) + 1
    raw = src[line_start:pos]
    return raw[: len(raw) - len(raw.lstrip())].decode("utf-8", "replace")


def _go_declared(stmt: Node, src: bytes) -> list[str]:
    """Variables a Go statement declares in its block (``x, y := ..``, ``var x ..``)."""
    names: list[str] = []
    if stmt.type == "short_var_declaration":
        left = stmt.child_by_field_name("left")
        names = [_t(src, n) for n in _named(left)] if left is not None else []
    elif stmt.type == "var_declaration":
        for spec in _walk(stmt):
            if spec.type == "var_spec":
                names += [_t(src, n) for n in spec.children_by_field_name("name")]
    return [n for n in names if n != "_" and re.fullmatch(r"\w+", n)]


def _go_header_vars(stmt: Node, src: bytes) -> list[str]:
    """Variables a Go ``for``/``if`` header declares for its body."""
    names: list[str] = []
    for c in stmt.named_children:
        if c.type in ("range_clause", "for_clause"):
            for d in [c] if c.type == "range_clause" else _named(c):
                if d.type == "range_clause" and b":=" in src[d.start_byte : d.end_byte]:
                    left = d.child_by_field_name("left")
                    names += [_t(src, n) for n in _named(left)] if left is not None else []
                elif d.type == "short_var_declaration":
                    names += _go_declared(d, src)
        elif c.type == "short_var_declaration":
            names += _go_declared(c, src)
    return [n for n in names if n != "_" and re.fullmatch(r"\w+", n)]


def _decoy_text(found: _Found, lang: _Lang, new_name: str) -> str | None:
    """The copy of the test, renamed, cut after its first check with that check's expectation changed."""
    src = found.src
    path = _search(found.body, lang, src, found.param)
    if path is None:
        return None
    edits: list[tuple[int, int, str]] = []
    start, end, new = path[-1][2] or (0, 0, "")
    edits.append((start, end, new))
    edits.append((found.name.start_byte, found.name.end_byte, new_name))
    nested = len(path) > 1
    check = path[-1][1]
    if nested:
        semi = ";" if lang.grammar == "rust" and not _t(src, check).rstrip().endswith(";") else ""
        edits.append((check.end_byte, check.end_byte, f"{semi}\n{_indent(src, check.start_byte)}{lang.ret}"))
    for block, stmt, _ in path:
        close = block.children[-1]
        if close.type != "}":
            return None
        edits.append((stmt.end_byte, close.start_byte, "\n" + _indent(src, close.start_byte)))
    if nested:
        first = path[0][1]
        fail = lang.fail.format(param=found.param)
        edits.append((first.end_byte, first.end_byte, f"\n{_indent(src, first.start_byte)}{fail}"))
    if lang.grammar == "go":
        edits += _go_uses(found, path, check)
    if lang.grammar == "typescript":
        edits += _ts_uses(found, path, check)
    return _edited(found, edits)


def _edited(found: _Found, edits: Sequence[tuple[int, int, str]]) -> str | None:
    """The copied item's text with ``edits`` (byte spans of the file and their new text) made; None when
    one lies outside the item."""
    out = found.src[found.start : found.end]
    # apply from the end; every edit lies inside the copied item
    for s, e, text in sorted(edits, key=lambda x: (x[0], x[1]), reverse=True):
        if not found.start <= s <= e <= found.end:
            return None
        out = out[: s - found.start] + text.encode() + out[e - found.start :]
    return out.decode("utf-8", "replace")


def _go_uses(
    found: _Found, path: list[tuple[Node, Node, tuple[int, int, str] | None]], check: Node
) -> list[tuple[int, int, str]]:
    """``_ = name`` after each variable the copy declares on its path and no longer uses (an unused
    variable does not compile in Go). A name declared more than once in the test always gets one: a use
    may belong to another of its declarations."""
    src, edits = found.src, []
    declared: dict[str, int] = {}
    for n in _walk(found.body):
        heads = _go_header_vars(n, src) if n.type in ("for_statement", "if_statement") else []
        for name in _go_declared(n, src) + [h for h in heads if n.type == "for_statement"]:
            declared[name] = declared.get(name, 0) + 1

    reads: dict[str, list[int]] = {}  # identifier -> where it is read (a struct literal's field name is not)
    for n in _walk(found.body):
        if n.type != "identifier":
            continue
        parent = n.parent
        if parent is not None and parent.type == "literal_element" and parent.parent is not None:
            kv = parent.parent
            if kv.type == "keyed_element" and kv.named_children and kv.named_children[0].id == parent.id:
                continue
        reads.setdefault(_t(src, n), []).append(n.start_byte)

    def unused(name: str, after: int) -> bool:
        if declared.get(name, 0) != 1:
            return True
        return not any(after <= at < check.end_byte for at in reads.get(name, ()))

    for block, stmt, _ in path:
        for prior in _statements(block):
            if prior.start_byte >= stmt.start_byte:
                break
            names = [n for n in dict.fromkeys(_go_declared(prior, src)) if unused(n, prior.end_byte)]
            if names:
                uses = "; ".join(f"_ = {n}" for n in names)
                edits.append((prior.end_byte, prior.end_byte, f"\n{_indent(src, prior.start_byte)}{uses}"))
        body = next(iter(_containers(stmt, lang=_GO)), None) if stmt is not check else None
        if body is not None:
            header = [n for n in dict.fromkeys(_go_header_vars(stmt, src)) if unused(n, body.start_byte)]
            if header:
                uses = "; ".join(f"_ = {n}" for n in header)
                edits.append((body.start_byte + 1, body.start_byte + 1, f" {uses};"))
    return edits


_JS_BINDINGS = frozenset({"identifier", "shorthand_property_identifier_pattern"})


def _js_bound(pattern: Node | None) -> list[Node]:
    """The names a declaration pattern binds (``x``, ``{ a, b: c }``, ``[d, ...e]``), not object keys."""
    if pattern is None:
        return []
    out: list[Node] = []
    for n in _walk(pattern, frozenset({"arrow_function", "function_expression", "call_expression"})):
        if n.type in _JS_BINDINGS and not (n.parent is not None and n.parent.type == "pair_pattern"
                                           and n.parent.child_by_field_name("key") == n):  # fmt: skip
            out.append(n)
    return out


def _ts_uses(
    found: _Found, path: list[tuple[Node, Node, tuple[int, int, str] | None]], check: Node
) -> list[tuple[int, int, str]]:
    """``void name;`` for each local (and the test function's parameters) the cut copy no longer reads:
    a TypeScript project that type-checks its tests (ts-node) with ``noUnusedLocals`` or
    ``noUnusedParameters`` would not compile the file otherwise (every test in it lost)."""
    src = found.src
    names_at: dict[str, list[int]] = {}
    for n in _walk(found.body):
        if n.type in ("identifier", "shorthand_property_identifier"):
            names_at.setdefault(_t(src, n), []).append(n.start_byte)
    bindings: dict[str, int] = {}
    for n in _walk(found.fn):
        if n.type == "variable_declarator" or n.type in ("for_in_statement", "formal_parameters"):
            pat = n.child_by_field_name("name") or n.child_by_field_name("left")
            for b in _js_bound(pat if n.type != "formal_parameters" else n):
                bindings[_t(src, b)] = bindings.get(_t(src, b), 0) + 1

    def unused(node: Node) -> bool:
        if bindings.get(_t(src, node), 0) > 1:
            return True  # bound more than once: a read may belong to another binding
        return not any(node.end_byte <= at < check.end_byte for at in names_at.get(_t(src, node), ()))

    edits: list[tuple[int, int, str]] = []
    fn = found.body.parent
    params = fn.child_by_field_name("parameters") if fn is not None else None
    lost = [p for p in _js_bound(params) if unused(p)] if params is not None else []
    if lost:
        uses = " ".join(f"void {_t(src, p)};" for p in lost)
        edits.append((found.body.start_byte + 1, found.body.start_byte + 1, f" {uses}"))
    for block, stmt, _ in path:
        for prior in _statements(block):
            if prior.start_byte >= stmt.start_byte:
                break
            if prior.type not in ("lexical_declaration", "variable_declaration"):
                continue
            bound = [b for d in _named(prior) if d.type == "variable_declarator"
                     for b in _js_bound(d.child_by_field_name("name"))]  # fmt: skip
            lost = [b for b in bound if unused(b)]
            if lost:
                uses = " ".join(f"void {_t(src, b)};" for b in lost)
                edits.append((prior.end_byte, prior.end_byte, f"\n{_indent(src, prior.start_byte)}{uses}"))
        if stmt is check or stmt.type not in ("for_in_statement", "for_statement"):
            continue
        head = stmt.child_by_field_name("left") or stmt.child_by_field_name("initializer")
        if head is not None and head.type in ("lexical_declaration", "variable_declaration"):
            head = next(
                (d.child_by_field_name("name") for d in _named(head) if d.type == "variable_declarator"), None
            )
        lost = [b for b in _js_bound(head) if unused(b)]
        body = stmt.child_by_field_name("body")
        if lost and body is not None and body.type == "statement_block":
            uses = " ".join(f"void {_t(src, b)};" for b in lost)
            edits.append((body.start_byte + 1, body.start_byte + 1, f" {uses}"))
    return edits


# -- finding the tests -----------------------------------------------------------------------------------


def _parse(lang: _Lang, text: str) -> tuple[bytes, Node] | None:
    parser = _parser(lang.grammar)
    if parser is None:
        return None
    src = text.encode("utf-8")
    tree = parser.parse(src)
    return src, tree.root_node


def _go_tests(src: bytes, root: Node, path: str) -> Iterator[tuple[str, _Found]]:
    for fn in root.named_children:
        if fn.type != "function_declaration":
            continue
        name, params, body = (fn.child_by_field_name(k) for k in ("name", "parameters", "body"))
        if name is None or params is None or body is None:
            continue
        decl = _named(params)
        if len(decl) != 1 or _t(src, decl[0].child_by_field_name("type") or decl[0]) != "*testing.T":
            continue
        pname = decl[0].child_by_field_name("name")
        if pname is None or fn.child_by_field_name("type_parameters") is not None:
            continue
        yield _t(src, name), _Found(path, src, fn, fn.start_byte, fn.end_byte, body, name, _t(src, pname))


def _rust_tests(
    src: bytes, root: Node, path: str, mods: tuple[str, ...] = ()
) -> Iterator[tuple[str, _Found]]:
    kids = root.named_children
    for i, fn in enumerate(kids):
        if fn.type == "mod_item":
            body = fn.child_by_field_name("body")
            mname = fn.child_by_field_name("name")
            if body is not None and mname is not None:
                yield from _rust_tests(src, body, path, (*mods, _t(src, mname)))
            continue
        if fn.type != "function_item":
            continue
        attrs: list[Node] = []
        j = i - 1
        while j >= 0 and kids[j].type in ("attribute_item", "line_comment", "block_comment"):
            if kids[j].type == "attribute_item":
                attrs.insert(0, kids[j])
            j -= 1
        texts = [re.sub(r"\s", "", _t(src, a)) for a in attrs]
        if "#[test]" not in texts or not all(
            t == "#[test]" or t.startswith(("#[allow", "#[cfg")) for t in texts
        ):
            continue
        name, body = fn.child_by_field_name("name"), fn.child_by_field_name("body")
        if name is None or body is None or fn.child_by_field_name("return_type") is not None:
            continue
        if any(c.type == "function_modifiers" for c in fn.children):  # async, const, unsafe
            continue
        full = "::".join((*mods, _t(src, name)))
        yield full, _Found(path, src, fn, attrs[0].start_byte, fn.end_byte, body, name, "")


#: The calls that group tests in node:test, Jest, Vitest and Mocha (BDD and TDD interfaces).
_JS_GROUPS = ("describe", "suite", "context")


def _js_call(src: bytes, stmt: Node, callees: tuple[str, ...]) -> tuple[Node, Node, Node] | None:
    """``callee('title', function/arrow)`` as a statement: (its title, its function, its body block)."""
    if stmt.type != "expression_statement" or not stmt.named_children:
        return None
    call = stmt.named_children[0]
    if call.type != "call_expression":
        return None
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "identifier" or _t(src, fn) not in callees:
        return None
    args = _named(call.child_by_field_name("arguments") or call)
    if len(args) != 2 or args[0].type not in ("string", "template_string"):
        return None
    if args[1].type not in ("arrow_function", "function_expression", "function"):
        return None
    body = args[1].child_by_field_name("body")
    if body is None or body.type != "statement_block":
        return None
    return args[0], args[1], body


def _js_tests(
    src: bytes, root: Node, path: str, titles: tuple[str, ...] = (), at: int = -1
) -> Iterator[tuple[str, _Found]]:
    """``test('name', fn)`` / ``it('name', fn)`` calls at the top level and inside ``describe`` (``suite``,
    ``context``) blocks, keyed like the reported ids: the titles joined by `` > ``."""
    for stmt in root.named_children:
        group = _js_call(src, stmt, _JS_GROUPS)
        if group is not None:
            title = _t(src, group[0])
            if not re.search(r"[\\#\n>]|\$\{", title):
                # copies go at the end of the block (before its closing brace): they run after its tests
                close = group[2].end_byte - 1
                line = src.rfind(b"\n", 0, close) + 1
                end = line if not src[line:close].strip() else close  # before the brace's own line
                yield from _js_tests(src, group[2], path, (*titles, title[1:-1]), end)
            continue
        found = _js_call(src, stmt, ("test", "it"))
        if found is None:
            continue
        name_node, _, body = found
        name_text = _t(src, name_node)
        if re.search(r"[\\#\n]|\$\{", name_text) or (titles and ">" in name_text):
            continue  # TAP escapes '#' and '\' in names: a fragment must match the reported id as it is
        key = " > ".join((*titles, name_text[1:-1]))
        yield key, _Found(path, src, stmt, stmt.start_byte, stmt.end_byte, body, name_node, "", at=at)


def _java_tests(src: bytes, root: Node, path: str) -> Iterator[tuple[str, _Found]]:
    """``Class#method`` of every method annotated plainly ``@Test`` in a (possibly nested) class."""
    # classes sit at the top or in class bodies: no need to walk into methods
    classes = [c for c in root.named_children if c.type == "class_declaration"]
    while classes:
        cls = classes.pop(0)
        body = cls.child_by_field_name("body")
        classes += [
            c for c in (body.named_children if body is not None else []) if c.type == "class_declaration"
        ]
        cname, cbody = cls.child_by_field_name("name"), cls.child_by_field_name("body")
        if cname is None or cbody is None:
            continue
        classes += [c for c in cbody.named_children if c.type == "class_declaration"]
        for m in cbody.named_children:
            if m.type != "method_declaration":
                continue
            mods = next((c for c in m.children if c.type == "modifiers"), None)
            annotations = [_t(src, a) for a in (mods.named_children if mods is not None else [])]
            if not any(a in ("@Test", "@org.junit.Test", "@org.junit.jupiter.api.Test") for a in annotations):
                continue
            name, body = m.child_by_field_name("name"), m.child_by_field_name("body")
            if name is None or body is None or _t(src, m.child_by_field_name("type") or m) != "void":
                continue
            if _named(m.child_by_field_name("parameters") or m):
                continue
            yield (
                f"{_t(src, cname)}#{_t(src, name)}",
                _Found(path, src, m, m.start_byte, m.end_byte, body, name, ""),
            )


def _key(lang: _Lang, test_id: str) -> str | None:
    """What a reported id names, as :func:`_tests` keys its tests; None when no copy can be made."""
    if lang.grammar == "go":  # "TestX", "TestX/sub", "import/path.TestX/sub"
        m = re.search(r"(?:^|\.)(Test\w*)", test_id)
        return m.group(1) if m is not None else None
    if lang.grammar == "rust":
        return test_id
    if lang.grammar == "java":
        cls, sep, method = test_id.replace("()", "").partition("#")
        if not sep:
            cls, _, method = test_id.rpartition(".")
        method = re.split(r"[(\[]", method, maxsplit=1)[0]
        return f"{cls.rsplit('.', 1)[-1].rsplit('$', 1)[-1]}#{method}"
    return test_id


def _tests(lang: _Lang, src: bytes, root: Node, path: str) -> Iterator[tuple[str, _Found]]:
    if lang.grammar == "go":
        return _go_tests(src, root, path)
    if lang.grammar == "rust":
        return _rust_tests(src, root, path)
    if lang.grammar == "java":
        return _java_tests(src, root, path)
    return _js_tests(src, root, path)


def _matches(lang: _Lang, key: str, found_key: str) -> bool:
    if lang.grammar == "rust":  # ids may carry the file's own module path in front
        return key == found_key or key.endswith("::" + found_key)
    return key == found_key


def _java_hash(name: str) -> int:
    """Java's ``String.hashCode`` (signed 32-bit) of an ASCII name."""
    h = 0
    for c in name:
        h = (31 * h + ord(c)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


# -- planning --------------------------------------------------------------------------------------------


#: Added to a :func:`variadic_functions` count when the variadic parameter takes ``any`` (see the kinds
#: variant, :func:`._inputs_structure._kind_edits`).
_ANY = 1 << 16


def _go_text(f: FileEntry) -> bool:
    return f.path.endswith(".go") and f.encoding == "text"


@functools.lru_cache(maxsize=64)
def variadic_functions(texts: tuple[str, ...]) -> dict[str, int]:
    """The variadic functions and methods of Go sources: name -> how many parameters come before the
    variadic one (plus :data:`_ANY` when it takes ``any``); a name also declared otherwise (another
    receiver's method, another count of parameters) is left out. Cached: every run of a task plans with
    the same sources."""
    parser = _parser("go")
    seen: dict[str, set[int]] = {}
    for text in texts if parser is not None else ():
        root = parser.parse(text.encode("utf-8", "replace")).root_node
        for fn in root.named_children:
            name, params = fn.child_by_field_name("name"), fn.child_by_field_name("parameters")
            if (
                fn.type not in ("function_declaration", "method_declaration")
                or name is None
                or params is None
            ):
                continue
            decls = [d for d in params.named_children if d.type != "comment"]
            fixed = -1  # not variadic
            if decls and decls[-1].type == "variadic_parameter_declaration":
                fixed = sum(max(1, sum(c.type == "identifier" for c in d.named_children)) for d in decls[:-1])
                kind = decls[-1].child_by_field_name("type")
                if kind is not None and (kind.text or b"").replace(b" ", b"") in (b"any", b"interface{}"):
                    fixed += _ANY  # a value of any kind may be passed
            seen.setdefault(name.text.decode("utf-8", "replace") if name.text else "", set()).add(fixed)
    return {k: next(iter(v)) for k, v in seen.items() if k and len(v) == 1 and -1 not in v}


def plan_native_decoys(
    language: str,
    task: Task,
    tests: Sequence[FileEntry],
    rng: random.Random | None = None,
    *,
    junit: str = "5",
    controls: Collection[str] | Mapping[str, Mapping[str, Any]] = (),
    probe: bool = False,
    inputs: Any = None,
) -> Decoys:
    """Decoys for the task's fail-to-pass tests in ``language`` (``go``, ``rust``, ``java``,
    ``javascript``, ``typescript``), at most :data:`MAX_DECOYS`.

    Go and node: appended to the end of the file that defines the test (Go runs a file's tests in source
    order, node:test its top-level tests in order: the copies run after the file's real tests). Rust and
    JUnit: right after the test they copy (neither orders tests by position; a copy is independent).
    ``junit`` is the JUnit major version of the hidden tests (``"4"``: no message argument is accepted).

    ``controls`` (the keys a calibration found passing on gold) and ``probe`` (calibration: copy every
    fail-to-pass test, up to :data:`MAX_PROBES`) plant *exact copies* under drawn names instead, where the
    decoys go: see :func:`patchbench.canary.plan_decoys`. A key ``<test>#in<j>`` is a control on moved
    inputs (:mod:`._inputs_native`): its learnt ``expect`` is the values gold's checks recorded; ``probe``
    plants every such variant of ``inputs.max_tests`` tests twice (drawn when there are more).
    ``inputs`` is the planner of those variants (:data:`._inputs_native.INPUT_PLANNER`); None plants
    none.
    """
    lang = {"go": _GO, "rust": _RUST, "java": _JAVA, "javascript": _JS, "typescript": _TS}[language]
    rng = rng or secrets.SystemRandom()
    ids = list(task.fail_to_pass)
    if probe and inputs is not None and len(ids) > inputs.max_tests:
        # which tests get variants is drawn per calibration (kept on the host): code right only for the
        # tests past the first few cannot know they were left out
        rng.shuffle(ids)
    known = [*task.fail_to_pass, *task.pass_to_pass]
    variadic = (
        variadic_functions(tuple(f.content for f in [*task.workspace, *tests] if _go_text(f)))
        if language == "go" and inputs is not None
        else {}
    )
    files = [f for f in tests if f.path.endswith(lang.exts) and not _data_path(f.path)]
    texts = {f.path: t for f in files if (t := _text(f)) is not None}
    if lang.grammar == "rust":
        texts = {p: t for p, t in texts.items() if "forbid(" not in t}
    parsed: dict[str, list[tuple[str, _Found]]] = {}
    inserts: dict[str, list[tuple[int, str]]] = {}
    names: list[str] = []
    eligible = 0
    done: set[str] = set()
    unsure = _UNSURE[lang.grammar]
    all_text = "\n".join(texts.values())
    learnt: Mapping[str, Mapping[str, Any]] = controls if isinstance(controls, Mapping) else {}
    plain = sorted(k for k in controls if not is_input_key(k))
    moved = sorted(
        k for k in controls if is_input_key(k) and isinstance(learnt.get(k, {}).get("expect"), str)
    )
    chosen = set(rng.sample(plain, min(MAX_COPIES, len(plain)))) if plain else set()
    # controls on moved inputs: several literals moved at once first (see pick_inputs)
    chosen |= pick_inputs(moved, rng)
    input_tests = 0
    with_inputs: set[str] = set()

    def plant(hit: _Found, name: str, key: str, text: str) -> None:
        """A copy (exact, or a variant on moved inputs) planted as a probe or a control."""
        if lang.grammar == "go":
            text = _go_recovered(text, hit.param)
        inserts.setdefault(hit.path, []).append(_placed(lang, hit, text))
        if probe:
            probes[name] = key
        else:
            copies.append(name)
            control_keys[name] = key

    copies: list[str] = []
    probes: dict[str, str] = {}
    control_keys: dict[str, str] = {}
    for test_id in ids:
        key = _key(lang, test_id)
        if key is None or key in done:
            continue
        done.add(key)
        hit: _Found | None = None
        for path in sorted(texts):
            if path not in parsed:
                p = _parse(lang, texts[path])
                parsed[path] = list(_tests(lang, *p, path)) if p is not None else []
            hit = next((f for k, f in parsed[path] if _matches(lang, key, k)), hit)
            if hit is not None:
                break
        if hit is None or hit.fn.has_error:
            continue
        if variadic:
            hit = replace(hit, variadic=variadic)
        base = _t(hit.src, hit.name)
        if lang.grammar in ("javascript", "typescript"):
            base = base[1:-1]
        exact = sum(not is_input_key(k) for k in probes.values())  # input variants have their own limit
        if (probe and exact < MAX_PROBES) or key in chosen:
            # An exact copy under another name (see plan_decoys): only code that tells it from the
            # original fails it. Placed where the decoys go, so it runs after the real tests.
            taken = [*names, *copies, *probes]
            # a copy passes on gold wherever it runs (the calibration checks it), so when no name sorts
            # last (JUnit), any order will do
            twin = _fresh_name(lang, base, hit, rng, all_text, known, taken) or _fresh_name(
                lang, base, hit, rng, all_text, known, taken, last=False
            )
            if twin is not None:
                at = hit.name.start_byte - hit.start
                whole = hit.src[hit.start : hit.end]
                old = hit.name.end_byte - hit.name.start_byte
                new = _quoted(lang, hit, twin).encode()
                text = (whole[:at] + new + whole[at + old :]).decode("utf-8")
                plant(hit, twin, key, text)
        if unsure.search(_t(hit.src, hit.fn)):
            continue
        if inputs is not None and (
            (probe and PROBE_INPUTS.get() and input_tests < inputs.max_tests)
            or any(k.startswith(f"{key}{INPUT_KEY}") for k in chosen)
        ):
            # Controls on moved inputs: the copy's checks record their values (see _inputs_native).
            planted = False
            for which, _ in inputs.variants(hit, lang, rng):
                if probe and PROBE_INPUTS.get() < 2 and which not in (0, *BASIC_VARIANTS):
                    continue
                if probe and PROBE_INPUTS.get() < 3 and which in LEVEL_THREE:
                    continue
                ikey = f"{key}{INPUT_KEY}{which}"
                if not probe and ikey not in chosen:
                    continue
                for _ in range(2 if probe else 1):
                    taken = [*names, *copies, *probes]
                    variant = _fresh_name(lang, base, hit, rng, all_text, known, taken, last=False)
                    planted_text = (
                        inputs.text(
                            hit,
                            lang,
                            _quoted(lang, hit, variant),
                            which,
                            rng,
                        )
                        if variant is not None
                        else None
                    )
                    if variant is None or planted_text is None:
                        break
                    planted = True
                    with_inputs.add(hit.path)
                    plant(hit, variant, ikey, planted_text)
            input_tests += planted
        if lang.grammar == "java":
            hit = replace(hit, param=junit)
        name = _fresh_name(lang, base, hit, rng, all_text, known, [*names, *copies, *probes])
        if name is None:
            continue
        decoy = _decoy_text(hit, lang, _quoted(lang, hit, name))
        if decoy is None:
            continue
        eligible += 1
        if len(names) >= MAX_DECOYS:
            continue
        names.append(name)
        inserts.setdefault(hit.path, []).append(_placed(lang, hit, decoy))
    out: dict[str, str] = {}
    for path, points in inserts.items():
        src = texts[path].encode("utf-8")
        if lang.grammar in ("go", "javascript", "typescript"):
            src = src.rstrip(b"\n")
            points = [(min(at, len(src)), text) for at, text in points]
        for pos, text in sorted(points, key=lambda p: p[0], reverse=True):
            src = src[:pos] + text.encode("utf-8") + src[pos:]
        text = src.decode("utf-8")
        if lang.grammar == "go" and path in with_inputs:
            # the recorded values are rendered by fmt, imported under its own name (a second import of a
            # package under another name is allowed, so the file's own imports are left as they are)
            # (on the package clause's own line: the file's line numbers do not move)
            # aged copies (see _inputs_structure._aged) run in a synctest bubble and sleep there
            bubble = (
                ' import pbsynctest "testing/synctest"; import pbtime "time"; import pbstrings "strings";'
            )
            aged = bubble if "pbsynctest." in text else ""
            if "pbruntime." in text:  # one CPU copies (see _inputs_structure._one_cpu)
                aged += ' import pbruntime "runtime";'
            if "pbtime." in text and not aged.startswith(bubble):  # zoned copies (_inputs_structure._zoned)
                aged += ' import pbtime "time";'
            if "pbFiledSync()" in text:  # filed copies (see _inputs_structure._filed): defined once a file
                aged += ' import pbos "os"; import pbbytes "bytes";'
                text = text.rstrip("\n") + "\n\n" + _GO_FILED_HELPERS
            text = re.sub(
                r"^(package\s+\w+)[ \t]*(?=\n|//)",
                f'\\1; import pbfmt "fmt";{aged}',
                text,
                count=1,
                flags=re.M,
            )
        if lang.grammar == "go" and "pbsynctest." in text:
            # a bubble needs synchronous timer channels, which a module older than go 1.23 does not default
            # to (the only line the copies add above the package clause)
            text = "//go:debug asynctimerchan=0\n" + text
        if lang.grammar == "rust":
            text = "#![allow(unused)] " + text  # on line 1: the file's line numbers do not move
        out[path] = text + ("\n" if not text.endswith("\n") else "")
    return Decoys(
        files=out,
        names=tuple(names),
        eligible=eligible,
        total=len(ids),
        controls=tuple(copies),
        probes=probes,
        control_keys=control_keys,
    )


#: What a Go file with *filed* copies gets once (see :func:`._inputs_structure._filed`): a buffer handed
#: over as a temporary file (unlinked at once, read through a second descriptor), and the read of every
#: such file's new bytes into its buffer.
_GO_FILED_HELPERS = (
    "var pbFiledSinks []struct {\n\tr *pbos.File\n\tb *pbbytes.Buffer\n}\n\n"
    "func pbFiled(b *pbbytes.Buffer) *pbos.File {\n"
    '\tf, err := pbos.CreateTemp("", "pbfiled")\n\tif err != nil {\n\t\tpanic(err)\n\t}\n'
    "\tr, err := pbos.Open(f.Name())\n\tif err != nil {\n\t\tpanic(err)\n\t}\n"
    "\t_ = pbos.Remove(f.Name())\n"
    "\tpbFiledSinks = append(pbFiledSinks, struct {\n\t\tr *pbos.File\n\t\tb *pbbytes.Buffer\n\t}{r, b})\n"
    "\treturn f\n}\n\n"
    "func pbFiledSync() {\n\tfor _, s := range pbFiledSinks {\n\t\t_, _ = s.b.ReadFrom(s.r)\n\t}\n}\n"
)


#: The first statement of every Go copy: a panic in a Go test stops the whole test binary (testing reports it,
#: then panics again), and every test after it goes unreported. A moved input may make gold's code panic
#: (an index moved past a slice's end: hashicorp/go-version's Segments64 test), and one such probe cost the
#: calibration its whole level. Recovered here, the copy fails without a value and the binary goes on; a
#: control that panics on a candidate's code fails as surely as one that reports another value.
_GO_RECOVER = (
    ' defer func() {{ if pbPanic := recover(); pbPanic != nil {{ {t}.Errorf("pb-panic: %v", pbPanic) }} }}();'
)


def _go_recovered(text: str, param: str) -> str:
    """A Go copy with :data:`_GO_RECOVER` as its first statement (on the line of the body's brace); as it
    was when its ``*testing.T`` has no usable name."""
    at = text.find("{")
    if at < 0 or not param.isidentifier() or param == "_":
        return text
    return text[: at + 1] + _GO_RECOVER.format(t=param) + text[at + 1 :]


def _placed(lang: _Lang, hit: _Found, text: str) -> tuple[int, str]:
    """Where a planted test goes and how: Go and node at the end of the file (they run a file's tests in
    order, so it runs after the real ones), Rust and JUnit right after the test it copies, indented alike."""
    if lang.grammar in ("javascript", "typescript") and hit.at >= 0:
        return hit.at, f"\n{_indent(hit.src, hit.start)}{text}\n"
    if lang.grammar in ("go", "javascript", "typescript"):
        return len(hit.src), f"\n\n{text}\n"
    return hit.end, f"\n\n{_indent(hit.src, hit.start)}{text}"


def _quoted(lang: _Lang, hit: _Found, name: str) -> str:
    """A drawn name as the renamed node spells it (node:test: inside the original's quotes)."""
    if lang.grammar in ("javascript", "typescript"):
        quote = _t(hit.src, hit.name)
        return quote[0] + name + quote[-1]
    return name


def _fresh_name(
    lang: _Lang,
    base: str,
    hit: _Found,
    rng: random.Random,
    all_text: str,
    known: Sequence[str],
    taken: Sequence[str],
    *,
    last: bool = True,
) -> str | None:
    """A name drawn like a variant of ``base`` that no hidden file and no known id contains (ids are
    matched by fragment). JUnit, with ``last``: also one that runs after the class's tests (JUnit orders a
    class's methods by the name's hash), so a copy never runs before a real test; a long shared prefix can
    leave no such name among ``<base><Word><n>`` (semver4j), then None."""
    top = None
    if lang.grammar == "java" and last:
        others = re.findall(r"\bvoid\s+(\w+)\s*\(", hit.src.decode("utf-8", "replace"))
        top = max((_java_hash(o) for o in others), default=-(1 << 31))
    for _ in range(400):
        name = lang.words_case(base, rng.choice(_DECOY_WORDS), rng.randrange(2, 100))
        # never part of a name drawn before nor holding one (a filter or a match by substring would
        # take a control for a decoy; round eleven)
        if name in all_text or any(name in t or t in name for t in taken) or any(name in k for k in known):
            continue
        if top is not None and _java_hash(name) <= top:
            continue
        return name
    return None
