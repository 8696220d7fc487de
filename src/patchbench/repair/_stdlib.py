"""What the repair knows of the standard library: which names are modules, which are members of one."""

from __future__ import annotations

import collections.abc
import enum
import typing

MODULES: frozenset[str] = frozenset(
    [
        "abc",
        "argparse",
        "array",
        "ast",
        "asyncio",
        "base64",
        "binascii",
        "bisect",
        "builtins",
        "calendar",
        "cmath",
        "codecs",
        "collections",
        "concurrent",
        "configparser",
        "contextlib",
        "copy",
        "csv",
        "ctypes",
        "dataclasses",
        "datetime",
        "decimal",
        "difflib",
        "dis",
        "doctest",
        "enum",
        "errno",
        "fnmatch",
        "fractions",
        "functools",
        "gc",
        "glob",
        "gzip",
        "hashlib",
        "heapq",
        "hmac",
        "html",
        "http",
        "importlib",
        "inspect",
        "io",
        "ipaddress",
        "itertools",
        "json",
        "keyword",
        "locale",
        "logging",
        "math",
        "mimetypes",
        "multiprocessing",
        "numbers",
        "operator",
        "os",
        "pathlib",
        "pickle",
        "platform",
        "pprint",
        "queue",
        "random",
        "re",
        "secrets",
        "select",
        "shlex",
        "shutil",
        "signal",
        "socket",
        "sqlite3",
        "stat",
        "statistics",
        "string",
        "struct",
        "subprocess",
        "sys",
        "tarfile",
        "tempfile",
        "textwrap",
        "threading",
        "time",
        "timeit",
        "tokenize",
        "traceback",
        "types",
        "typing",
        "unicodedata",
        "unittest",
        "urllib",
        "uuid",
        "warnings",
        "weakref",
        "xml",
        "zipfile",
        "zlib",
        "pytest",
    ]
)
"""Modules imported (``import NAME``) when NAME is undefined. ``pytest`` is there: the tests run under it."""


def _members() -> dict[str, str]:
    table: dict[str, str] = {}
    # typing first: later, more specific modules override its aliases (Counter, OrderedDict, ...).
    for name in typing.__all__:
        if name[:1].isupper() or name in ("cast", "overload", "final", "get_type_hints", "no_type_check"):
            table[name] = "typing"
    groups = {
        "dataclasses": "dataclass field fields asdict astuple make_dataclass is_dataclass InitVar "
        "FrozenInstanceError",
        "abc": "ABC ABCMeta abstractmethod abstractproperty",
        "enum": "Enum IntEnum Flag IntFlag auto unique",
        "collections": "defaultdict Counter OrderedDict deque namedtuple ChainMap UserDict UserList",
        "functools": "partial partialmethod wraps reduce lru_cache cached_property total_ordering "
        "singledispatch cmp_to_key update_wrapper",
        "itertools": "chain product permutations combinations combinations_with_replacement islice "
        "zip_longest groupby accumulate starmap takewhile dropwhile",
        "pathlib": "Path PurePath PosixPath",
        "decimal": "Decimal InvalidOperation ROUND_HALF_UP ROUND_HALF_EVEN getcontext localcontext",
        "fractions": "Fraction",
        "datetime": "date timedelta timezone tzinfo",
        "unittest.mock": "Mock MagicMock AsyncMock PropertyMock patch call ANY mock_open sentinel",
        "unittest": "TestCase mock",
        "io": "StringIO BytesIO TextIOWrapper",
        "contextlib": "contextmanager asynccontextmanager suppress redirect_stdout redirect_stderr "
        "ExitStack nullcontext",
        "copy": "deepcopy",
        "math": "sqrt floor ceil pi inf nan isclose isnan isinf",
        "textwrap": "dedent",
        "operator": "itemgetter attrgetter methodcaller",
        "heapq": "heappush heappop heapify nlargest nsmallest",
        "bisect": "bisect_left bisect_right insort",
        "types": "SimpleNamespace MappingProxyType ModuleType",
        "tempfile": "TemporaryDirectory NamedTemporaryFile mkdtemp mkstemp",
        "threading": "Thread Lock RLock Event Semaphore",
        "uuid": "UUID uuid4",
        "inspect": "signature",
        "string": "ascii_letters ascii_lowercase ascii_uppercase digits punctuation",
        "time": "sleep perf_counter monotonic",
    }
    for module, names in groups.items():
        for name in names.split():
            table[name] = module
    return table


MEMBERS: dict[str, str] = _members()
"""Names imported from a module (``from MODULE import NAME``) when NAME is undefined."""

#: Names both a module and a member: (module, member's module). Resolved by use (see _ambiguous).
_AMBIGUOUS: dict[str, str] = {"datetime": "datetime", "time": "datetime", "copy": "copy"}
_DATETIME_MODULE_ATTRS = frozenset(
    [
        "date",
        "datetime",
        "time",
        "timedelta",
        "timezone",
        "tzinfo",
        "MINYEAR",
        "MAXYEAR",
        "UTC",
        "datetime_CAPI",
    ]
)

#: Names ``from typing import`` cannot give but ``from enum import`` can.
_ENUM_NAMES = frozenset(n for n in enum.__all__ if not hasattr(typing, n)) | {"Enum", "IntEnum", "auto"}
#: ABCs that moved from ``collections`` to ``collections.abc`` (gone from ``collections`` in 3.10).
_ABC_NAMES = frozenset(collections.abc.__all__)
