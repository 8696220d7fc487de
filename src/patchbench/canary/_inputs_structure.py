"""Controls on a test's *structure*, for node:test, Go and JUnit: more of what the test builds, not other
literals.

The variants of :mod:`._inputs_native` move literals; they never change how many elements a test's list
holds, how many times it calls the code under test, or what a helper of the test file builds. Code keyed on
those (a repair applied only while a table holds at most five keys, only to statements of at most three
payments, only to histories of the listed shapes, only to parents built by the test file's helper) answers
every moved variant as it answers the listed test. These variants change the structure instead:

- **extend** (:data:`EXTEND`): every list the test writes out (a JS array, a Go slice literal, Java's
  ``List.of``/``Arrays.asList`` and array initialisers) gains moved copies of its elements, one to three
  copies (drawn from the calibration's secret shift), the ``k``-th copy's literals moved ``k`` times;
- **repeat** (:data:`REPEAT`): the first call the test makes as a statement of its own (not a check) is made
  again right after, its literals moved;
- **helpers** (:data:`HELPERS`): the functions and constants of the test file that the test reads are copied
  under drawn names with their integers and the digits of their strings moved, and the copy of the test
  calls the copies.
- **shrink** (:data:`SHRINK`, :data:`SHRINK_TABLES`; round ten): every list the test writes out, or the
  helpers' lists in their copies, cut to its first two elements (one when it holds two): every other
  variant only adds, so code right from as many records as the smallest listed test up met nothing
  smaller. Not Go: a cut element may hold a variable's only use, which does not compile.

- **loops** (:data:`LOOPS`; round eleven): every counting loop (``for i := 0; i < n; i++``) of the test
  and of the helpers it reads (copied) counts as many times from the secret shift on (``i := 13; i < n +
  13``): values a helper derives from its loop variable are no longer their positions;
- **tail** (:data:`TAIL`; round eleven): every list the test writes out without its first element (what
  a list or a history starts with never changed otherwise; Go at level 3, like shrink);
- **reverse** (:data:`REVERSE`; round eleven): every list of the test and of its helpers' copies in
  reverse order (what a history starts with changes kind, not only its length);
- **kinds** (:data:`KINDS`; Go, round eleven): the values of an ``...any`` call's key-value pairs, in the
  test and in its helpers' copies, passed as one-element slices (``"user", "alice"`` as ``"user",
  []any{"alice"}``): code right only for the kinds the listed calls pass (strings, ints) meets another;
- **arity** (:data:`ARITY`; Go, round eleven): every call of a function or method the task's code declares
  variadic (``With(kv ...any)``; :func:`._decoys_native.variadic_functions`) passes its variadic
  arguments twice more, moved: code right only for as many as the listed calls pass (at most two fields)
  meets more;
- **far** (:data:`FAR`; round thirteen): the test's own counting loops with a literal bound (a sweep
  over sizes) make their first two steps from past a thousand on (:func:`._respell.far_start`): bounds
  caps a loop at 500 steps, so code right only for sizes up to 512 met no larger one (level 3);
- **many** (:data:`MANY`; round thirteen): the first call the test makes as a statement of its own (not
  awaited: it may block) made again, as it is, past a thousand times in a loop (level 3): code right only
  for histories of up to a hundred events met no longer one;
- **types** (:data:`TYPES`; Rust, round thirteen): the integer types a test writes widened to 128 bits
  (``Vec<u32>`` -> ``Vec<u128>``): code right only for the types the listed tests use (a repair keyed on
  ``type_name::<T>()``) meets another. The only structural variant Rust gets (level 3: a test calling a
  helper of its file that names such a type is left, but a copy may still not build).
- **busy** (:data:`BUSY`; Go, round fifteen): past a thousand goroutines parked from the copy's first
  statement until it returns: code right only while the process runs few goroutines meets a busy one;
- **one CPU** (:data:`ONE_CPU`; Go, round nineteen): ``GOMAXPROCS`` at 1 while the copy runs: code right
  only where goroutines may run in parallel meets a machine with one CPU;
- **off main** (:data:`OFF_MAIN`; Java and node, round fifteen): the copy's statements run on a thread
  of their own (Java: named like an executor's worker; node: a ``worker_threads`` Worker given the file's
  imports, functions and constants again, ES modules only, not TypeScript, which is compiled first), and
  what they throw is thrown again on the test's thread: code right only on the main thread meets
  another (level 3: a Java lambda cannot capture a parameter the test assigns).

They are calibrated like every variant (gold twice, stable, comparable, not the buggy code's value), so one
that breaks the test (a repeated call that must happen once, a list whose length is checked) is simply not
kept. Rust gets only types: a repeated call or a copied element may use a value already moved, which does
not compile, and a copy that does not build costs the calibration every variant of the file. Go's shrink and
arity may not compile either (a variable's only use cut; a method of the same name that is not variadic):
they are probed first, at :data:`._probing.PROBE_INPUTS` level 3, and a calibration whose gold run does
not build with them tries again without them (level 2).
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Callable, Iterator, Mapping
from functools import partial

from ._decoys import (
    AGED,
    ARITY,
    BUSY,
    DOUBLE,
    EXTEND,
    FAR,
    FILED,
    FRESH,
    HANDED,
    HELPERS,
    KINDS,
    LOOPS,
    MANY,
    OFF_MAIN,
    ONE_CPU,
    REPEAT,
    REUSE,
    REVERSE,
    SHRINK,
    SHRINK_TABLES,
    TABLES,
    TAIL,
    TUPLES,
    TYPES,
    ZONED,
)
from ._decoys_native import (
    _ANY,
    Node,
    _Found,
    _key_nodes,
    _Lang,
    _named,
    _statements,
    _t,
    _walk,
)
from ._probing import INPUT_SHIFT, PROBE_INPUTS
from ._respell import far_start, many_times, zone
from ._structure_py import copies, moved_string

_GRAMMARS = frozenset({"go", "javascript", "typescript", "java"})
_NUMBER = re.compile(r"^([1-9][0-9_]{0,10}|0)(L|l)?$")
_JAVA_LISTS = {("List", "of"), ("Arrays", "asList"), ("Stream", "of"), ("java.util.List", "of")}
#: The lists a Java *tuples* variant passes as an ``ArrayList`` (see :func:`_java_containers`).
_JAVA_MUTABLE = {("List", "of"), ("Arrays", "asList"), ("java.util.List", "of")}


#: A placeholder of a Rust format string: `{}`, `{0}`, `{name}`, `{name:?}`, `{:>8}` (not `{{`). A move inside
#: one names another variable or argument, and the copy (the whole test binary with it) no longer builds.
RUST_PLACEHOLDER = re.compile(r"(?<!\{)\{(?:[A-Za-z_][A-Za-z_0-9]*|[0-9]*)(?::[^{}]*)?\}")


def _moved_leaf(text: str, kind: str, k: int, words: bool = True) -> str | None:
    """A literal moved ``k`` times the secret shift: an integer up, a string's last run of digits up; a
    string with a letter and no digit gains ``k`` letters (so the copies of a key stay distinct)."""
    if kind == "number":
        m = _NUMBER.match(text)
        shift = INPUT_SHIFT.get() * k
        return f"{int(m.group(1).replace('_', '')) + shift}{m.group(2) or ''}" if m is not None else None
    if kind != "string" or len(text) < 2 or text[0] not in "\"'`" or text[-1] != text[0] or text[:3] == '"""':
        return None
    body = text[1:-1]
    if "\\" in body or "${" in body:
        return None
    moved = moved_string(body, k, words=words)
    return None if moved == body else text[0] + moved + text[0]


def _moved_text(
    src: bytes, node: Node, lang: _Lang, k: int, *, numbers: bool = True, words: bool = True
) -> tuple[str, bool]:
    """The text of ``node`` with its literals moved (map keys and booleans never; integers only when
    ``numbers``, words only when ``words``), and whether any was."""
    keys = _key_nodes(node)
    edits: list[tuple[int, int, str]] = []
    for n in _walk(node):
        kind = lang.leaves.get(n.type)
        if kind == "number" and not numbers:
            continue
        if kind == "string" and lang.grammar == "rust" and RUST_PLACEHOLDER.search(_t(src, n)):
            continue  # a format string (see RUST_PLACEHOLDER)
        if kind in ("number", "string") and n.id not in keys:
            new = _moved_leaf(_t(src, n), kind, k, words)
            if new is not None:
                edits.append((n.start_byte, n.end_byte, new))
    return _applied(src, node, edits)


def _strings_moved(src: bytes, node: Node, lang: _Lang) -> tuple[str, bool]:
    """A helper's text with its strings moved (digits by the secret shift, a word gains a letter); its
    integers are kept: in a helper they are loop bounds and positions more often than inputs (a loop
    moved past the listed depths builds nothing, a moved position panics)."""
    return _moved_text(src, node, lang, 1, numbers=False)


def _elements(node: Node, lang: _Lang, src: bytes) -> list[Node] | None:
    """The elements of a list the test writes out, or None when ``node`` is not one."""
    g = lang.grammar
    if g in ("javascript", "typescript") and node.type == "array":
        return _named(node)
    if g == "go" and node.type == "composite_literal":
        typ, body = node.child_by_field_name("type"), node.child_by_field_name("body")
        if typ is None or body is None or typ.type != "slice_type":
            return None
        elems = _named(body)
        return elems if all(e.type == "literal_element" for e in elems) else None
    if g == "java" and node.type == "method_invocation":
        obj, name = node.child_by_field_name("object"), node.child_by_field_name("name")
        args = node.child_by_field_name("arguments")
        if obj is None or name is None or args is None or (_t(src, obj), _t(src, name)) not in _JAVA_LISTS:
            return None
        elems = _named(args)
        # List.of(xs) may pass an array as the varargs: more of it would be a list of arrays
        return None if len(elems) == 1 and elems[0].type == "identifier" else elems
    if g == "java" and node.type == "array_initializer":
        return _named(node)
    return None


def _outside(spans: list[tuple[int, int]], node: Node) -> bool:
    return not any(s < node.end_byte and node.start_byte < e for s, e in spans)


_Edits = list[tuple[int, int, str]]
_Spans = list[tuple[int, int]]


def _extensions(
    src: bytes,
    root: Node,
    lang: _Lang,
    *,
    skip: _Spans | None = None,
    upto: int | None = None,
    words: bool = True,
    moved: bool = True,
    shrink: bool = False,
    tail: bool = False,
    reverse: bool = False,
) -> _Edits:
    """Edits appending moved copies to the elements of every outermost list under ``root`` (outside the
    ``skip`` spans, ending before ``upto``); a word in a copy gains letters only when ``words``. With
    ``shrink``, edits cutting every such list to its first two elements instead (one when it holds two)."""
    edits: _Edits = []
    done: _Spans = []
    for n in _walk(root):
        if (upto is not None and n.end_byte > upto) or not _outside([*(skip or []), *done], n):
            continue
        elems = _elements(n, lang, src)
        if not elems:
            continue
        done.append((n.start_byte, n.end_byte))
        if tail:
            if len(elems) >= 2:
                edits.append((elems[0].start_byte, elems[1].start_byte, ""))
            continue
        if reverse:
            if len(elems) >= 2 and len({_t(src, e) for e in elems}) > 1:
                back = reversed(elems)
                edits += [(a.start_byte, a.end_byte, _t(src, b)) for a, b in zip(elems, back, strict=True)]
            continue
        if shrink:
            if len(elems) >= 2:
                keep = 1 if len(elems) == 2 else 2
                edits.append((elems[keep - 1].end_byte, elems[-1].end_byte, ""))
            continue
        extra = [
            _moved_text(src, e, lang, k, words=words)[0] if moved else _t(src, e)
            for k in range(1, copies() + 1)
            for e in elems
        ]
        edits.append((elems[-1].end_byte, elems[-1].end_byte, "".join(f", {x}" for x in extra)))
    return edits


def _call(stmt: Node, lang: _Lang) -> bool:
    """Whether a statement is a call made for its effect (``x.f(..);``, JS ``await x.f(..);``)."""
    if stmt.type != "expression_statement" or not stmt.named_children:
        return False
    expr = stmt.named_children[0]
    if expr.type == "await_expression" and expr.named_children:
        expr = expr.named_children[0]
    return expr.type in ("call_expression", "method_invocation")


#: A loop making a statement ``n`` times, by language (see :data:`MANY`).
_MANY_LOOP = {
    "go": "for pbAgain := 0; pbAgain < {n}; pbAgain++ {{ {stmt} }}",
    "java": "for (int pbAgain = 0; pbAgain < {n}; pbAgain++) {{ {stmt} }}",
    "javascript": "for (let pbAgain = 0; pbAgain < {n}; pbAgain++) {{ {stmt} }}",
    "typescript": "for (let pbAgain = 0; pbAgain < {n}; pbAgain++) {{ {stmt} }}",
}


def _repeat(
    found: _Found, lang: _Lang, checks: _Spans, report_at: int, fails: re.Pattern[str], *, many: bool = False
) -> _Edits:
    src = found.src
    for stmt in _statements(found.body):
        if stmt.end_byte > report_at:
            break
        if not _call(stmt, lang) or not _outside(checks, stmt) or fails.search(_t(src, stmt)):
            continue
        if found.param and re.search(rf"\b{re.escape(found.param)}\b", _t(src, stmt)):
            continue
        line = src.rfind(b"\n", 0, stmt.start_byte) + 1
        indent = src[line : stmt.start_byte].decode("utf-8", "replace")
        indent = indent[: len(indent) - len(indent.lstrip())]
        if many:  # the call as it is, past a thousand times (see MANY); never one awaited (it may block)
            if "await" in _t(src, stmt):
                return []
            loop = _MANY_LOOP[lang.grammar].format(n=many_times(), stmt=_t(src, stmt))
            return [(stmt.end_byte, stmt.end_byte, f"\n{indent}{loop}")]
        again = "".join(f"\n{indent}{_moved_text(src, stmt, lang, k)[0]}" for k in range(1, copies() + 1))
        return [(stmt.end_byte, stmt.end_byte, again)]
    return []


def _zoned(found: _Found, lang: _Lang) -> _Edits:
    """*Zoned* (:data:`ZONED`, level 3): the copy runs in another time zone (see :func:`._respell.zone`),
    put back as it was when it returns. Go: ``time.Local`` (read by ``time.Now``), imported beside the package
    clause (see plan_native_decoys); Java: ``TimeZone.setDefault`` (``ZoneId.systemDefault()`` follows it);
    node: ``process.env.TZ`` (node drops its cached zone when it is set)."""
    seconds, _posix, java, iana = zone()
    start, end = found.body.start_byte + 1, found.body.end_byte - 1
    if lang.grammar == "go":
        return [
            (
                start,
                start,
                "\n\tdefer func(pbWas *pbtime.Location) { pbtime.Local = pbWas }(pbtime.Local)"
                f'\n\tpbtime.Local = pbtime.FixedZone("PBZ", {seconds})',
            )
        ]
    if lang.grammar == "java":
        head = (
            "\njava.util.TimeZone pbZoneWas = java.util.TimeZone.getDefault();"
            f' java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("{java}")); try {{'
        )
        return [
            (start, start, head),
            (end, end, "\n} finally { java.util.TimeZone.setDefault(pbZoneWas); }\n"),
        ]
    if lang.grammar in ("javascript", "typescript"):
        head = f"\nconst pbZoneWas = process.env.TZ; process.env.TZ = '{iana}'; try {{"
        tail = (
            "\n} finally { if (pbZoneWas === undefined) delete process.env.TZ;"
            " else process.env.TZ = pbZoneWas; }\n"
        )
        return [(start, start, head), (end, end, tail)]
    return []


def _one_cpu(found: _Found) -> _Edits:
    """Go's *one CPU* (:data:`ONE_CPU`): ``GOMAXPROCS`` set to 1 from the copy's first statement, and put
    back as it was when the copy returns (code right only where goroutines may run in parallel meets a
    machine with one CPU). The import is added beside the package clause (see plan_native_decoys)."""
    at = found.body.start_byte + 1
    return [(at, at, "\n\tdefer pbruntime.GOMAXPROCS(pbruntime.GOMAXPROCS(1))")]


def _busy(found: _Found) -> _Edits:
    """Go's *busy* (:data:`BUSY`): goroutines parked from the copy's first statement until it returns, past a
    thousand by the shift (code right only while the process runs few goroutines meets a busy one)."""
    n, at = many_times(), found.body.start_byte + 1
    return [
        (at, at, f"\n\tpbParked := make(chan struct{{}}); defer close(pbParked)"
         f"\n\tfor pbI := 0; pbI < {n}; pbI++ {{ go func() {{ <-pbParked }}() }}")
    ]  # fmt: skip


#: What a node copy calls before each statement under *aged* (:data:`AGED`): the integrity module's clock
#: advance (``Reflect.get``: valid and untyped in JavaScript and TypeScript alike; a no-op without it).
_NODE_ADVANCE = "Reflect.get(globalThis, Symbol.for('patchbench.clock'))?.({ms});"
#: What a Go copy's statements are run in under *aged*: a ``testing/synctest`` bubble, whose fake clock a
#: sleep moves at once (the imports are added beside the package clause, see plan_native_decoys). Its first
#: statement notes, as the bubble's goroutine leaves, whether the copy failed by then (its record, or a
#: check of a helper's): see :data:`_GO_BUBBLE_GUARD`.
_GO_BUBBLE = "pbsynctest.Test({t}, func({t} *testing.T) {{ defer func() {{ {v} = {t}.Failed() }}()"
#: Before the bubble, on the test's goroutine: a bubble that ends with goroutines of its own still blocked
#: panics, and is recovered here (never the test binary's crash). Left after the copy failed (round
#: seventeen's honest go-logger fix: a writer goroutine outlived it), the test fails with what the copy
#: reported, and the host compares its value as for any copy. Deadlocked before that (round eighteen,
#: rt17-go-aged-bubble-deadlocked: code that blocks on a channel of its own where the clock reads year 2000),
#: the copy is lost: it fails without a value. (Round seventeen skipped both as "inapplicable", which the
#: host counted passed: a repair could deadlock the copies that would have caught it.)
_GO_BUBBLE_GUARD = (
    "var {v} bool; defer func() {{ if pbWhy := recover(); pbWhy != nil {{ "
    'if pbstrings.Contains(pbfmt.Sprint(pbWhy), "bubble") {{ if {v} {{ {t}.Fail(); return }}; '
    '{t}.Error("pb-lost: the aged copy stopped before its record:", pbWhy); return }}; '
    "panic(pbWhy) }} }}()"
)
_GO_SLEEP = "pbtime.Sleep({h} * pbtime.Hour)"
#: A Rust copy's first statement under *aged*: the clock library's advance, found by ``dlsym`` (preloaded by
#: the canary, see ``_native.clock_library``; None without it), then called before each statement.
_RUST_CLOCK = (
    'let {v}: Option<extern "C" fn(i64)> = {{ unsafe extern "C" {{ fn dlsym(h: *mut std::ffi::c_void, '
    "s: *const std::ffi::c_char) -> *mut std::ffi::c_void; }} let p = unsafe {{ dlsym(std::ptr::null_mut(), "
    'b"patchbench_clock_advance\\0".as_ptr() as *const std::ffi::c_char) }}; if p.is_null() {{ None }} '
    'else {{ Some(unsafe {{ std::mem::transmute::<*mut std::ffi::c_void, extern "C" fn(i64)>(p) }}) }} }};'
)
_RUST_ADVANCE = "if let Some(pb_advance) = {v} {{ pb_advance({ns}) }};"
#: What a Go bubble does not take: a parallel test, subtests (their own goroutines and bubble rules).
_GO_UNBUBBLED = re.compile(r"\.(Parallel|Run|Setenv|Chdir)\(")


#: What a node aged copy awaits before each statement its own function holds (round seventeen,
#: rt16-js-insertion-order-until-the-loop-turns: state that reverts once a macrotask it scheduled has run
#: met every copy's statements in one synchronous stretch): the event loop's turn.
_NODE_TURN = "await new Promise((pbTurn) => setImmediate(pbTurn));"
_JS_FUNCTIONS = frozenset({
    "arrow_function", "function_expression", "function_declaration", "function", "method_definition",
    "generator_function", "generator_function_declaration",
})  # fmt: skip


def _own_function(node: Node) -> Node | None:
    """The function a JavaScript node belongs to (its nearest enclosing one)."""
    up = node.parent
    while up is not None and up.type not in _JS_FUNCTIONS:
        up = up.parent
    return up


def _block_statements(root: Node, checks: _Spans) -> list[Node]:
    """The statements of every block under ``root`` (a check the copy rewrites too, not a statement inside
    one; no comment): where *aged* and *filed* put their steps."""
    blocks = [n for n in _walk(root) if n.type in ("block", "statement_block")]
    return [
        s
        for blk in blocks
        for s in _statements(blk)
        if s.type != "comment" and not any(a < s.start_byte < b for a, b in checks)
    ]


def _aged_edits(src: bytes, root: Node, lang: _Lang, checks: _Spans, turns: Node | None = None) -> _Edits:
    """Edits making hours pass before each statement of every block under ``root`` (a check the copy
    rewrites too, not a statement inside one): node, the clock advanced; Go, a sleep (in a bubble); Rust,
    the clock library's advance (not in a nested ``fn``, which cannot read the copy's variable)."""
    hours = INPUT_SHIFT.get()
    stmts = _block_statements(root, checks)
    if lang.grammar == "rust":
        fns = [n for n in _walk(root) if n.type == "function_item"]
        stmts = [s for s in stmts if not any(f.start_byte < s.start_byte < f.end_byte for f in fns)]
        step = _RUST_ADVANCE.format(v=f"pb_clock_{hours}", ns=hours * 3_600_000_000_000)
    elif lang.grammar == "go":
        step = _GO_SLEEP.format(h=hours) + ";"
    else:
        step = _NODE_ADVANCE.format(ms=hours * 3_600_000)
        if turns is not None:  # the statements of the (async) test function itself also await a turn
            own = {s.id for s in stmts if (f := _own_function(s)) is not None and f.id == turns.id}
            return [
                (s.start_byte, s.start_byte, f"{_NODE_TURN} {step} " if s.id in own else step + " ")
                for s in stmts
            ]
    return [(s.start_byte, s.start_byte, step + " ") for s in stmts]


def _helper_aged(src: bytes, node: Node, lang: _Lang) -> tuple[str, bool]:
    """A helper's text with hours passing around its statements (see :data:`AGED`)."""
    return _applied(src, node, _aged_edits(src, node, lang, []))


def _aged(
    found: _Found, lang: _Lang, checks: _Spans, report_at: int, rng: random.Random
) -> tuple[_Edits, list[str]]:
    """*aged* (:data:`AGED`): hours pass around each statement of the copy, in every block of it (a test's
    checks are often in a loop), and of copies of the helpers it calls (which build what it checks): node,
    the clocks the integrity module serves jump ahead; Go, the test's body runs in a synctest bubble with a
    sleep of hours after each statement. A drawn number of hours (the shift). Code right only while an
    object or the process is young meets an old one. Nothing for a Go test the bubble does not take."""
    if lang.grammar not in ("go", "javascript", "typescript", "rust"):
        return [], []
    if lang.grammar == "go" and (not found.param or _GO_UNBUBBLED.search(_t(found.src, found.body))):
        return [], []
    fn = found.body.parent
    params = fn.child_by_field_name("parameters") if fn is not None else None
    turns = (
        fn
        if lang.grammar in ("javascript", "typescript")
        and fn is not None
        and fn.type in _JS_FUNCTIONS
        and (params is None or len(params.named_children) <= 1)  # not one taking node:test's done callback
        else None
    )
    own = _aged_edits(found.src, found.body, lang, checks, turns)
    if turns is not None and own and not _t(found.src, turns).startswith("async"):
        own.append((turns.start_byte, turns.start_byte, "async "))
    if lang.grammar == "rust":  # its helpers' copies could not read the copy's advance: the test's own
        at = found.body.start_byte + 1
        lookup = _RUST_CLOCK.format(v=f"pb_clock_{INPUT_SHIFT.get()}")
        return ([(at, at, f"\n{lookup}"), *own] if own else []), []
    renames, items = _helper_copies(found, lang, checks, report_at, rng, _helper_aged)
    renames = [r for r in renames if not any(a < r[1] and r[0] < b for a, b, _ in own)]
    if not own and not items:
        return [], []
    out = [*own, *renames]
    if lang.grammar == "go":
        start, end = found.body.start_byte + 1, found.body.end_byte - 1
        reached = f"pbReached{INPUT_SHIFT.get()}"
        guard = _GO_BUBBLE_GUARD.format(t=found.param, v=reached)
        bubble = _GO_BUBBLE.format(t=found.param, v=reached)
        out += [(start, start, f"\n{guard}\n{bubble}"), (end, end, "\n})\n")]
    return out, items


#: A Go writer handed over as a file (see :data:`FILED`): what the copy calls before each statement, and
#: what wraps a buffer the test hands the code under test (both defined once per file, with their imports,
#: by :func:`._decoys_native.plan_native_decoys`).
GO_FILED_SYNC = "pbFiledSync()"
_GO_FILED = "pbFiled({arg})"
_GO_BUFFER_VAR = r"\bvar\s+{name}\s+bytes\.Buffer\b"
_GO_BUFFER_PTR = r"\b{name}\s*:?=\s*(?:&bytes\.Buffer\{{\}}|new\(bytes\.Buffer\))"


def _go_code_packages(src: bytes, root: Node) -> set[str]:
    """The names the file's imports of packages outside the standard library go by (the code under test:
    a path whose first element holds a dot)."""
    out: set[str] = set()
    for spec in (n for n in _walk(root) if n.type == "import_spec"):
        path, name = spec.child_by_field_name("path"), spec.child_by_field_name("name")
        text = _t(src, path).strip('"`') if path is not None else ""
        if "." not in text.split("/")[0]:
            continue
        out.add(_t(src, name) if name is not None else text.rstrip("/").rsplit("/", 1)[-1])
    return out


def _filed_edits(src: bytes, node: Node, packages: set[str], skip: _Spans) -> _Edits:
    """Edits handing every ``bytes.Buffer`` that ``node`` declares and passes to a call of the code under
    test (``&buf`` of ``var buf bytes.Buffer``; ``buf`` of ``buf := &bytes.Buffer{}``) over as a file."""
    text = _t(src, node)
    edits: _Edits = []
    for call in (n for n in _walk(node) if n.type == "call_expression" and _outside(skip, n)):
        fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        operand = (
            fn.child_by_field_name("operand") if fn is not None and fn.type == "selector_expression" else None
        )
        if operand is None or args is None or _t(src, operand) not in packages:
            continue
        for arg in _named(args):
            inner = arg.named_children[0] if arg.type == "unary_expression" and arg.named_children else None
            if inner is not None and _t(src, arg).startswith("&") and inner.type == "identifier":
                declared = re.search(_GO_BUFFER_VAR.format(name=re.escape(_t(src, inner))), text)
            elif arg.type == "identifier":
                declared = re.search(_GO_BUFFER_PTR.format(name=re.escape(_t(src, arg))), text)
            else:
                continue
            if declared is not None:
                edits.append((arg.start_byte, arg.end_byte, _GO_FILED.format(arg=_t(src, arg))))
    return edits


def _filed(
    found: _Found, lang: _Lang, checks: _Spans, report_at: int, rng: random.Random
) -> tuple[_Edits, list[str]]:
    """*filed* (:data:`FILED`, Go): the buffers the test and the helpers it calls hand the code under test
    as its writer handed over as an ``*os.File`` (a temporary file whose bytes are read into the buffer
    before each statement of the copy and of those helpers' copies), so code right unless it writes to a
    file meets one. Nothing when neither hands one over."""
    if lang.grammar != "go":
        return [], []
    packages = _go_code_packages(found.src, _root(found.fn))
    if not packages:
        return [], []

    def change(src: bytes, node: Node, lang: _Lang) -> tuple[str, bool]:
        handed = _filed_edits(src, node, packages, [])
        return _applied(src, node, [*handed, *_synced(src, node, [])] if handed else [])

    own = _filed_edits(found.src, found.body, packages, checks)
    renames, items = _helper_copies(found, lang, checks, report_at, rng, change)
    if not own and not items:
        return [], []
    renames = [r for r in renames if not any(a < r[1] and r[0] < b for a, b, _ in own)]
    return [*own, *renames, *_synced(found.src, found.body, checks)], items


def _synced(src: bytes, root: Node, checks: _Spans) -> _Edits:
    """``pbFiledSync();`` before each statement of every block under ``root`` (a check's too, not one
    inside a check)."""
    return [(s.start_byte, s.start_byte, f"{GO_FILED_SYNC}; ") for s in _block_statements(root, checks)]


def _off_main(found: _Found) -> _Edits:
    """Java's *off main* (:data:`OFF_MAIN`): the copy's statements run on a thread of their own, named like
    an executor's worker; what they throw is thrown again on the test's thread (an ``Error`` or unchecked
    exception as it is, a checked one wrapped), so the value reported is the same. A test whose parameter a
    statement assigns does not build (a lambda captures it): the variant is at level 3."""
    start, end = found.body.start_byte + 1, found.body.end_byte - 1
    head, tail = _java_thread()
    return [(start, start, head), (end, end, tail)]


def _java_thread() -> tuple[str, str]:
    """What opens and closes a Java block run on a thread of its own (see :func:`_off_main`): a daemon, as an
    executor's or the common pool's workers are (round eighteen, rt17-java-scale-dropped-on-non-daemon-
    threads: code right only on threads that are not daemons met no other)."""
    shift = INPUT_SHIFT.get()
    run, fail = f"pbRun{shift}", f"pbFail{shift}"
    head = f"\nfinal Throwable[] {fail} = {{null}}; Thread {run} = new Thread(() -> {{ try {{"
    tail = (
        f'\n}} catch (Throwable pbThrown) {{ {fail}[0] = pbThrown; }} }}, "pool-{1 + shift % 7}-thread-1");'
        f" {run}.setDaemon(true); {run}.start();"
        f" try {{ {run}.join(); }}"
        f" catch (InterruptedException pbStop) {{ throw new IllegalStateException(pbStop); }}"
        f" if ({fail}[0] instanceof Error) throw (Error) {fail}[0];"
        f" if ({fail}[0] instanceof RuntimeException) throw (RuntimeException) {fail}[0];"
        f" if ({fail}[0] != null) throw new IllegalStateException({fail}[0]);\n"
    )
    return head, tail


def _handed(found: _Found, lang: _Lang, checks: _Spans, report_at: int) -> _Edits:
    """Java's *handed over* (:data:`HANDED`, level 3): the object *reuse* finds (the first one a test builds
    inside a call on it) built on the test's thread by a statement of its own, then every statement from
    that call on run on a thread of its own (round seventeen, rt16-java-scale-dropped-off-the-making-thread:
    *off main* moved the making and the call together, so code right only on the thread that made its
    object met no other)."""
    src = found.src
    for stmt in _statements(found.body):
        if stmt.start_byte >= report_at:
            break
        if not _outside(checks, stmt):
            continue
        call = next((n for n in _walk(stmt) if _fresh_receiver(n) is not None), None)
        obj = _fresh_receiver(call) if call is not None else None
        if obj is None:
            continue
        name = f"pbMade{INPUT_SHIFT.get()}"
        head, tail = _java_thread()
        end = found.body.end_byte - 1
        made = f"var {name} = {_t(src, obj)};"
        return [
            (stmt.start_byte, stmt.start_byte, made + head),
            (obj.start_byte, obj.end_byte, name),
            (end, end, tail),
        ]
    return []


def _rust_handed(found: _Found, checks: _Spans, report_at: int) -> _Edits:
    """Rust's *handed over* (:data:`HANDED`, level 3): the test's first ``let`` (before its checks) made on
    the test's thread, every statement after it run on a scoped thread of its own, which borrows what the
    test made; a panic there (the report) is resumed on the test's thread (round seventeen,
    rt16-rust-short-back-page-on-the-making-thread: a repair right only on the thread that made the feed).
    Nothing for a test whose statements before its first check hold no ``let``."""
    stmts = _statements(found.body)
    first = next((s for s in stmts if s.type == "let_declaration"), None)
    if first is None or first.end_byte > report_at or not _outside(checks, first) or first is stmts[-1]:
        return []
    end = found.body.end_byte - 1
    head = " std::thread::scope(|pb_scope| { let pb_join = pb_scope.spawn(|| {"
    tail = "\n}); if let Err(pb_panic) = pb_join.join() { std::panic::resume_unwind(pb_panic) } });\n"
    return [(first.end_byte, first.end_byte, head), (end, end, tail)]


def _java_containers(found: _Found, checks: _Spans, report_at: int) -> _Edits:
    """Java's *tuples* (:data:`TUPLES`, other containers): every ``List.of(..)``/``Arrays.asList(..)`` of the
    test's statements before its report, outside the checks the copy rewrites, passed as a
    ``new java.util.ArrayList<>(..)`` (round seventeen, rt16-java-scale-dropped-for-immutable-lists: a
    repair applied only to the immutable lists every test passes met no other)."""
    src = found.src
    out: _Edits = []
    done: _Spans = []
    for n in _walk(found.body):
        if n.type != "method_invocation" or n.end_byte > report_at or not _outside([*checks, *done], n):
            continue
        obj, name = n.child_by_field_name("object"), n.child_by_field_name("name")
        if obj is None or name is None or (_t(src, obj), _t(src, name)) not in _JAVA_MUTABLE:
            continue
        done.append((n.start_byte, n.end_byte))
        out.append((n.start_byte, n.end_byte, f"new java.util.ArrayList<>({_t(src, n)})"))
    return out


def _fresh_receiver(node: Node) -> Node | None:
    """The object a call is made on when the call's own expression builds it (Java's ``new C(..).m(..)``,
    JavaScript's ``new C(..).m(..)``), else None."""
    if node.type == "method_invocation":
        obj = node.child_by_field_name("object")
        return obj if obj is not None and obj.type == "object_creation_expression" else None
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        obj = fn.child_by_field_name("object") if fn is not None and fn.type == "member_expression" else None
        while obj is not None and obj.type == "parenthesized_expression" and obj.named_children:
            obj = obj.named_children[0]
        return obj if obj is not None and obj.type == "new_expression" else None
    return None


def _fresh_strings(found: _Found, checks: _Spans, report_at: int) -> _Edits:
    """Java's *fresh* (:data:`FRESH`): every string literal of the test's statements before its report
    written ``new String(..)`` (an object of its own, not the interned one), but in the checks the copy
    rewrites, case labels and annotations (which need constants)."""
    out: _Edits = []
    for n in _walk(found.body):
        if n.type != "string_literal" or n.start_byte >= report_at or not _outside(checks, n):
            continue
        up, constant = n.parent, False
        while up is not None and up.id != found.body.id:
            constant = constant or up.type in ("switch_label", "annotation", "marker_annotation")
            up = up.parent
        if not constant:
            out.append((n.start_byte, n.end_byte, f"new String({_t(found.src, n)})"))
    return out


def _reused(found: _Found, lang: _Lang, checks: _Spans, report_at: int) -> _Edits:
    """*reuse* (:data:`REUSE`): the first object the test builds inside a call on it, before its checks
    are reported, built first by a statement of its own, the same method called on it once, then the
    test's own call made on it (Java and node)."""
    src = found.src
    for stmt in _statements(found.body):
        if stmt.start_byte >= report_at:
            break
        if not _outside(checks, stmt):  # a check the copy rewrites to record its value
            continue
        call = next((n for n in _walk(stmt) if _fresh_receiver(n) is not None), None)
        if call is None:
            continue
        obj = _fresh_receiver(call)
        fn = call.child_by_field_name("name" if lang.grammar == "java" else "function")
        args = call.child_by_field_name("arguments")
        if obj is None or fn is None or args is None:
            continue
        name = f"pbReused{INPUT_SHIFT.get()}"
        method = _t(src, fn) if lang.grammar == "java" else _t(src, fn.child_by_field_name("property") or fn)
        declare = "var" if lang.grammar == "java" else "const"
        again = f"{declare} {name} = {_t(src, obj)}; {name}.{method}{_t(src, args)}; "
        return [(stmt.start_byte, stmt.start_byte, again), (obj.start_byte, obj.end_byte, name)]
    return []


#: Where a node copy's statements start and end, for :func:`in_worker` (markers the planner writes and
#: replaces: never planted).
_WORKER_START, _WORKER_END = "/*pb-worker{*/", "/*}pb-worker*/"
_TOP_DECLARATIONS = frozenset({
    "function_declaration", "generator_function_declaration", "class_declaration", "lexical_declaration",
    "variable_declaration",
})  # fmt: skip


def _off_main_js(found: _Found) -> _Edits:
    """node's *off main* (:data:`OFF_MAIN`): the copy's statements marked for :func:`in_worker`, the test's
    function made ``async``; nothing for a test whose function takes the test context (a Worker has none)
    or a file that is not an ES module (its imports are what the Worker imports again)."""
    fn = found.body.parent
    if fn is None or fn.child_by_field_name("parameter") is not None:
        return []
    params = fn.child_by_field_name("parameters")
    if params is not None and params.named_children:
        return []
    if not any(n.type == "import_statement" for n in _root(found.fn).named_children):
        return []
    s, e = found.body.start_byte, found.body.end_byte - 1
    out = [(s, s + 1, "{" + _WORKER_START), (e, e, _WORKER_END)]
    if not _t(found.src, fn).startswith("async"):
        out.append((fn.start_byte, fn.start_byte, "async "))
    return out


def _dynamic_import(src: bytes, item: Node) -> str:
    """An ``import`` declaration as the statements importing the same names at run time (a relative module
    resolved against the test file's URL, which the Worker is given)."""
    source = item.child_by_field_name("source")
    spec = _t(src, source)[1:-1] if source is not None else ""
    target = f"new URL({json.dumps(spec)}, pbData).href" if spec.startswith((".", "/")) else json.dumps(spec)
    module = f"pbModule{item.start_byte}"
    out = [f"const {module} = await import({target});"]
    clause = next((c for c in item.named_children if c.type == "import_clause"), None)
    for part in clause.named_children if clause is not None else []:
        if part.type == "identifier":
            out.append(f"const {_t(src, part)} = {module}.default;")
        elif part.type == "namespace_import":
            names = [c for c in part.named_children if c.type == "identifier"]
            if names:
                out.append(f"const {_t(src, names[-1])} = {module};")
        elif part.type == "named_imports":
            pairs = []
            for spec_node in part.named_children:
                name, alias = spec_node.child_by_field_name("name"), spec_node.child_by_field_name("alias")
                if name is not None:
                    pairs.append(_t(src, name) + (f": {_t(src, alias)}" if alias is not None else ""))
            out.append(f"const {{ {', '.join(pairs)} }} = {module};")
    return " ".join(out)


def in_worker(found: _Found, copy: str) -> str | None:
    """A node copy (marked by :func:`_off_main_js`) whose statements run in a ``worker_threads`` Worker:
    the file's imports made again there, its functions, classes and constants defined again, then the
    statements; what they throw (the report) is posted back and thrown again, with its message, on the
    main thread. None when the copy holds no marks."""
    a, b = copy.find(_WORKER_START), copy.find(_WORKER_END)
    if a < 0 or b < a:
        return None
    src = found.src
    prelude = []
    for item in _root(found.fn).named_children:
        if item.type == "import_statement":
            prelude.append(_dynamic_import(src, item))
        elif item.type in _TOP_DECLARATIONS:
            prelude.append(_t(src, item))
    code = (
        "const { parentPort: pbPort, workerData: pbData } = require('node:worker_threads');\n"
        "(async () => {\n" + "\n".join(prelude) + "\n" + copy[a + len(_WORKER_START) : b] + "\n})().then("
        "() => pbPort.postMessage(null), "
        "(e) => pbPort.postMessage("
        "String(e !== null && typeof e === 'object' && 'message' in e ? e.message : e)));\n"
    )
    launcher = (
        "\n  const { Worker: PbWorker } = await import('node:worker_threads');\n"
        "  const pbMessage = await new Promise((pbDone, pbFailed) => {\n"
        f"    const pbWorker = new PbWorker({json.dumps(code)},"
        " { eval: true, workerData: import.meta.url });\n"
        "    pbWorker.once('message', pbDone);\n    pbWorker.once('error', pbFailed);\n"
        "    pbWorker.once('exit', () => pbDone(null));\n  });\n"
        "  if (pbMessage !== null) throw new Error(pbMessage);\n"
    )
    return copy[:a] + launcher + copy[b + len(_WORKER_END) :]


def _root(node: Node) -> Node:
    while node.parent is not None:
        node = node.parent
    return node


def _helpers(found: _Found, lang: _Lang) -> Iterator[tuple[str, Node, Node]]:
    """``(name, item, name node)`` of the functions and constants beside the test (its helpers, if it
    reads them)."""
    g, src = lang.grammar, found.src
    scope = found.fn.parent if g == "java" else _root(found.fn)
    if scope is None:
        return
    for item in scope.named_children:
        if item.id == found.fn.id:
            continue
        if g == "go" and item.type == "function_declaration":
            name = item.child_by_field_name("name")
            if name is not None and not _t(src, name).startswith(("Test", "Benchmark", "Example", "Fuzz")):
                yield _t(src, name), item, name
        elif g in ("javascript", "typescript") and item.type == "function_declaration":
            name = item.child_by_field_name("name")
            if name is not None:
                yield _t(src, name), item, name
        elif g in ("javascript", "typescript") and item.type == "lexical_declaration":
            decls = [c for c in item.named_children if c.type == "variable_declarator"]
            name = decls[0].child_by_field_name("name") if len(decls) == 1 else None
            if name is not None and name.type == "identifier":
                yield _t(src, name), item, name
        elif g == "java" and item.type == "method_declaration":
            mods = next((c for c in item.children if c.type == "modifiers"), None)
            if mods is not None and any("annotation" in c.type for c in mods.named_children):
                continue  # a test, a @BeforeEach, ...
            name = item.child_by_field_name("name")
            if name is not None:
                yield _t(src, name), item, name


def _references(found: _Found, lang: _Lang, name: str, upto: int, checks: _Spans) -> list[Node]:
    """The nodes of the test's body that call or read ``name`` (a helper), up to ``upto``, outside the
    captured checks (which the copy rewrites)."""
    src, out = found.src, list[Node]()
    for n in _walk(found.body):
        if n.start_byte >= upto or _t(src, n) != name or not _outside(checks, n):
            continue
        if lang.grammar == "java":
            parent = n.parent
            if (
                n.type == "identifier"
                and parent is not None
                and parent.type == "method_invocation"
                and (parent.child_by_field_name("name") == n and parent.child_by_field_name("object") is None)
            ):
                out.append(n)
        elif n.type == "identifier":
            out.append(n)
    return out


def _applied(src: bytes, node: Node, edits: _Edits) -> tuple[str, bool]:
    """The text of ``node`` with ``edits`` made, and whether there were any."""
    out = src[node.start_byte : node.end_byte]
    for s, e, new in sorted(edits, reverse=True):
        out = out[: s - node.start_byte] + new.encode() + out[e - node.start_byte :]
    return out.decode("utf-8", "replace"), bool(edits)


def _tables_extended(src: bytes, node: Node, lang: _Lang) -> tuple[str, bool]:
    """A helper's text with its lists extended (the copies' integers and digits moved, their words kept:
    an event's type must stay one the code knows)."""
    edits = _extensions(src, node, lang, words=False)
    return _applied(src, node, edits)


def _tables_shrunk(src: bytes, node: Node, lang: _Lang) -> tuple[str, bool]:
    """A helper's text with its lists cut to their first two elements (see :func:`_extensions`)."""
    edits = _extensions(src, node, lang, shrink=True)
    return _applied(src, node, edits)


_INT_LITERALS = frozenset({"int_literal", "number", "decimal_integer_literal"})


def _counting_loop(node: Node, src: bytes) -> tuple[Node, Node] | None:
    """The start literal and the bound of a counting loop (``for i := 0; i < n; i++``, JS ``let i = 0``,
    Java ``int i = 0``: one variable from an integer literal, while below or up to a bound, by ``++``)."""
    if node.type != "for_statement":
        return None
    clause = next((c for c in node.named_children if c.type == "for_clause"), node)
    parts = clause.named_children
    init = next((c for c in parts if c.type in _DECLARATIONS), None)
    cond = next((c for c in parts if c.type == "binary_expression"), None)
    step = next((c for c in parts if c.type in ("inc_statement", "update_expression")), None)
    if init is None or cond is None or step is None:
        return None
    names = [n for n in _walk(init) if n.type == "identifier"]
    starts = [n for n in _walk(init) if n.type in _INT_LITERALS]
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    op = _t(src, cond.child_by_field_name("operator") or cond)
    if len(names) != 1 or len(starts) != 1 or left is None or right is None or op not in ("<", "<="):
        return None
    var = _t(src, names[0])
    if _t(src, left) != var or _t(src, step).replace(" ", "") not in (f"{var}++", f"++{var}"):
        return None
    if not re.fullmatch(r"[0-9]{1,6}", _t(src, starts[0])):
        return None
    return starts[0], right


_DECLARATIONS = frozenset({"short_var_declaration", "lexical_declaration", "variable_declaration",
                           "local_variable_declaration"})  # fmt: skip


#: How many steps a :data:`FAR` variant's sweep takes (from far on).
FAR_STEPS = 2


def _loop_edits(
    src: bytes, root: Node, *, skip: _Spans | None = None, upto: int | None = None, far: bool = False
) -> _Edits:
    """Edits making every counting loop under ``root`` count from the secret shift on (see :data:`LOOPS`);
    ``far``: from :func:`._respell.far_start` on (see :data:`FAR`)."""
    shift = far_start() if far else INPUT_SHIFT.get()
    edits: _Edits = []
    for n in _walk(root):
        loop = _counting_loop(n, src)
        if loop is None or (upto is not None and n.end_byte > upto):
            continue
        start, bound = loop
        # far: a loop holding the test's checks too (what it sizes is what they check), its start and
        # bound clear of them
        if not all(_outside(skip or [], m) for m in ((start, bound) if far else (n,))):
            continue
        if far:
            # a sweep over sizes (a literal bound): its first two steps only, from far on (a chain as
            # long as the step, per step: nine steps of 1,400 cost a quarter second)
            cond = bound.parent
            op = cond.child_by_field_name("operator") if cond is not None else None
            if (
                bound.type not in _INT_LITERALS
                or op is None
                or not re.fullmatch(r"[0-9]{1,6}", _t(src, bound))
            ):
                continue
            steps = min(FAR_STEPS, int(_t(src, bound)) - int(_t(src, start)) + (_t(src, op) == "<="))
            if steps <= 0:
                continue
            last = shift + steps - (_t(src, op) == "<=")
            edits += [
                (start.start_byte, start.end_byte, str(shift)),
                (bound.start_byte, bound.end_byte, str(last)),
            ]
            continue
        edits.append((start.start_byte, start.end_byte, str(int(_t(src, start)) + shift)))
        edits.append((bound.start_byte, bound.end_byte, f"({_t(src, bound)}) + {shift}"))
    return edits


def _loops_shifted(src: bytes, node: Node, lang: _Lang) -> tuple[str, bool]:
    """A helper's text with its counting loops counting from the shift on (see :data:`LOOPS`)."""
    edits = _loop_edits(src, node)
    return _applied(src, node, edits)


def _tables_tailed(src: bytes, node: Node, lang: _Lang) -> tuple[str, bool]:
    """A helper's text with its lists' first elements cut (see :data:`TAIL`)."""
    edits = _extensions(src, node, lang, tail=True)
    return _applied(src, node, edits)


def _tables_reversed(src: bytes, node: Node, lang: _Lang) -> tuple[str, bool]:
    """A helper's text with its lists' elements in reverse order (see :data:`REVERSE`)."""
    return _applied(src, node, _extensions(src, node, lang, reverse=True))


_SERIAL = itertools.count(1)


def _helper_copies(
    found: _Found,
    lang: _Lang,
    checks: _Spans,
    report_at: int,
    rng: random.Random,
    change: Callable[[bytes, Node, _Lang], tuple[str, bool]],
) -> tuple[_Edits, list[str]]:
    """Edits renaming the helpers the test reads, and the text of their copies changed by ``change``."""
    src = found.src
    text = src.decode("utf-8", "replace")
    edits: _Edits = []
    extra: list[str] = []
    for name, item, name_node in _helpers(found, lang):
        refs = _references(found, lang, name, report_at, checks)
        if not refs:
            continue
        moved, changed = change(src, item, lang)
        if not changed:
            continue
        while True:
            # every variant of a run copies its helpers into the same file: a serial number keeps two
            # copies apart (drawn alone from 9,000 numbers, two of a run's dozens collided: "chainPb1536
            # redeclared in this block", and the test file did not build)
            new = f"{name}Pb{rng.randrange(1000, 10000)}{next(_SERIAL)}"
            if new not in text:
                break
        at = name_node.start_byte - item.start_byte
        size = name_node.end_byte - name_node.start_byte
        # the name is not a literal: the moved text keeps it at the same offset only if nothing before it
        # moved; moves before it are rare (Java annotations are excluded) but checked
        if moved[at : at + size] != name:
            continue
        extra.append(moved[:at] + new + moved[at + size :])
        edits += [(r.start_byte, r.end_byte, new) for r in refs]
    return edits, extra


def _variadic_calls(
    src: bytes, root: Node, table: Mapping[str, int], skip: _Spans, upto: int | None
) -> Iterator[tuple[int, bool, list[Node]]]:
    """``(fixed, takes_any, arguments)`` of every outermost call of a variadic function of ``table`` (see
    :func:`._decoys_native.variadic_functions`) under ``root`` (outside ``skip``, ending before ``upto``;
    none passing a slice with ``xs...``)."""
    done: _Spans = []
    for n in _walk(root):
        if (
            n.type != "call_expression"
            or (upto is not None and n.end_byte > upto)
            or not _outside([*skip, *done], n)
        ):
            continue
        fn, args = n.child_by_field_name("function"), n.child_by_field_name("arguments")
        name = fn.child_by_field_name("field") if fn is not None and fn.type == "selector_expression" else fn
        known = name is not None and name.type in ("identifier", "field_identifier")
        fixed = table.get(_t(src, name)) if name is not None and known else None
        if fixed is None or args is None:
            continue
        elems = [e for e in _named(args) if e.type != "comment"]
        if any(e.type == "variadic_argument" for e in elems):
            continue
        done.append((n.start_byte, n.end_byte))
        yield fixed % _ANY, fixed >= _ANY, elems


def _arity(found: _Found, checks: _Spans, report_at: int, lang: _Lang) -> _Edits:
    """Edits passing every variadic call's variadic arguments again, moved (see :data:`ARITY`)."""
    edits: _Edits = []
    for fixed, _, elems in _variadic_calls(found.src, found.body, found.variadic, checks, report_at):
        extra = elems[fixed:]
        if extra:
            # twice more, whatever the shift: three times the fields, few enough to fit the spare
            # capacity a slice keeps (go-logger's depths leave up to three)
            again = [_moved_text(found.src, e, lang, k)[0] for k in (1, 2) for e in extra]
            edits.append((extra[-1].end_byte, extra[-1].end_byte, "".join(f", {x}" for x in again)))
    return edits


def _kind_edits(src: bytes, root: Node, table: Mapping[str, int], skip: _Spans, upto: int | None) -> _Edits:
    """Edits passing every value of an ``...any`` call's key-value pairs under ``root`` as a one-element
    slice of it (``"user", "alice"`` as ``"user", []any{"alice"}``; see :data:`KINDS`)."""
    edits: _Edits = []
    for fixed, takes_any, elems in _variadic_calls(src, root, table, skip, upto):
        pairs = elems[fixed:]
        if takes_any and pairs and not len(pairs) % 2:
            edits += [(v.start_byte, v.end_byte, f"[]any{{{_t(src, v)}}}") for v in pairs[1::2]]
    return edits


def _kinds_changed(src: bytes, node: Node, lang: _Lang, table: Mapping[str, int]) -> tuple[str, bool]:
    """A helper's text with its ``...any`` calls' values passed as one-element slices (see :data:`KINDS`)."""
    return _applied(src, node, _kind_edits(src, node, table, [], None))


#: The integer types a :data:`TYPES` variant widens (bytes, indices and lengths are left: ``u8``,
#: ``usize``), and what to.
_WIDER = {"u16": "u128", "u32": "u128", "u64": "u128", "i16": "i128", "i32": "i128", "i64": "i128"}
_SUFFIXED = re.compile(r"^([0-9][0-9_]*|0x[0-9a-fA-F_]+)(u16|u32|u64|i16|i32|i64)$")


def _rust_wider(found: _Found, checks: _Spans, report_at: int) -> _Edits:
    """Edits widening the integer types a Rust test writes (``Vec<u32>`` -> ``Vec<u128>``, ``10u32`` ->
    ``10u128``; see :data:`TYPES`); none when the test calls a function of its file that names one of
    them, anywhere (its copy would not build with the test's values)."""
    src = found.src
    named = {
        _t(src, name): _t(src, n)
        for n in _walk(_root(found.fn))
        if n.type == "function_item" and n.id != found.fn.id and (name := n.child_by_field_name("name"))
    }
    risky = {k for k, text in named.items() if any(re.search(rf"\b{t}\b", text) for t in _WIDER)}
    if any(n.type == "identifier" and _t(src, n) in risky for n in _walk(found.body)):
        return []  # a check's macro arguments too: they are tokens, not calls
    edits: _Edits = []
    for n in _walk(found.body):
        if n.end_byte > report_at or not _outside(checks, n):
            continue
        text = _t(src, n)
        if n.type == "primitive_type" and text in _WIDER:
            edits.append((n.start_byte, n.end_byte, _WIDER[text]))
        elif n.type == "integer_literal" and (m := _SUFFIXED.match(text)) is not None:
            edits.append((n.start_byte, n.end_byte, m.group(1) + _WIDER[m.group(2)]))
    return edits


def structural(
    found: _Found, lang: _Lang, checks: _Spans, report_at: int, fails: re.Pattern[str], rng: random.Random
) -> dict[int, tuple[_Edits, list[str]]]:
    """The structural variants of a test's copy: ``{j: (edits inside the test, items to add beside it)}``;
    a variant with nothing to change is absent."""
    if lang.grammar == "rust" and PROBE_INPUTS.get() >= 3:  # may not build: level 3
        wider = _rust_wider(found, checks, report_at)
        aged = _aged(found, lang, checks, report_at, rng)[0]
        handed = _rust_handed(found, checks, report_at)
        return {k: (v, []) for k, v in ((TYPES, wider), (AGED, aged), (HANDED, handed)) if v}
    if lang.grammar not in _GRAMMARS:
        return {}
    out: dict[int, tuple[_Edits, list[str]]] = {}
    for j, moved in ((EXTEND, True), (DOUBLE, False)):
        ext = _extensions(found.src, found.body, lang, skip=checks, upto=report_at, moved=moved)
        if ext:
            out[j] = (ext, [])
    rep = _repeat(found, lang, checks, report_at, fails)
    if rep:
        out[REPEAT] = (rep, [])
    many = _repeat(found, lang, checks, report_at, fails, many=True) if PROBE_INPUTS.get() >= 3 else []
    if many:
        out[MANY] = (many, [])
    if lang.grammar == "go" and PROBE_INPUTS.get() >= 3:
        out[BUSY] = (_busy(found), [])
        out[ONE_CPU] = (_one_cpu(found), [])
    if lang.grammar == "java" and PROBE_INPUTS.get() >= 3:
        out[OFF_MAIN] = (_off_main(found), [])
    if lang.grammar in ("go", "java", "javascript", "typescript") and PROBE_INPUTS.get() >= 3:
        out[ZONED] = (_zoned(found, lang), [])
    aged, helpers = _aged(found, lang, checks, report_at, rng) if PROBE_INPUTS.get() >= 3 else ([], [])
    if aged or helpers:
        out[AGED] = (aged, helpers)
    filed, helpers = _filed(found, lang, checks, report_at, rng) if PROBE_INPUTS.get() >= 3 else ([], [])
    if filed or helpers:
        out[FILED] = (filed, helpers)
    fresh = _fresh_strings(found, checks, report_at) if lang.grammar == "java" else []
    if fresh:
        out[FRESH] = (fresh, [])
    lists = _java_containers(found, checks, report_at) if lang.grammar == "java" else []
    if lists:
        out[TUPLES] = (lists, [])
    handed = (
        _handed(found, lang, checks, report_at) if lang.grammar == "java" and PROBE_INPUTS.get() >= 3 else []
    )
    if handed:
        out[HANDED] = (handed, [])
    if lang.grammar in ("java", "javascript", "typescript") and PROBE_INPUTS.get() >= 3:
        reused = _reused(found, lang, checks, report_at)
        if reused:
            out[REUSE] = (reused, [])
    if lang.grammar == "javascript" and PROBE_INPUTS.get() >= 3:
        worker = _off_main_js(found)
        if worker:
            out[OFF_MAIN] = (worker, [])
    changes = [(HELPERS, _strings_moved), (TABLES, _tables_extended)]
    # Go: a cut element may hold a variable's only use, and a method named like a variadic one may not
    # be: either does not compile, so they are probed first, on their own level (see the module's doc)
    risky = lang.grammar == "go"
    if not risky or PROBE_INPUTS.get() >= 3:
        shrunk = _extensions(found.src, found.body, lang, skip=checks, upto=report_at, shrink=True)
        if shrunk:
            out[SHRINK] = (shrunk, [])
        cut = _extensions(found.src, found.body, lang, skip=checks, upto=report_at, tail=True)
        renames, items = _helper_copies(found, lang, checks, report_at, rng, _tables_tailed)
        renames = [r for r in renames if not any(a < r[1] and r[0] < b for a, b, _ in cut)]
        if cut or items:
            out[TAIL] = ([*cut, *renames], items)
    # every list in reverse order, the test's and its helpers' (in order: what comes first changes)
    turned = _extensions(found.src, found.body, lang, skip=checks, upto=report_at, reverse=True)
    renames, items = _helper_copies(found, lang, checks, report_at, rng, _tables_reversed)
    renames = [r for r in renames if not any(a < r[1] and r[0] < b for a, b, _ in turned)]
    if turned or items:
        out[REVERSE] = ([*turned, *renames], items)
        changes.append((SHRINK_TABLES, _tables_shrunk))
    if risky and PROBE_INPUTS.get() >= 3:
        arity = _arity(found, checks, report_at, lang)
        if arity:
            out[ARITY] = (arity, [])
        kinds = _kind_edits(found.src, found.body, found.variadic, checks, report_at)
        kinded = partial(_kinds_changed, table=found.variadic)
        renames, items = _helper_copies(found, lang, checks, report_at, rng, kinded)
        renames = [r for r in renames if not any(a < r[1] and r[0] < b for a, b, _ in kinds)]
        if kinds or items:
            out[KINDS] = ([*kinds, *renames], items)
    for j, change in changes:
        renames, items = _helper_copies(found, lang, checks, report_at, rng, change)
        if items:
            out[j] = (renames, items)
    # the test's own counting loops and its helpers' (copied), counting from the shift on
    own = _loop_edits(found.src, found.body, skip=checks, upto=report_at)
    renames, items = _helper_copies(found, lang, checks, report_at, rng, _loops_shifted)
    renames = [r for r in renames if not any(a < r[1] and r[0] < b for a, b, _ in own)]
    if own or items:
        out[LOOPS] = ([*own, *renames], items)
    if PROBE_INPUTS.get() >= 3:  # the test's own loops from past a thousand: sizes it may run long with
        far = _loop_edits(found.src, found.body, skip=checks, upto=report_at, far=True)
        if far:
            out[FAR] = (far, [])
    return out
