"""Offline verification of intent receipts (contract §6).

Version 1 is verified here. Version 2 (contract §15) adds a Merkle checkpoint and inclusion proofs
and verifies only against a pinned log key; it is refused, with a detail saying so, until this SDK
implements it: the checks of version 1 stay the base of version 2 (``_VERIFIERS`` maps each
version to its own verifier, and ``_RECEIPT_MEMBERS`` to its own member list).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ._canonical import CanonicalJsonError, canonical_json, parse_json
from ._jws import load_pyjwt, resolve_key, verify_signed_statement
from .audit_entry import GENESIS_HASH, HASH, audit_entry_hash, check_entry_shape, is_chain_index, is_chain_timestamp
from .jwks import KeySource, key_source
from .verify import VerificationResult, verify_token_signature

__all__ = ["RECEIPT_SEAL_TYP", "ReceiptVerification", "verify_receipt"]

#: The JWS ``typ`` of a receipt seal.
RECEIPT_SEAL_TYP = "authority-receipt-seal+jws"

_RECEIPT_MEMBERS = {
    1: frozenset({"receiptVersion", "intentId", "tenantId", "decision", "token", "entries", "seal", "jwks"})
}
_SEAL_MEMBERS = frozenset({"tenantId", "intentId", "entryHashes", "headIndex", "headHash", "issuedAt", "signature"})


@dataclass(frozen=True)
class ReceiptVerification:
    """The outcome of :func:`verify_receipt`: ``valid`` with the verified ``receipt`` (a copy) and
    its token's claims (``None`` without a token), or ``reason`` and ``detail``."""

    valid: bool
    reason: str | None
    detail: str
    receipt: dict[str, Any] | None = None
    token_claims: dict[str, Any] | None = None


class _Refused(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def _copy(receipt: Any) -> Any:
    try:
        if isinstance(receipt, (str, bytes, bytearray)):
            return parse_json(receipt)
        return parse_json(json.dumps(receipt, allow_nan=False))
    except (TypeError, ValueError):
        raise _Refused("RECEIPT_MALFORMED", "the receipt is not JSON") from None


def _seal_problem(seal: Any) -> str | None:
    if not isinstance(seal, dict):
        return "seal is missing or not an object"
    unknown = sorted(set(seal) - _SEAL_MEMBERS)
    if unknown:
        return f"unknown seal member {unknown[0]!r}"
    for name in ("tenantId", "intentId", "signature"):
        if not isinstance(seal.get(name), str) or seal[name] == "":
            return f"seal.{name} is missing or not a non-empty string"
    hashes = seal.get("entryHashes")
    if not isinstance(hashes, list) or not all(isinstance(h, str) and HASH.fullmatch(h) for h in hashes):
        return "seal.entryHashes is not an array of 64 lower-case hex digits"
    if not is_chain_index(seal.get("headIndex")):
        return "seal.headIndex is not a non-negative integer"
    if not isinstance(seal.get("headHash"), str) or HASH.fullmatch(seal["headHash"]) is None:
        return "seal.headHash is not 64 lower-case hex digits"
    if not is_chain_timestamp(seal.get("issuedAt")):
        return "seal.issuedAt is not YYYY-MM-DDTHH:mm:ss.sssZ"
    return None


def _shape_problem(value: Any, version: int) -> str | None:
    unknown = sorted(set(value) - _RECEIPT_MEMBERS[version])
    if unknown:
        return f"unknown member {unknown[0]!r}"
    for name in ("intentId", "tenantId", "decision"):
        if not isinstance(value.get(name), str) or value[name] == "":
            return f"{name} is missing or not a non-empty string"
    if "token" not in value or (
        value["token"] is not None and (not isinstance(value["token"], str) or value["token"] == "")
    ):
        return "token is missing or neither a non-empty string nor null"
    entries = value.get("entries")
    if not isinstance(entries, list) or not entries:
        return "entries is missing, not an array or empty"
    for position, entry in enumerate(entries):
        problem = check_entry_shape(entry)
        if problem is not None:
            return f"entries[{position}]: {problem}"
    problem = _seal_problem(value.get("seal"))
    if problem is not None:
        return problem
    jwks = value.get("jwks")
    if not isinstance(jwks, dict) or not isinstance(jwks.get("keys"), list):
        return "jwks is missing or not {keys: [...]}"
    if not all(isinstance(k, dict) for k in jwks["keys"]):
        return "jwks.keys holds a non-object"
    return None


def _check_entries(receipt: dict[str, Any]) -> None:
    entries: list[dict[str, Any]] = receipt["entries"]
    for position, entry in enumerate(entries):
        if audit_entry_hash(entry) != entry["entryHash"]:
            raise _Refused(
                "ENTRY_HASH_MISMATCH", f"entries[{position}] (index {entry['index']}) does not hash to its entryHash"
            )
    for position, entry in enumerate(entries):
        if entry["tenantId"] != receipt["tenantId"]:
            raise _Refused("ENTRY_MISMATCH", f"entries[{position}] belongs to another tenant")
        if entry["intentId"] != receipt["intentId"]:
            raise _Refused("ENTRY_MISMATCH", f"entries[{position}] belongs to another intent")
        if entry["index"] == 0 and entry["previousHash"] != GENESIS_HASH:
            raise _Refused("ENTRY_MISMATCH", "entry 0 does not start from 64 zeros")
        if position == 0:
            continue
        before = entries[position - 1]
        if entry["index"] <= before["index"]:
            raise _Refused("ENTRY_MISMATCH", f"entries[{position}] is not after entries[{position - 1}] in the chain")
        if entry["index"] == before["index"] + 1 and entry["previousHash"] != before["entryHash"]:
            raise _Refused("ENTRY_MISMATCH", f"entry {entry['index']} does not link to entry {before['index']}")


def _check_seal(receipt: dict[str, Any], keys: KeySource) -> None:
    seal, entries = receipt["seal"], receipt["entries"]
    if seal["tenantId"] != receipt["tenantId"]:
        raise _Refused("SEAL_MISMATCH", "the seal names another tenant")
    if seal["intentId"] != receipt["intentId"]:
        raise _Refused("SEAL_MISMATCH", "the seal names another intent")
    if seal["entryHashes"] != [entry["entryHash"] for entry in entries]:
        raise _Refused("SEAL_MISMATCH", "seal.entryHashes is not the entries' hashes in order")
    for entry in entries:
        if entry["index"] > seal["headIndex"]:
            raise _Refused("SEAL_MISMATCH", f"entry {entry['index']} lies after the sealed head {seal['headIndex']}")
        if entry["index"] == seal["headIndex"] and entry["entryHash"] != seal["headHash"]:
            raise _Refused("SEAL_MISMATCH", f"entry {entry['index']} is the sealed head but not headHash")
    fields = {name: value for name, value in seal.items() if name != "signature"}
    try:
        payload = canonical_json(fields)
    except CanonicalJsonError:
        raise _Refused("SEAL_SIGNATURE_INVALID", "the seal has no canonical form") from None
    problem = verify_signed_statement(
        seal["signature"], typ=RECEIPT_SEAL_TYP, tenant_id=receipt["tenantId"], payload=payload, keys=keys
    )
    if isinstance(problem, Exception):
        raise _Refused("KEY_SOURCE_UNAVAILABLE", f"key source failed: {problem}")
    if problem is not None:
        raise _Refused("SEAL_SIGNATURE_INVALID", problem)


def _check_token(receipt: dict[str, Any], keys: KeySource) -> dict[str, Any] | None:
    token = receipt["token"]
    if token is None:
        if receipt["decision"] == "APPROVED":
            raise _Refused("TOKEN_INVALID", "an APPROVED receipt carries no token")
        return None
    checked = verify_token_signature(token, keys, receipt["tenantId"])
    if isinstance(checked, VerificationResult):
        if checked.reason == "KEY_SOURCE_UNAVAILABLE":
            raise _Refused("KEY_SOURCE_UNAVAILABLE", checked.detail)
        raise _Refused("TOKEN_INVALID", f"{checked.reason}: {checked.detail}")
    if checked["intentId"] != receipt["intentId"]:
        raise _Refused("TOKEN_INVALID", "the token names another intent")
    if checked["tenantId"] != receipt["tenantId"]:
        raise _Refused("TOKEN_INVALID", "the token names another tenant")
    if checked["decision"] != "APPROVED":
        raise _Refused("TOKEN_INVALID", "the token decision is not APPROVED")
    if receipt["decision"] != "APPROVED":
        raise _Refused("TOKEN_INVALID", f"a token was issued but the receipt decision is {receipt['decision']}")
    return checked


def _check_embedded_jwks(receipt: dict[str, Any], keys: KeySource) -> None:
    seen: set[str] = set()
    for position, jwk in enumerate(receipt["jwks"]["keys"]):
        kid = jwk.get("kid")
        if not isinstance(kid, str) or kid == "":
            raise _Refused("EMBEDDED_JWKS_MISMATCH", f"jwks.keys[{position}] has no kid")
        if kid in seen:
            raise _Refused("EMBEDDED_JWKS_MISMATCH", f"jwks lists kid {kid} twice")
        seen.add(kid)
        found = resolve_key(keys, kid)
        if isinstance(found, Exception):
            raise _Refused("KEY_SOURCE_UNAVAILABLE", f"key source failed: {found}")
        if isinstance(found, str):
            raise _Refused("EMBEDDED_JWKS_MISMATCH", f"embedded key {kid} is not pinned")
        try:
            same = canonical_json(found) == canonical_json(jwk)
        except CanonicalJsonError:
            same = False
        if not same:
            raise _Refused("EMBEDDED_JWKS_MISMATCH", f"embedded key {kid} differs from the pinned key")


def _verify_v1(receipt: dict[str, Any], keys: KeySource) -> dict[str, Any] | None:
    _check_entries(receipt)
    _check_seal(receipt, keys)
    claims = _check_token(receipt, keys)
    _check_embedded_jwks(receipt, keys)
    return claims


_VERIFIERS: dict[int, Callable[[dict[str, Any], KeySource], dict[str, Any] | None]] = {1: _verify_v1}


def verify_receipt(
    receipt: Mapping[str, Any] | str | bytes,
    jwks: Mapping[str, Any] | KeySource,
    *,
    expected_tenant_id: str | None = None,
) -> ReceiptVerification:
    """Verifies an intent's receipt (``GET /intent/:id/receipt``, the dict or its JSON text)
    offline. Trust comes only from ``jwks``, the keys you pin: the tenant's JWKS merged with its
    archive of RETIRED keys (``{"keys": [*current, *archive]}``), or a key source. The receipt's
    embedded ``jwks`` is only compared with them, never trusted.

    Checks, in order (the first failure is the ``reason``): ``RECEIPT_MALFORMED`` (version, members,
    types); ``TENANT_MISMATCH`` (with ``expected_tenant_id``); ``ENTRY_HASH_MISMATCH``;
    ``ENTRY_MISMATCH`` (another tenant or intent, order, links of consecutive entries);
    ``SEAL_MISMATCH`` (the seal binds exactly these entries at or before its head);
    ``SEAL_SIGNATURE_INVALID``; ``TOKEN_INVALID`` (signature under a pinned key, this intent and
    tenant, APPROVED; expiry is not checked and no nonce is consumed); ``EMBEDDED_JWKS_MISMATCH``.
    ``KEY_SOURCE_UNAVAILABLE`` only comes from a key source that raises.

    Never raises for a bad receipt; raises :class:`~authority_runtime.MissingDependencyError`
    without PyJWT and cryptography, ``TypeError`` for a malformed ``jwks``.
    """
    load_pyjwt()
    keys = key_source(jwks, merge_identical=True)
    if expected_tenant_id is not None and (not isinstance(expected_tenant_id, str) or expected_tenant_id == ""):
        raise TypeError("expected_tenant_id must be a non-empty string")
    try:
        copy = _copy(receipt)
        if not isinstance(copy, dict):
            raise _Refused("RECEIPT_MALFORMED", "the receipt is not a JSON object")
        version = copy.get("receiptVersion")
        if isinstance(version, float) and version.is_integer():
            version = int(version)
        if version == 2 and not isinstance(version, bool):
            raise _Refused(
                "RECEIPT_MALFORMED", "receiptVersion 2 (Merkle proofs) is not supported by this SDK version yet"
            )
        if not isinstance(version, int) or isinstance(version, bool) or version not in _VERIFIERS:
            raise _Refused("RECEIPT_MALFORMED", f"receiptVersion {version!r} is not supported")
        verifier = _VERIFIERS[version]
        problem = _shape_problem(copy, version)
        if problem is not None:
            raise _Refused("RECEIPT_MALFORMED", problem)
        if expected_tenant_id is not None and copy["tenantId"] != expected_tenant_id:
            raise _Refused("TENANT_MISMATCH", "the receipt belongs to another tenant")
        claims = verifier(copy, keys)
    except _Refused as refused:
        return ReceiptVerification(valid=False, reason=refused.reason, detail=refused.detail)
    return ReceiptVerification(valid=True, reason=None, detail="", receipt=copy, token_claims=claims)
