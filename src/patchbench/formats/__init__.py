"""Dataset formats: one module per on-disk format (registry filled in by the format modules)."""
