"""Controls on a test's structure for pytest and Python TAP: the Python side of :mod:`._inputs_structure`.

An input control of :mod:`._decoys` is the test's statements up to its first check and that check's
computed side, recording the value. The structural variants change what those statements build instead of
their literals:

- **extend**: every list they write out gains moved copies of its elements (two or three, from the secret
  shift; the ``k``-th copy's integers ``k`` shifts up, its strings' last digits too, a word ``k`` letters
  longer);
- **repeat**: the first call made as a statement of its own is made again right after, its literals moved;
- **helpers**: the functions of the test's module that it calls (no decorator, not a test) are defined again
  at the top of the control with their strings moved; the local definition shadows the module's, so the
  control calls the copy and nothing else changes;
- **loops** (round eleven): every loop over ``range(..)`` or ``enumerate(..)`` in those statements, and in
  copies of the helpers, counts as many times from the secret shift on (``range(n)`` becomes
  ``range(13, n + 13)``, ``enumerate(xs)`` ``enumerate(xs, 13)``): values derived from a loop variable are
  no longer positions.

The AST is edited in place on copies the caller owns.
"""

from __future__ import annotations

import ast
import builtins
import copy
import re
from collections.abc import Callable, Mapping
from typing import Any, cast

from . import _respell
from ._probing import INPUT_SHIFT


def copies() -> int:
    """How many moved copies of its elements an extended list gains (from the secret shift)."""
    return 1 + INPUT_SHIFT.get() % 3


def moved_string(value: str, k: int, *, words: bool = True) -> str:
    """A string moved ``k`` times the secret shift: its last run of digits up, without wrapping (a copy's
    ``"id-1"`` is not an original's ``"id-3"``: it may gain a digit); without digits, ``k`` letters longer
    when ``words`` (so the copies of a key stay distinct); else as it was. Shared with the native
    structural variants (:mod:`._inputs_structure`)."""
    runs = list(re.finditer(r"[0-9]+", value))
    if runs:
        run = runs[-1]
        moved = str(int(run.group()) + INPUT_SHIFT.get() * k).zfill(len(run.group()))
        return value[: run.start()] + moved + value[run.end() :]
    return f"{value}{'x' * k}" if words and re.search("[A-Za-z]", value) else value


def _moved_value(value: Any, k: int, *, numbers: bool = True) -> Any:
    if type(value) is int and numbers:
        return value + INPUT_SHIFT.get() * k
    if type(value) is not str or len(value) > 200:
        return value
    return moved_string(value, k)


_TIMING = re.compile(r"sleep|timeout|wait", re.I)


def timing(root: ast.AST) -> set[int]:
    """Ids of the literals under ``root`` that say how long to wait (``asyncio.sleep(0)``,
    ``wait_for(.., timeout=1)``): moved, a test that yields to the loop waits seconds instead."""
    out: set[int] = set()
    for n in ast.walk(root):
        if isinstance(n, ast.Call):
            args = [*n.args, *(k.value for k in n.keywords)] if _TIMING.search(callee(n)) else []
            args += [k.value for k in n.keywords if k.arg and _TIMING.search(k.arg)]
            out.update(id(c) for a in args for c in ast.walk(a))
    return out


def loop_bounds(root: ast.AST) -> set[int]:
    """Ids of the literals under ``root`` that bound a loop (``range(..)``'s arguments, a ``while``'s
    test): scaled by thousands, the loop runs past the test's time. A list a ``for`` walks is data."""
    out: set[int] = set()
    for n in ast.walk(root):
        parts: list[ast.AST] = []
        if isinstance(n, ast.Call) and callee(n) == "range":
            parts = list(n.args)
        elif isinstance(n, ast.While):
            parts = [n.test]
        out.update(id(c) for p in parts for c in ast.walk(p) if isinstance(c, ast.Constant))
    return out


def callee(call: ast.Call) -> str:
    """The name a call calls (``f`` of ``f(..)`` and ``x.f(..)``), else ""."""
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def move_constants(node: ast.AST, k: int, *, numbers: bool = True) -> bool:
    """Move the literals under ``node`` in place (not dict keys, not the parts of an f-string, not how
    long to wait, never a boolean); whether any moved."""
    keep = timing(node)
    for n in ast.walk(node):
        if isinstance(n, ast.Dict):
            keep.update(id(c) for key in n.keys if key is not None for c in ast.walk(key))
        elif isinstance(n, ast.JoinedStr):
            keep.update(id(c) for c in ast.walk(n))
    changed = False
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and id(n) not in keep:
            new = _moved_value(n.value, k, numbers=numbers)
            if new != n.value:
                n.value = new
                changed = True
    return changed


def extend(roots: list[ast.AST], *, moved: bool = True) -> bool:
    """Append copies of every list's elements (the outermost lists read under ``roots``, and the
    arguments of a call that passes records one by one), moved unless not ``moved``."""
    return _resize(roots, lambda elts: [*elts, *_moved_copies(elts, moved)])


def shrink(roots: list[ast.AST]) -> bool:
    """Cut every list (as :func:`extend` finds them) to its first two elements, or its first one when it
    holds two; a list of one stays."""
    return _resize(roots, lambda elts: elts[: 1 if len(elts) == 2 else 2])


def tail(roots: list[ast.AST]) -> bool:
    """Cut the first element from every list of two or more the statements write out (round eleven: what a
    list or a history starts with never changed; see :func:`_resize`); whether any was."""
    return _resize(roots, lambda elts: elts[1:] if len(elts) >= 2 else elts)


def reverse(roots: list[ast.AST]) -> bool:
    """Put the elements of every list of two or more different ones the statements write out in reverse
    order (what a list starts with changes); whether any was."""

    def turned(elts: list[ast.expr]) -> list[ast.expr]:
        return elts[::-1] if len({ast.dump(e) for e in elts}) > 1 else elts

    return _resize(roots, turned)


#: How many characters a :data:`VOLUME` variant's lists of strings hold at least (round eleven: a repair
#: right only for a decoder's first 65,536 characters met no stream that long).
VOLUME_CHARS = 1 << 17


def volume(roots: list[ast.AST]) -> bool:
    """Write every list of strings (or bytes) the statements write out again and again, unmoved, until it
    holds :data:`VOLUME_CHARS` characters; whether any grew."""

    def grow(elts: list[ast.expr]) -> list[ast.expr]:
        texts = [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, (str, bytes))]
        size = sum(len(t) for t in texts)
        if len(texts) != len(elts) or not size:
            return elts
        return [copy.deepcopy(e) for _ in range(-(-VOLUME_CHARS // size)) for e in elts]

    return _resize(roots, grow)


_WRAPPER = (
    "(lambda _pb_f: (lambda *a, **k: _pb_f(*a, **k)) if __import__('inspect').isfunction(_pb_f)"
    " or __import__('inspect').ismethod(_pb_f) else _pb_f)"
)


def wrap_callables(roots: list[ast.AST]) -> bool:
    """Pass every function a call is given by name (a factory, a callback) as a plain lambda calling it
    (round twelve: a repair applied only when the factory was a coroutine function met no other kind of
    callable); a name holding anything else is passed as it is (checked when the copy runs). Whether
    any call was given a name."""
    changed = False
    for root in roots:
        for n in ast.walk(root):
            if not isinstance(n, ast.Call):
                continue
            for i, arg in enumerate(n.args):
                if isinstance(arg, ast.Name):
                    n.args[i] = ast.Call(ast.parse(_WRAPPER, mode="eval").body, [arg], [])
                    changed = True
            for kw in n.keywords:
                if kw.arg is not None and isinstance(kw.value, ast.Name):
                    kw.value = ast.Call(ast.parse(_WRAPPER, mode="eval").body, [kw.value], [])
                    changed = True
    return changed


def json_floats_retyped(roots: list[ast.AST]) -> bool:
    """Make every ``json.loads``/``json.load`` call under ``roots`` (without its own ``parse_float``) read
    its floats as instances of a subclass of float named ``float``; whether any was."""
    changed = False
    for root in roots:
        for n in ast.walk(root):
            if (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Name)
                and n.func.value.id == "json"
                and n.func.attr in ("loads", "load")
                and not any(k.arg in ("parse_float", None) for k in n.keywords)
            ):
                n.keywords.append(ast.keyword("parse_float", float_subclass()))
                changed = True
    return changed


def float_subclass() -> ast.expr:
    """``type('float', (float,), {})``: a subclass of float that reads and prints as one."""
    base = ast.Tuple([ast.Name("float", ast.Load())], ast.Load())
    return ast.Call(ast.Name("type", ast.Load()), [ast.Constant("float"), base, ast.Dict([], [])], [])


def interleave(roots: list[ast.AST]) -> bool:
    """Insert an empty string (or bytes) between the elements of every list (as :func:`extend` finds
    them) whose elements are all strings (or all bytes): code right only when no chunk, line or field is
    empty met none (round ten)."""
    return _resize(roots, _with_empties)


def _with_empties(elts: list[ast.expr]) -> list[ast.expr]:
    kinds = {type(e.value) for e in elts if isinstance(e, ast.Constant)}
    if (
        len(elts) < 2
        or len(kinds) != 1
        or kinds.isdisjoint({str, bytes})
        or not all(isinstance(e, ast.Constant) for e in elts)
    ):
        return elts
    empty: str | bytes = "" if str in kinds else b""
    out: list[ast.expr] = [elts[0]]
    for e in elts[1:]:
        out += [ast.Constant(empty), e]
    return out


def _resize(roots: list[ast.AST], change: Callable[[list[ast.expr]], list[ast.expr]]) -> bool:
    """Replace the elements of every outermost list under ``roots`` (and the arguments of a call that
    passes records one by one) by ``change(elements)``; whether any changed."""
    done: set[int] = set()
    changed = False
    for root in roots:
        for n in ast.walk(root):
            if id(n) in done:
                continue
            if isinstance(n, ast.List) and isinstance(n.ctx, ast.Load) and n.elts:
                new = change(n.elts)
                hit, n.elts = list(map(id, new)) != list(map(id, n.elts)), new
            elif isinstance(n, ast.Call) and _records(n.args) and not n.keywords:
                new = change(n.args)
                hit, n.args = list(map(id, new)) != list(map(id, n.args)), new
            else:
                continue
            done.update(id(c) for c in ast.walk(n))
            changed |= hit
    return changed


def _records(args: list[ast.expr]) -> bool:
    """Arguments that read as a list passed one by one: two or more tuples of one length (``make(("09:00",
    "10:00"), ("10:00", "11:30"))``, ``iv((0, 10), (5, 20))``)."""
    return (
        len(args) >= 2
        and all(isinstance(a, ast.Tuple) for a in args)
        and len({len(cast(ast.Tuple, a).elts) for a in args}) == 1
    )


def _moved_copies(elts: list[ast.expr], moved: bool) -> list[ast.expr]:
    """:func:`copies` copies of ``elts``, the ``k``-th with its literals moved ``k`` times (when
    ``moved``)."""
    out: list[ast.expr] = []
    for k in range(1, copies() + 1):
        for elt in elts:
            again = copy.deepcopy(elt)
            if moved:
                move_constants(again, k)
            out.append(again)
    return out


def repeat(setup: list[ast.stmt]) -> bool:
    """Insert, after the first statement that is a call of its own, that call with its literals moved."""
    for i, stmt in enumerate(setup):
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, (ast.Call, ast.Await)):
            again = copy.deepcopy(stmt)
            move_constants(again, 1)
            setup.insert(i + 1, again)
            return True
    return False


def module_helpers(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """The module's plain functions (no decorator: not a fixture; not a test)."""
    return {
        n.name: n
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and not n.decorator_list and not n.name.startswith("test")
    }


def count_from_shift(roots: list[ast.AST], *, far: bool = False) -> bool:
    """Make every loop over ``range(..)`` (one or two arguments) or ``enumerate(..)`` (no start) under
    ``roots`` count as often from the secret shift on, in place (see the module's doc); whether any
    changed. A loop whose variable is ``_`` is left: its values are not read. ``far``: a ``range`` of
    literal bounds (a sweep over sizes) makes its first two steps from :func:`._respell.far_start` on
    instead (see :data:`._decoys.FAR`)."""
    shift = _respell.far_start() if far else INPUT_SHIFT.get()
    changed = False
    for root in roots:
        for n in ast.walk(root):
            if not isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
                continue
            it, target = n.iter, n.target
            if isinstance(target, ast.Name) and target.id.startswith("_"):
                continue
            if (
                not isinstance(it, ast.Call)
                or it.keywords
                or any(isinstance(a, ast.Starred) for a in it.args)
            ):
                continue
            name = callee(it)
            if far:
                # a sweep over sizes (literal bounds): its first two steps only, from far on
                sizes = [a.value for a in it.args if isinstance(a, ast.Constant) and type(a.value) is int]
                if name == "range" and isinstance(it.func, ast.Name) and len(sizes) == len(it.args) in (1, 2):
                    first, stop = [0, *sizes][-2:]
                    if stop > first:
                        it.args = [ast.Constant(shift), ast.Constant(shift + min(2, stop - first))]
                        changed = True
                continue
            if name == "range" and isinstance(it.func, ast.Name) and len(it.args) in (1, 2):
                low, high = (ast.Constant(0), it.args[0]) if len(it.args) == 1 else it.args
                it.args = [_plus(low, shift), _plus(high, shift)]
                changed = True
            elif name == "enumerate" and isinstance(it.func, ast.Name) and len(it.args) == 1:
                it.args.append(ast.Constant(shift))
                changed = True
    return changed


def _plus(node: ast.expr, k: int) -> ast.expr:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return ast.Constant(node.value + k)
    return ast.BinOp(left=node, op=ast.Add(), right=ast.Constant(k))


def called_helpers(roots: list[ast.AST], helpers: Mapping[str, ast.FunctionDef]) -> list[str]:
    """The names of ``helpers`` that a call under ``roots`` calls by name, sorted."""
    return sorted({
        n.func.id
        for root in roots
        for n in ast.walk(root)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in helpers
    })  # fmt: skip


def helper_copies(
    roots: list[ast.AST],
    helpers: Mapping[str, ast.FunctionDef],
    change: Callable[[list[ast.stmt]], bool] | None = None,
) -> list[ast.stmt]:
    """The helpers ``roots`` call, defined again with their strings moved (integers kept: in a helper they
    are loop bounds and positions more often than inputs), or changed by ``change`` (their statements, in
    place; whether any changed); those whose copy would not differ are left."""
    out: list[ast.stmt] = []
    for name in called_helpers(roots, helpers):
        again = copy.deepcopy(helpers[name])
        doc = int(
            bool(again.body)
            and isinstance(again.body[0], ast.Expr)
            and isinstance(again.body[0].value, ast.Constant)
        )
        body = again.body[doc:]  # the docstring: moving it changes nothing
        if change is not None:
            if change(body):
                again.body[doc:] = body  # a change may add statements to the list it was given
                out.append(again)
        elif sum(move_constants(stmt, 1, numbers=False) for stmt in body):
            out.append(again)
    return out


def made_many_times(record: ast.Assign) -> list[ast.stmt]:
    """``record`` (``_pb_value = <the checked call>``) made :func:`._respell.many_calls` times in a loop
    (Python's *many*, round fifteen: a repair right for a process's first 4,096 calls only met no later
    call). Always that many times, never cut by a clock: a value that depends on the count (a counter, an
    id) is then the same for a slower correct fix as for gold, and a probe that takes a quarter second is
    not kept (``_controls.MAX_CONTROL_S``)."""
    loop = ast.parse(f"for _pb_again in range({_respell.many_calls()}):\n    _pb_value = None\n").body
    cast(ast.For, loop[0]).body[0] = record
    return loop


#: Built-in exception classes an *errors* variant leaves as they are: a test's own failure, and the ones
#: that steer iteration or shutdown (and the roots, which a class deriving from ``Exception`` still is).
_KEPT_ERRORS = frozenset({
    "AssertionError", "StopIteration", "StopAsyncIteration", "GeneratorExit", "KeyboardInterrupt",
    "SystemExit", "Exception", "BaseException",
})  # fmt: skip
#: Names an *errors* variant's classes are drawn from (by the secret shift): none a built-in's.
_ERROR_NAMES = ("DriverError", "ProtocolError", "RemoteError", "BackendError", "UpstreamError", "Fault")


def _builtin_error(name: str) -> bool:
    cls = getattr(builtins, name, None)
    return isinstance(cls, type) and issubclass(cls, BaseException) and name not in _KEPT_ERRORS


def raised_builtins(roots: list[ast.AST], helpers: Mapping[str, ast.FunctionDef]) -> list[str]:
    """The built-in exception classes raised by name (``raise ConnectionError(..)``) under ``roots`` and in
    the helpers of the module they call, sorted."""
    out: set[str] = set()
    for root in [*roots, *(helpers[name] for name in called_helpers(roots, helpers))]:
        for n in ast.walk(root):
            if isinstance(n, ast.Raise) and n.exc is not None:
                exc = n.exc.func if isinstance(n.exc, ast.Call) else n.exc
                if isinstance(exc, ast.Name) and _builtin_error(exc.id):
                    out.add(exc.id)
    return sorted(out)


def _error_var(name: str) -> str:
    return f"_pb_error_{name}"


def error_classes(raised: list[str]) -> list[ast.stmt]:
    """Statements binding a fresh class for each of ``raised``: derived from ``Exception`` alone (not an
    ``OSError``, not a ``LookupError``), named from :data:`_ERROR_NAMES` by the shift and the class's place,
    of a module that is not the test's."""
    out: list[ast.stmt] = []
    for k, name in enumerate(raised):
        drawn = _ERROR_NAMES[(INPUT_SHIFT.get() + k) % len(_ERROR_NAMES)]
        made = f"type({drawn!r}, (Exception,), {{'__module__': 'driver'}})"
        out += ast.parse(f"{_error_var(name)} = {made}").body
    return out


def rename_errors(nodes: list[ast.stmt], raised: list[str]) -> bool:
    """Every read of one of ``raised`` under ``nodes`` made a read of its replacement (see
    :func:`error_classes`), in place; whether any was."""
    changed = False
    for root in nodes:
        for n in ast.walk(root):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in raised:
                n.id = _error_var(n.id)
                changed = True
    return changed


def errors_replaced(
    roots: list[ast.AST], helpers: Mapping[str, ast.FunctionDef], raised: list[str]
) -> list[ast.stmt]:
    """The *errors* variant (:data:`._decoys.ERRORS`): ``raised`` replaced under ``roots`` in place, and
    the copies of the helpers they call that name one (defined again, so the control calls the copies)."""
    rename_errors(cast(list[ast.stmt], roots), raised)
    return helper_copies(roots, helpers, lambda body: rename_errors(list(body), raised))


def containers(checked: ast.AST, kind: str) -> ast.AST | None:
    """*tuples* and *iterated* (:data:`._decoys.TUPLES`, :data:`._decoys.ITERATED`): a copy of the checked
    expression whose call passes each of its arguments through a converter that makes a list a tuple
    (``kind`` "tuple") or an iterator over it ("iter") as the call runs (a value that is no list is passed
    as it is); None when the check is no call, or passes nothing that may be a list (literals only)."""
    if not isinstance(checked, ast.Call):
        return None
    args = [*checked.args, *(k.value for k in checked.keywords if k.arg is not None)]
    if all(isinstance(a, (ast.Constant, ast.Starred, ast.JoinedStr, ast.Dict, ast.Set)) for a in args):
        return None  # nothing that may hold a list: the copy would be the test itself
    out = copy.deepcopy(checked)
    convert = f"(lambda _pb_v: {kind}(_pb_v) if type(_pb_v) is list else _pb_v)"

    def wrapped(arg: ast.expr) -> ast.expr:
        if isinstance(arg, ast.Starred):
            return arg
        call = cast(ast.Call, cast(ast.Expr, ast.parse(f"{convert}(None)").body[0]).value)
        call.args = [arg]
        return call

    out.args = [wrapped(a) for a in out.args]
    for k in out.keywords:
        if k.arg is not None:
            k.value = wrapped(k.value)
    return ast.fix_missing_locations(out)


def constants_replaced(root: ast.AST, make: Callable[[ast.Constant], ast.expr | None]) -> None:
    """Every constant under ``root`` (not a part of an f-string) for which ``make`` gives an expression
    replaced by it, in place."""
    for node in ast.walk(root):
        if isinstance(node, ast.JoinedStr):
            continue
        for name, old in ast.iter_fields(node):
            items = old if isinstance(old, list) else [old]
            for i, item in enumerate(items):
                made = make(item) if isinstance(item, ast.Constant) else None
                if made is None:
                    continue
                if isinstance(old, list):
                    old[i] = made
                else:
                    setattr(node, name, made)


def ints_computed(root: ast.AST) -> None:
    """Every integer literal under ``root`` past CPython's small-int cache written ``int('..')``, in place
    (:data:`._decoys.COMPUTED`): each occurrence a fresh object."""

    def fresh(c: ast.Constant) -> ast.expr | None:
        if type(c.value) is not int or -5 <= c.value <= 256:
            return None
        return ast.Call(ast.Name("int", ast.Load()), [ast.Constant(str(c.value))], [])

    constants_replaced(root, fresh)


#: An *aged* step (:data:`._decoys.AGED`): the preloaded clock library's advance, through ``ctypes`` (a
#: no-op without the library), the calling thread's clocks moved on by the shift's hours. One expression:
#: it reads no name of the test, so it goes anywhere, helpers' copies included.
_AGED_STEP = (
    "(lambda c: getattr(c.CDLL(None), {symbol!r}, lambda n: None)(c.c_int64({ns})))(__import__('ctypes'))"
)
#: What an aged Python copy ends with, whatever it raised (see :func:`aged_reset`).
_AGED_RESET = "(lambda c: getattr(c.CDLL(None), {symbol!r}, lambda: None)())(__import__('ctypes'))"
#: Statements whose bodies get steps of their own (not a nested function's or class's: it may be a
#: generator a fixture drives, and what it builds is built when it is called).
_BLOCKS = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try)


def aged(body: list[ast.stmt]) -> bool:
    """Hours made to pass before each statement of ``body`` and of the blocks it holds, and once more at
    its end (before the check that follows it): code right only while an object or the process is seconds
    old meets an old one (round sixteen's clock family). In place; always True."""
    from ._clock import ADVANCE_SYMBOL

    hours = INPUT_SHIFT.get()
    text = _AGED_STEP.format(symbol=ADVANCE_SYMBOL, ns=hours * 3_600_000_000_000)

    def step() -> ast.stmt:
        return ast.parse(text).body[0]

    def walk(stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            if isinstance(stmt, _BLOCKS):
                for field in ("body", "orelse", "finalbody"):
                    inner = getattr(stmt, field, None)
                    if inner:
                        setattr(stmt, field, walk(inner))
                for handler in getattr(stmt, "handlers", []):
                    handler.body = walk(handler.body)
            out += [step(), stmt]
        return out

    body[:] = [*walk(body), step()]
    return True


def aged_reset(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` (an aged copy's statements) in a ``try`` whose ``finally`` puts the thread's clocks back:
    pytest runs later tests on the same thread, and none may read a clock a copy moved on."""
    from ._clock import RESET_SYMBOL

    reset = ast.parse(_AGED_RESET.format(symbol=RESET_SYMBOL)).body
    return [ast.Try(body=body, handlers=[], orelse=[], finalbody=reset)]


#: What a *twinned* copy (:data:`._decoys.TWINNED`) starts with: every class of the code under test that the
#: test's module holds (defined in a module under the working directory, not an exception, enum or
#: builtin-derived type) patched in place for the copy's run: each object made then gets a twin, made from
#: the same arguments, and each public method defined on the class is called on the twin first with the
#: same arguments. The objects themselves are what they always were (their class, equality, identity);
#: state kept to an object answers as before, state kept in a module global or a class attribute has just
#: taken the same call from the twin.
_TWIN_PROLOGUE = """
_pb_restore = []


def _pb_twin_all():
    sys, os, enum, inspect = (__import__(m) for m in ('sys', 'os', 'enum', 'inspect'))
    here = os.getcwd() + os.sep
    pairs, making = {}, [False]

    def patch(cls):
        init = cls.__init__

        def __init__(self, *args, **kwargs):
            init(self, *args, **kwargs)
            if making[0] or type(self) is not cls:
                return
            making[0] = True
            try:
                pairs[id(self)] = (self, cls(*args, **kwargs))
            except Exception:
                pass
            finally:
                making[0] = False

        changes = [('__init__', __init__)]
        for name, attr in list(vars(cls).items()):
            if name.startswith('_') or not inspect.isfunction(attr):
                continue

            def mirrored(self, *args, _pb_method=attr, **kwargs):
                pair = pairs.get(id(self))
                if pair is not None and pair[0] is self:
                    try:
                        _pb_method(pair[1], *args, **kwargs)
                    except Exception:
                        pass
                return _pb_method(self, *args, **kwargs)

            mirrored.__name__, mirrored.__qualname__ = attr.__name__, attr.__qualname__
            changes.append((name, mirrored))
        for name, value in changes:
            _pb_restore.append((cls, name, name in vars(cls), vars(cls).get(name)))
            setattr(cls, name, value)

    seen = set()
    for value in list(globals().values()):
        if not isinstance(value, type) or id(value) in seen:
            continue
        seen.add(id(value))
        path = getattr(sys.modules.get(value.__module__), '__file__', None) or ''
        if not path.startswith(here) or 'site-packages' in path or value.__module__ == __name__:
            continue
        if issubclass(value, (BaseException, enum.Enum)) or any(
            b is not object and b.__module__ == 'builtins' for b in value.__mro__
        ):
            continue
        try:
            patch(value)
        except Exception:
            continue


_pb_twin_all()
"""
#: What it ends with, whatever its statements raised: every class as it was.
_TWIN_EPILOGUE = (
    "for _pb_class, _pb_name, _pb_had, _pb_old in reversed(_pb_restore):\n"
    "    if _pb_had:\n"
    "        setattr(_pb_class, _pb_name, _pb_old)\n"
    "    else:\n"
    "        delattr(_pb_class, _pb_name)\n"
)


def twinned(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` (a copy's statements) run with the classes of the code under test twinned (see
    :data:`_TWIN_PROLOGUE`): round thirteen's rt12-py-pending-cr-in-a-module-global kept gold's "ended with
    CR" flag in a module global, right while one parser is fed at a time, which every test and variant
    did. The classes are patched in place, not replaced: a replacement (a subclass) made objects built by
    a reference taken before the copy (a module constant, a default argument) compare unequal to the
    test's, which a correct fix may well hold (a gated candidate showed it)."""
    return [
        *ast.parse(_TWIN_PROLOGUE).body,
        ast.Try(body=body, handlers=[], orelse=[], finalbody=ast.parse(_TWIN_EPILOGUE).body),
    ]


def _elsewhere(template: str, body: list[ast.stmt]) -> list[ast.stmt] | None:
    """``template``'s statements with ``body`` as the ``try`` body that opens its function (the worker a
    thread or a child process runs); None for statements that await or yield (an async test's: they cannot
    run there)."""
    if any(
        isinstance(n, (ast.Await, ast.AsyncFor, ast.AsyncWith, ast.Yield, ast.YieldFrom))
        for s in body
        for n in ast.walk(s)
    ):
        return None
    out = ast.parse(template).body
    worker = next(s for s in out if isinstance(s, ast.FunctionDef))
    cast(ast.Try, worker.body[0]).body = body
    return out


#: A Python *off main* copy (:data:`._decoys.OFF_MAIN`): its statements on a thread of their own, named like
#: an executor's worker, and what they raised raised again on the test's thread.
_OFF_MAIN = """
_pb_thrown = []


def _pb_off_main():
    try:
        pass
    except BaseException as _pb_error:
        _pb_thrown.append(_pb_error)


_pb_worker = __import__('threading').Thread(target=_pb_off_main, name='ThreadPoolExecutor-0_0')
_pb_worker.start()
_pb_worker.join()
if _pb_thrown:
    raise _pb_thrown[0]
"""


def off_main(body: list[ast.stmt]) -> list[ast.stmt] | None:
    """``body`` (a copy's statements) run on a thread of its own (round seventeen,
    rt16-py-touching-merged-on-the-main-thread: a repair applied on the main thread only passed every
    variant, which all ran there); None for statements that await (an async test's)."""
    return _elsewhere(_OFF_MAIN, body)


#: A Python *forked* copy (:data:`._decoys.FORKED`): its statements in a child process, a
#: ``multiprocessing`` ``Process`` of the fork context (round twenty: a bare ``os.fork()`` left
#: ``multiprocessing.parent_process()`` None in the child, and a repair keyed on that kept the bug in every
#: pool worker); the child sends back what they raised (pickled; its class name and message in an
#: ``AssertionError`` when it does not pickle), ``None`` when they returned, and leaves as a ``Process`` does
#: (``os._exit``: no pytest teardown, no ``atexit``); the test's process raises it again. A child that sent
#: nothing (killed, or left on its own through ``os._exit``) fails the copy.
_FORKED = """
_pb_mp = __import__('multiprocessing')
_pb_pickle = __import__('pickle')
_pb_read, _pb_write = _pb_mp.Pipe(duplex=False)


def _pb_forked():
    try:
        pass
    except BaseException as _pb_error:
        try:
            _pb_sent = _pb_pickle.dumps(_pb_error)
        except BaseException:
            _pb_sent = _pb_pickle.dumps(AssertionError(f'{type(_pb_error).__name__}: {_pb_error}'))
    else:
        _pb_sent = _pb_pickle.dumps(None)
    for _pb_stream in (__import__('sys').stdout, __import__('sys').stderr):
        try:
            _pb_stream.flush()
        except BaseException:
            pass
    _pb_write.send_bytes(_pb_sent)


_pb_child = _pb_mp.get_context('fork').Process(target=_pb_forked)
_pb_child.start()
_pb_write.close()
try:
    _pb_got = _pb_read.recv_bytes()
except EOFError:
    _pb_got = b''
_pb_read.close()
_pb_child.join()
if not _pb_got:
    raise AssertionError(f'the forked copy sent nothing (exit code {_pb_child.exitcode})')
_pb_thrown = _pb_pickle.loads(_pb_got)
if _pb_thrown is not None:
    raise _pb_thrown
"""


#: A Python *zoned* copy (:data:`._decoys.ZONED`): its statements with ``TZ`` set to another zone (``{tz}``)
#: and ``time.tzset()`` called, then put back as they were.
_ZONED = """
_pb_os, _pb_time = __import__('os'), __import__('time')
_pb_tz = _pb_os.environ.get('TZ')
_pb_os.environ['TZ'] = {tz!r}
_pb_time.tzset()
try:
    pass
finally:
    if _pb_tz is None:
        _pb_os.environ.pop('TZ', None)
    else:
        _pb_os.environ['TZ'] = _pb_tz
    _pb_time.tzset()
"""


def zoned(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` (a copy's statements) run in another time zone (round twenty-one, rt20-py-json-floats-as-
    written-in-utc: a repair made only where the local UTC offset is 0 passed every variant, which all ran
    in the machine's UTC)."""
    out = ast.parse(_ZONED.format(tz=_respell.zone()[1])).body
    next(s for s in out if isinstance(s, ast.Try)).body = body
    return out


def forked(body: list[ast.stmt]) -> list[ast.stmt] | None:
    """``body`` (a copy's statements) run in a child process forked for them (round eighteen,
    rt17-py-*-in-the-loading-process: a repair keyed on the pid that imported the code under test passed
    every variant, which all ran in pytest's process, where a server that imports and then forks its workers
    computes in the children); None for statements that await (an async test's)."""
    return _elsewhere(_FORKED, body)
