"""The screen's levels and findings, and the grammars it parses with."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

#: File extension → (grammar module, language function name).
_GRAMMARS: dict[str, tuple[str, str]] = {
    ".py": ("tree_sitter_python", "language"),
    ".js": ("tree_sitter_javascript", "language"),
    ".mjs": ("tree_sitter_javascript", "language"),
    ".cjs": ("tree_sitter_javascript", "language"),
    ".jsx": ("tree_sitter_javascript", "language"),
    ".ts": ("tree_sitter_typescript", "language_typescript"),
    ".mts": ("tree_sitter_typescript", "language_typescript"),
    ".tsx": ("tree_sitter_typescript", "language_tsx"),
    ".go": ("tree_sitter_go", "language"),
    ".java": ("tree_sitter_java", "language"),
    ".rs": ("tree_sitter_rust", "language"),
}


#: Node types that define a named symbol, with the field (or child type) that holds the name.
_DEFINITIONS: dict[str, str] = {
    # python
    "function_definition": "name",
    "class_definition": "name",
    # javascript / typescript
    "function_declaration": "name",
    "generator_function_declaration": "name",
    "method_definition": "name",
    "class_declaration": "name",
    "abstract_class_declaration": "name",
    "interface_declaration": "name",
    "type_alias_declaration": "name",
    "variable_declarator": "name",  # const f = () => ... (only when the value is a function)
    # go
    "method_declaration": "name",
    "type_spec": "name",
    # java
    "constructor_declaration": "name",
    "enum_declaration": "name",
    "record_declaration": "name",
    # rust
    "function_item": "name",
    "struct_item": "name",
    "enum_item": "name",
    "trait_item": "name",
    "impl_item": "type",
    "mod_item": "name",
}


_FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}


_MIN_QUOTE = 8


class LeakLevel(str, Enum):
    """How much a finding of the leak screen gives away, from least to most."""

    NONE = "none"
    """The prompt names an edited symbol, but one the agent already has (an entry point the failing tests
    reference, the workspace's only function or module): no location information."""
    HINT = "hint"
    """Only in quoted error output or a traceback, which the failing tests show on the buggy code too."""
    LEAK = "leak"
    """The prompt narrows where the fix goes (an internal helper, the buggy line) or gives the fix away."""

    @property
    def rank(self) -> int:
        """0 for ``none``, 1 for ``hint``, 2 for ``leak``: compare levels with this."""
        return _RANKS[self.value]


_RANKS = {"none": 0, "hint": 1, "leak": 2}


class LeakHit(BaseModel):
    """One finding of the leak screen: what was found, where, how much it gives away and why.

    Attributes:
        kind: ``names_symbol`` (an edited symbol), ``quotes_changed_line`` (a removed or added line) or
            ``quotes_fixed_expression`` (an expression the gold patch introduces).
        symbol: the edited symbol, the quoted line or the quoted expression.
        file: the file of the gold patch it comes from.
        evidence: the prompt line that contains it.
        level: ``leak``, ``hint`` or ``none`` (see :class:`LeakLevel`).
        reason: one line saying why the finding has its level.
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    symbol: str
    file: str
    evidence: str
    level: LeakLevel = LeakLevel.LEAK
    reason: str = ""


class LeakScreen(BaseModel):
    """The leak screen of one prompt against its task's gold patch.

    Attributes:
        level: the highest level of any finding (``none`` when there is none).
        hits: every finding, ``none``-level ones included (their reason says why they are harmless).
    """

    model_config = ConfigDict(frozen=True)

    level: LeakLevel = LeakLevel.NONE
    hits: list[LeakHit] = Field(default_factory=list)

    def at_least(self, level: LeakLevel) -> list[LeakHit]:
        """The findings at ``level`` or above."""
        return [h for h in self.hits if h.level.rank >= level.rank]
