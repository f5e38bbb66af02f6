"""Audit chain entries (contract §6): their shape and their hash."""

from __future__ import annotations

import re
from typing import Any

from ._canonical import CanonicalJsonError, canonical_json, sha256_hex

__all__ = ["GENESIS_HASH", "audit_entry_hash", "check_entry_shape", "is_chain_index", "is_chain_timestamp"]

#: ``previousHash`` of entry 0 of every chain.
GENESIS_HASH = "0" * 64
HASH = re.compile(r"[0-9a-f]{64}")
_TIMESTAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z", re.ASCII)
_MAX_SAFE_INTEGER = 2**53 - 1
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def is_chain_timestamp(value: object) -> bool:
    """Whether ``value`` is ``YYYY-MM-DDTHH:mm:ss.sssZ`` naming a real instant (no 30 February, no
    hour 24, no leap second), the chain's only form.

    >>> is_chain_timestamp("2026-11-22T03:31:22.768Z"), is_chain_timestamp("2026-02-30T00:00:00.000Z")
    (True, False)
    """
    if not isinstance(value, str):
        return False
    match = _TIMESTAMP.fullmatch(value)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    if not 1 <= month <= 12 or hour > 23 or minute > 59 or second > 59:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = 29 if month == 2 and leap else _DAYS[month - 1]
    return 1 <= day <= days


def is_chain_index(value: object) -> bool:
    """Whether ``value`` is an integer index of the chain, 0 to 2^53 - 1 (``2.0`` counts)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and not value.is_integer():
        return False
    return 0 <= value <= _MAX_SAFE_INTEGER


def check_entry_shape(value: Any) -> str | None:
    """``None`` when ``value`` has the documented members of an audit entry with their types, else
    what is wrong. Other members are allowed: ``entryHash`` covers them like the rest."""
    if not isinstance(value, dict):
        return "the entry is not a JSON object"
    if not is_chain_index(value.get("index")):
        return "index is not a non-negative integer"
    for name in ("tenantId", "actorId", "actorType", "eventType"):
        member = value.get(name)
        if not isinstance(member, str) or member == "":
            return f"{name} is missing or not a non-empty string"
    for name in ("correlationId", "intentId"):
        if name not in value:
            return f"{name} is missing"
        member = value[name]
        if member is not None and (not isinstance(member, str) or member == ""):
            return f"{name} is neither a non-empty string nor null"
    if "payload" not in value:
        return "payload is missing"
    for name in ("previousHash", "entryHash"):
        member = value.get(name)
        if not isinstance(member, str) or HASH.fullmatch(member) is None:
            return f"{name} is not 64 lower-case hex digits"
    if not is_chain_timestamp(value.get("createdAt")):
        return "createdAt is not YYYY-MM-DDTHH:mm:ss.sssZ"
    return None


def audit_entry_hash(entry: dict[str, Any]) -> str | None:
    """``sha256_hex(JCS(entry without entryHash))``, the entry's hash as the chain defines it;
    ``None`` when the entry has no canonical form.

    >>> entry = {"index": 0, "payload": {}}
    >>> len(audit_entry_hash(entry) or "")
    64
    """
    rest = {name: value for name, value in entry.items() if name != "entryHash"}
    try:
        return sha256_hex(canonical_json(rest))
    except CanonicalJsonError:
        return None
