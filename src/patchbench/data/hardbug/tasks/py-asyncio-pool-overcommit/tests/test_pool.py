"""Hidden tests for aiopool.  Interleavings are driven with asyncio.sleep(0) and
events only; the wait_for below is just a guard against a hung suite."""

from __future__ import annotations

import asyncio

import aiopool

GUARD_S = 5.0


def run(coro):
    async def guarded():
        return await asyncio.wait_for(coro, GUARD_S)

    return asyncio.run(guarded())


async def spin(times: int = 5) -> None:
    for _ in range(times):
        await asyncio.sleep(0)


class Conn:
    def __init__(self, serial: int) -> None:
        self.serial = serial

    def __repr__(self) -> str:
        return f"Conn({self.serial})"


def make_factory(yields: int = 1, fail_first: int = 0):
    """A factory that yields to the loop ``yields`` times before returning."""
    state = {"calls": 0}

    async def factory() -> Conn:
        state["calls"] += 1
        serial = state["calls"]
        for _ in range(yields):
            await asyncio.sleep(0)
        if serial <= fail_first:
            raise ConnectionError(f"connect attempt {serial} refused")
        return Conn(serial)

    return factory, state


def test_sequential_borrows_reuse_one_connection():
    async def main():
        factory, state = make_factory()
        pool = aiopool.create_pool(factory, max_size=3)
        seen = []
        for _ in range(4):
            async with pool.connection() as conn:
                seen.append(conn.serial)
        assert seen == [1, 1, 1, 1], seen
        assert state["calls"] == 1
        stats = pool.stats()
        assert (stats.size, stats.idle, stats.in_use, stats.created) == (1, 1, 0, 1), stats

    run(main())


def test_idle_connections_are_reused_most_recent_first():
    async def main():
        factory, _ = make_factory()
        pool = aiopool.create_pool(factory, max_size=2)
        first = await pool.acquire()
        second = await pool.acquire()
        pool.release(first)
        pool.release(second)
        again = await pool.acquire()
        assert again is second, again

    run(main())


def test_burst_opens_at_most_max_size_connections():
    async def main():
        factory, state = make_factory(yields=2)
        pool = aiopool.create_pool(factory, max_size=2)

        async def worker():
            async with pool.connection() as conn:
                await asyncio.sleep(0)
                return conn.serial

        serials = await asyncio.gather(*(worker() for _ in range(6)))
        assert state["calls"] == 2, f"factory called {state['calls']} times for max_size=2"
        assert sorted(set(serials)) == [1, 2], serials
        assert pool.stats().created == 2

    run(main())


def test_pool_size_stays_bounded_during_burst():
    async def main():
        factory, _ = make_factory(yields=3)
        pool = aiopool.create_pool(factory, max_size=3)
        peak = {"size": 0, "in_use": 0}

        async def worker():
            async with pool.connection():
                stats = pool.stats()
                peak["size"] = max(peak["size"], stats.size)
                peak["in_use"] = max(peak["in_use"], stats.in_use)
                await spin(2)

        await asyncio.gather(*(worker() for _ in range(10)))
        assert peak["size"] <= 3, f"pool grew to {peak['size']} connections (max_size=3)"
        assert peak["in_use"] <= 3, peak
        assert pool.stats().size <= 3

    run(main())


def test_borrower_waits_while_only_connection_is_being_opened():
    async def main():
        opened = asyncio.Event()
        calls = []

        async def factory():
            calls.append(len(calls) + 1)
            await opened.wait()
            return Conn(len(calls))

        pool = aiopool.create_pool(factory, max_size=1)
        first = asyncio.ensure_future(pool.acquire())
        await spin()
        second = asyncio.ensure_future(pool.acquire())
        await spin()
        assert calls == [1], f"factory called {len(calls)} times while max_size=1"
        opened.set()
        conn = await first
        await spin()
        assert not second.done(), "second borrower got a connection while the only one is lent out"
        pool.release(conn)
        assert await second is conn

    run(main())


def test_waiter_is_served_when_connection_released():
    async def main():
        factory, state = make_factory()
        pool = aiopool.create_pool(factory, max_size=1)
        conn = await pool.acquire()
        waiter = asyncio.ensure_future(pool.acquire())
        await spin()
        assert not waiter.done()
        assert pool.stats().waiting == 1
        pool.release(conn)
        assert await waiter is conn
        assert state["calls"] == 1

    run(main())


def test_factory_error_does_not_consume_capacity():
    async def main():
        factory, state = make_factory(fail_first=1)
        pool = aiopool.create_pool(factory, max_size=1)
        try:
            await pool.acquire()
        except ConnectionError:
            pass
        else:
            raise AssertionError("the first connect attempt should have failed")
        assert pool.stats().size == 0, pool.stats()
        conn = await pool.acquire()
        assert conn.serial == 2
        assert state["calls"] == 2

    run(main())


def test_failed_open_hands_turn_to_waiting_borrower():
    async def main():
        factory, state = make_factory(yields=2, fail_first=1)
        pool = aiopool.create_pool(factory, max_size=1)
        results = await asyncio.gather(pool.acquire(), pool.acquire(), return_exceptions=True)
        errors = [r for r in results if isinstance(r, ConnectionError)]
        conns = [r for r in results if isinstance(r, Conn)]
        assert len(errors) == 1 and len(conns) == 1, results
        assert pool.stats().size == 1, pool.stats()
        assert state["calls"] == 2

    run(main())


def test_error_inside_block_discards_connection():
    async def main():
        factory, state = make_factory()
        pool = aiopool.create_pool(factory, max_size=1)
        try:
            async with pool.connection():
                raise RuntimeError("query failed")
        except RuntimeError:
            pass
        assert pool.stats().size == 0
        async with pool.connection() as conn:
            assert conn.serial == 2
        assert state["calls"] == 2

    run(main())


def test_cancelled_waiter_does_not_block_the_next_one():
    async def main():
        factory, _ = make_factory()
        pool = aiopool.create_pool(factory, max_size=1)
        conn = await pool.acquire()
        doomed = asyncio.ensure_future(pool.acquire())
        patient = asyncio.ensure_future(pool.acquire())
        await spin()
        doomed.cancel()
        await spin()
        assert doomed.cancelled()
        pool.release(conn)
        assert await patient is conn

    run(main())


def test_close_fails_waiting_borrowers():
    async def main():
        factory, _ = make_factory()
        pool = aiopool.create_pool(factory, max_size=1)
        await pool.acquire()
        waiter = asyncio.ensure_future(pool.acquire())
        await spin()
        pool.close()
        try:
            await waiter
        except aiopool.PoolClosedError:
            pass
        else:
            raise AssertionError("waiter should fail once the pool is closed")

    run(main())


def test_max_size_must_be_positive():
    try:
        aiopool.create_pool(make_factory()[0], max_size=0)
    except ValueError:
        return
    raise AssertionError("max_size=0 should be rejected")
