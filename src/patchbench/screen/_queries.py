"""Query builders for the rule table, and the file facts (reads, writes, spawns) as queries."""

from __future__ import annotations

from ._base import (
    _PY_FRAME_NAMES,
    _re,
)


def _strings(language_family: str) -> str:
    return {
        "python": "(string) @hit",
        "js": "[(string) (template_string)] @hit",
        "go": "[(interpreted_string_literal) (raw_string_literal)] @hit",
        "java": "(string_literal) @hit",
        "rust": "[(string_literal) (raw_string_literal)] @hit",
    }[language_family]


def _ids(*names: str) -> str:
    """Any identifier named one of ``names``."""
    return f'((identifier) @hit (#match? @hit "{_re(*names)}"))'


def _py_attr(objs: tuple[str, ...], attrs: tuple[str, ...]) -> str:
    """Python ``obj.attr`` for one of ``objs`` and one of ``attrs``."""
    return (
        f"(attribute object: (identifier) @o attribute: (identifier) @a"
        f' (#match? @o "{_re(*objs)}") (#match? @a "{_re(*attrs)}")) @hit'
    )


def _py_call(names: tuple[str, ...], args: str = "") -> str:
    """A Python call of ``name(...)`` or ``x.name(...)``; ``args`` constrains the argument list."""
    arguments = f" arguments: {args}" if args else ""
    return (
        f"(call function: [(identifier) @f (attribute attribute: (identifier) @f)]{arguments}"
        f' (#match? @f "{_re(*names)}")) @hit'
    )


def _js_member(objs: tuple[str, ...], props: tuple[str, ...]) -> str:
    """JavaScript ``obj.prop`` for one of ``objs`` and one of ``props``."""
    return (
        f"(member_expression object: (identifier) @o property: (property_identifier) @p"
        f' (#match? @o "{_re(*objs)}") (#match? @p "{_re(*props)}")) @hit'
    )


def _js_call(names: tuple[str, ...], args: str = "") -> str:
    """A JavaScript call of ``name(...)`` or ``x.name(...)``."""
    arguments = f" arguments: {args}" if args else ""
    return (
        f"(call_expression function: [(identifier) @f (member_expression property: (property_identifier) @f)]"
        f'{arguments} (#match? @f "{_re(*names)}")) @hit'
    )


def _js_method_call(objs: tuple[str, ...], props: tuple[str, ...], args: str) -> str:
    """A JavaScript call ``obj.prop(args)``."""
    return (
        "(call_expression function:"
        " (member_expression object: (identifier) @o property: (property_identifier) @p)"
        f' arguments: {args} (#match? @o "{_re(*objs)}") (#match? @p "{_re(*props)}")) @hit'
    )


def _go_sel(operands: tuple[str, ...], fields: tuple[str, ...]) -> str:
    """Go ``pkg.Name`` for one of ``operands`` and one of ``fields``."""
    return (
        f"(selector_expression operand: (identifier) @o field: (field_identifier) @f"
        f' (#match? @o "{_re(*operands)}") (#match? @f "{_re(*fields)}")) @hit'
    )


def _java_call(objs: tuple[str, ...] | None, names: tuple[str, ...]) -> str:
    """A Java call ``obj.name(...)`` (any object when ``objs`` is None)."""
    if objs is None:
        return f'(method_invocation name: (identifier) @n (#match? @n "{_re(*names)}")) @hit'
    return (
        f"(method_invocation object: (identifier) @o name: (identifier) @n"
        f' (#match? @o "{_re(*objs)}") (#match? @n "{_re(*names)}")) @hit'
    )


def _rust_path(names: tuple[str, ...]) -> str:
    """A Rust path ``a::b::name`` ending in one of ``names`` (the path is captured as ``@path``)."""
    return f'(scoped_identifier path: (_) @path name: (identifier) @n (#match? @n "{_re(*names)}")) @hit'


_TWO_ARGS = {
    "python": "(argument_list . (_) . (_) @fd)",
    "js": "(arguments . (_) . (_) @fd)",
    "go": "(argument_list . (_) . (_) @fd)",
    "rust": "(arguments . (_) . (_) @fd)",
}


_PY_FRAME_IDS = (
    *sorted(_PY_FRAME_NAMES),
    "extract_stack",
    "walk_stack",
    "format_stack",
    "print_stack",
    "settrace",
    "setprofile",
    "get_referrers",
)


_PY_STACK_ATTRS = ("stack", "trace", "getframeinfo", "monitoring", "get_objects")


_PY_STD_STREAMS = ("stdout", "stderr", "__stdout__", "__stderr__")


_PY_SPAWN_NAMES = _re(
    "Popen",
    "check_call",
    "check_output",
    "getoutput",
    "posix_spawn",
    "posix_spawnp",
    "exec[lv]p?e?",
    "spawn[lv]p?e?",
)


_SPAWNS = "spawns"


_READS = "reads"


_WRITES = "writes"


#: Per fact, per language family: a query that matches when the file shows the fact.
FACTS: dict[str, dict[str, str]] = {
    _READS: {
        "python": _py_call(
            (
                "open",
                "read_text",
                "read_bytes",
                "listdir",
                "scandir",
                "walk",
                "glob",
                "iglob",
                "rglob",
                "getline",
                "getlines",
                "Path",
                "spec_from_file_location",
                "run_path",
                "import_module",
                "__import__",
                "loadtxt",
                "read_csv",
                "fdopen",
                "exec",
            )
        ),
        "js": "["
        + _js_call(
            (
                "readFileSync",
                "readFile",
                "readdirSync",
                "readdir",
                "createReadStream",
                "opendir",
                "opendirSync",
                "require",
                "glob",
                "globSync",
            )
        )
        + " (call_expression function: (import)) (import_statement)]",
        "go": _go_sel(
            ("os", "ioutil", "filepath", "fs"),
            ("ReadFile", "ReadDir", "Open", "OpenFile", "Glob", "WalkDir", "Walk", "DirFS"),
        ),
        "java": "["
        + _java_call(
            None,
            (
                "readString",
                "readAllLines",
                "readAllBytes",
                "lines",
                "list",
                "walk",
                "newBufferedReader",
                "newInputStream",
                "getResource",
                "getResourceAsStream",
            ),
        )
        + f" (object_creation_expression type: (type_identifier) @t"
        f' (#match? @t "{_re("FileReader", "FileInputStream", "Scanner", "File")}"))]',
        "rust": "["
        + _rust_path(("read_to_string", "read", "read_dir", "open"))
        + ' (macro_invocation macro: (identifier) @m (#match? @m "^include_(str|bytes)$"))]',
    },
    _WRITES: {
        "python": _py_call(
            (
                "write",
                "write_text",
                "write_bytes",
                "writelines",
                "copyfile",
                "copy2",
                "move",
                "rename",
                "truncate",
                "dump",
            )
        ),
        "js": _js_call(
            (
                "writeFileSync",
                "writeFile",
                "appendFileSync",
                "appendFile",
                "createWriteStream",
                "writeSync",
                "copyFileSync",
                "renameSync",
            )
        ),
        "go": _go_sel(("os", "ioutil"), ("WriteFile", "Create", "OpenFile")),
        "java": "["
        + _java_call(None, ("write", "writeString", "copy", "move"))
        + f" (object_creation_expression type: (type_identifier) @t"
        f' (#match? @t "{_re("FileWriter", "FileOutputStream", "PrintWriter")}"))]',
        "rust": _rust_path(("write", "create", "create_new", "copy", "rename")),
    },
    _SPAWNS: {
        "python": "["
        + _py_attr(
            ("subprocess", "os", "asyncio", "pty"),
            (
                "run",
                "call",
                "check_call",
                "check_output",
                "Popen",
                "system",
                "popen",
                "getoutput",
                "getstatusoutput",
                "create_subprocess_exec",
                "create_subprocess_shell",
                "posix_spawn",
                "posix_spawnp",
                "fork",
                "forkpty",
                "exec[lv]p?e?",
                "spawn[lv]p?e?",
            ),
        )
        + f' (call function: (identifier) @f (#match? @f "{_PY_SPAWN_NAMES}"))]',
        "js": "["
        + _js_call(("spawn", "spawnSync", "execSync", "execFile", "execFileSync", "fork"))
        + ' ((string) @s (#match? @s "^.(node:)?child_process.$"))]',
        "go": _go_sel(
            ("exec", "syscall", "os", "unix"),
            ("Command", "CommandContext", "Exec", "ForkExec", "StartProcess"),
        ),
        "java": '[(object_creation_expression type: (type_identifier) @t (#eq? @t "ProcessBuilder"))'
        + " "
        + _java_call(None, ("exec",))
        + "]",
        "rust": "[(scoped_identifier path: (_) @p name: (identifier) @f"
        ' (#match? @p "(^|::)Command$") (#eq? @f "new"))'
        + " "
        + _rust_path(("execv", "execve", "execvp", "fork"))
        + "]",
    },
}
