Below is a pytest suite for `memoize` and `call_key` in solution.py. It checks cache hits, keyword
ordering, the positional/keyword key collision, LRU eviction, expiry with a fake clock, typed keys and
invalidation.

```python
import pytest

from solution import call_key, memoize


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def recorder(**options):
    calls = []

    @memoize(**options)
    def render(template, *blocks, **context):
        calls.append((template, blocks, context))
        return f"{template}|{blocks}|{sorted(context.items())}"

    return render, calls


def test_repeated_call_is_served_from_cache():
    render, calls = recorder()
    assert render("page", title="Hi") == render("page", title="Hi")
    assert len(calls) == 1
    info = render.cache_info()
    assert (info.hits, info.misses, info.size) == (1, 1, 1)


def test_keyword_order_does_not_matter():
    render, calls = recorder()
    render("page", title="Hi", lang="en")
    render("page", lang="en", title="Hi")
    assert len(calls) == 1


def test_positional_tuple_is_not_confused_with_keyword_argument():
    render, calls = recorder()
    as_block = render("page", ("title", "Hi"))
    as_keyword = render("page", title="Hi")
    assert as_block != as_keyword
    assert len(calls) == 2


def test_keys_of_different_call_shapes_differ():
    assert call_key(("page", ("title", "Hi")), {}) != call_key(("page",), {"title": "Hi"})
    assert call_key((("a", 1), ("b", 2)), {}) != call_key((), {"a": 1, "b": 2})
    assert call_key(("x",), {"y": 1}) == call_key(("x",), {"y": 1})


def test_least_recently_used_entry_is_evicted():
    render, calls = recorder(maxsize=2)
    render("a")
    render("b")
    render("a")
    render("c")
    render("a")
    assert [c[0] for c in calls] == ["a", "b", "c"]
    render("b")
    assert [c[0] for c in calls] == ["a", "b", "c", "b"]


def test_entries_expire_after_ttl():
    clock = FakeClock()
    render, calls = recorder(ttl=10.0, clock=clock)
    render("page")
    clock.now += 9.5
    render("page")
    assert len(calls) == 1
    clock.now += 0.5
    render("page")
    assert len(calls) == 2


def test_typed_separates_int_and_float():
    render, calls = recorder(typed=True)
    render("page", 1)
    render("page", 1.0)
    assert len(calls) == 2
    untyped, untyped_calls = recorder()
    untyped("page", 1)
    untyped("page", 1.0)
    assert len(untyped_calls) == 1


def test_invalidate_and_clear():
    render, calls = recorder()
    render("page", title="Hi")
    assert render.invalidate("page", title="Hi") is True
    assert render.invalidate("page", title="Hi") is False
    render("page", title="Hi")
    assert len(calls) == 2
    render.cache_clear()
    assert render.cache_info().size == 0
    with pytest.raises(ValueError):
        memoize(maxsize=0)
```

The collision test is the one that reproduces the reported bug: a tuple passed positionally must not
share a cache entry with the same name and value passed as a keyword argument.
