"""Exceptions raised by aiopool."""


class PoolError(Exception):
    """Base class for every error raised by the pool itself."""


class PoolClosedError(PoolError):
    """The pool was closed before (or while) a connection was requested."""
