"""``python -m patchbench.cli``."""

from . import main

main()
