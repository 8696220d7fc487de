"""Reads back the verifier's verdict so that it shows up as a pytest result."""

from pathlib import Path

LOGS = Path("/logs/verifier")


def test_reward_is_one():
    reward = (LOGS / "reward.txt").read_text().strip() if (LOGS / "reward.txt").is_file() else None
    ratio_file = LOGS / "pass_ratio.txt"
    ratio = ratio_file.read_text().strip() if ratio_file.is_file() else "n/a"
    print(f"reward={reward} pass_ratio={ratio}")
    assert reward == "1", f"reward.txt holds {reward!r}"
