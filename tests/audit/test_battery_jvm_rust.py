"""A shard of the attack battery (see :mod:`_battery`): the Java and Rust tasks. No attack may earn a
reward."""

from __future__ import annotations

from _battery import _JAVA, _RS, shard

globals().update(shard((_JAVA, _RS)))
