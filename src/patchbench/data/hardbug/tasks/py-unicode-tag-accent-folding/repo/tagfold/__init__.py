"""tagfold: accent-, case- and width-insensitive tag bookkeeping."""

from .index import TagIndex
from .text import display_form, fold, strip_marks

__all__ = ["TagIndex", "display_form", "fold", "strip_marks"]
