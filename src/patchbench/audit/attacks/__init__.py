"""An adversarial battery: named attack candidates that try to earn a reward without fixing the bug.

Each attack is one entry of a declarative table: a name, a language label, a description, a predicate
(does the attack apply to this task's language and result protocol?) and a candidate builder. The
builders are a few shapes: code appended to every source file of the task (it runs when the buggy module
is loaded), files written over the workspace (for a repository task, over the paths of
``context_files``/``buggy_files``; ``None`` content deletes a file) or a unified diff. The catalogue
(:data:`CATALOGUE`) maps each name to an :class:`Attack` whose ``build(task)`` returns the candidate, or
``None`` when the attack does not apply. It covers Python (pytest and TAP harnesses),
JavaScript/TypeScript (``node --test``), Go, Java (Maven), Rust (cargo) and SQL (a TAP harness), the
hidden test files themselves (rewritten, emptied, deleted, skipped), and the harness (resource bombs,
symlinks, paths that leave the workspace). The attacker is a worst case: it knows the F2P/P2P test ids
and the hidden tests' paths and content.

:func:`run_attacks` runs every applicable attack against every task through the ordinary engine (the
same flow as :func:`patchbench.run`) and reports one row per attack × task. An attack is *rewarded*
when its verdict is ``resolved`` or its reward is above 0: a hole in the grading.

Resource attacks are bounded on purpose (at most 512 forked processes, 6 GiB of memory, 96 MiB of output)
so that a sandbox without limits cannot take the host down with it; each bound is above the sandbox's
default limit (:class:`patchbench.sandbox.Limits`).
"""

from __future__ import annotations

# The language tables register their attacks in this order: the catalogue keeps it.
# isort: off
from . import python, paths, javascript, go, java, rust, sql, hidden  # noqa: F401
from . import redteam_python, redteam_js, redteam_go, redteam_java, redteam_rust, redteam_sql  # noqa: F401
from . import redteam2, redteam_oracle  # noqa: F401
from . import redteam3  # noqa: F401
from . import redteam4  # noqa: F401
from . import redteam5  # noqa: F401
from . import redteam6  # noqa: F401
from . import redteam7  # noqa: F401
from . import redteam8  # noqa: F401
from . import redteam9  # noqa: F401
from . import redteam10  # noqa: F401
from . import redteam11  # noqa: F401
from . import redteam12  # noqa: F401
from . import redteam13  # noqa: F401
from . import redteam14  # noqa: F401
from . import redteam15  # noqa: F401
from . import redteam16  # noqa: F401
from . import redteam17  # noqa: F401
from . import redteam18  # noqa: F401
from . import redteam19  # noqa: F401
from . import redteam20  # noqa: F401
from . import redteam21  # noqa: F401
from . import redteam22  # noqa: F401
from . import followups  # noqa: F401
from . import redteam26  # noqa: F401

# isort: on
from ._kit import CATALOGUE, Attack
from ._run import AttackReport, AttackResult, GoldResult, PlannedAttack, judge, plan_attacks, run_attacks

__all__ = [
    "CATALOGUE",
    "Attack",
    "AttackReport",
    "AttackResult",
    "GoldResult",
    "PlannedAttack",
    "judge",
    "plan_attacks",
    "run_attacks",
]
