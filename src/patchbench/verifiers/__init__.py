"""Harbor-style script verifiers (``tests/test.sh`` writing a reward file), run natively."""

from __future__ import annotations

from .script import DockerPlan, Reward, plan_dockerfile, read_reward, verify_time_downloads

__all__ = ["DockerPlan", "Reward", "plan_dockerfile", "read_reward", "verify_time_downloads"]
