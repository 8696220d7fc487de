"""Runners: one module per result protocol (registry filled in by the runner modules)."""
