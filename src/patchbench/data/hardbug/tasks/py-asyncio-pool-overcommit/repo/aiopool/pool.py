"""A bounded pool of asynchronously created connections."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from .errors import PoolClosedError

T = TypeVar("T")


@dataclass(frozen=True)
class PoolStats:
    """A snapshot of the pool's counters."""

    size: int
    idle: int
    in_use: int
    waiting: int
    created: int


class ConnectionPool(Generic[T]):
    """Lends out connections produced by ``factory``; never more than ``max_size`` exist.

    Args:
        factory: coroutine function that opens a new connection.
        max_size: upper bound on the number of open connections.
    """

    def __init__(self, factory: Callable[[], Awaitable[T]], max_size: int = 10) -> None:
        if max_size < 1:
            raise ValueError("max_size must be at least 1")
        self._factory = factory
        self._max_size = max_size
        self._idle: deque[T] = deque()
        self._size = 0
        self._created = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._closed = False

    @property
    def max_size(self) -> int:
        return self._max_size

    def stats(self) -> PoolStats:
        """A snapshot of the current counters."""
        return PoolStats(
            size=self._size,
            idle=len(self._idle),
            in_use=self._size - len(self._idle),
            waiting=sum(1 for w in self._waiters if not w.done()),
            created=self._created,
        )

    async def acquire(self) -> T:
        """Borrow a connection, opening one or waiting for one as needed."""
        while True:
            if self._closed:
                raise PoolClosedError("pool is closed")
            if self._idle:
                return self._idle.pop()
            if self._size < self._max_size:
                conn = await self._factory()
                self._size += 1
                self._created += 1
                return conn
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
                # We may have been woken just before being cancelled: pass the turn on.
                if waiter.done() and not waiter.cancelled():
                    self._wake_next()
                raise

    def release(self, conn: T) -> None:
        """Return a borrowed connection to the pool."""
        if self._closed:
            self._size -= 1
            return
        self._idle.append(conn)
        self._wake_next()

    def discard(self, conn: T) -> None:
        """Forget a borrowed connection that is broken; frees its slot."""
        self._size -= 1
        self._wake_next()

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[T]:
        """``async with pool.connection() as conn``: borrow, then give back (or discard on error)."""
        conn = await self.acquire()
        try:
            yield conn
        except BaseException:
            self.discard(conn)
            raise
        else:
            self.release(conn)

    def close(self) -> None:
        """Drop idle connections and fail every current and future waiter."""
        self._closed = True
        self._size -= len(self._idle)
        self._idle.clear()
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)

    def _wake_next(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return


def create_pool(factory: Callable[[], Awaitable[T]], max_size: int = 10) -> ConnectionPool[T]:
    """Build a :class:`ConnectionPool`; the factory is not called until the first borrow."""
    return ConnectionPool(factory, max_size=max_size)
