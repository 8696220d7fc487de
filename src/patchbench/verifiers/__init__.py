"""Harbor-style script verifiers (``tests/test.sh`` writing a reward file), run natively."""

from __future__ import annotations

from .image import Image, image_spec, prepare_image
from .script import Reward, read_reward, verify_time_downloads

__all__ = ["Image", "Reward", "image_spec", "prepare_image", "read_reward", "verify_time_downloads"]
