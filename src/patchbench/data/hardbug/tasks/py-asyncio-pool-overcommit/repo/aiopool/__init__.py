"""aiopool: a bounded asyncio connection pool."""

from .errors import PoolClosedError, PoolError
from .pool import ConnectionPool, PoolStats, create_pool

__all__ = ["ConnectionPool", "PoolClosedError", "PoolError", "PoolStats", "create_pool"]
__version__ = "0.3.1"
