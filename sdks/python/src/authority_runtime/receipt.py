"""Offline verification of intent receipts: version 1 (contract §6) and version 2 (contract §15),
which adds the log's checkpoint for the sealed head and each entry's inclusion proof, verified
against a pinned log key. The checks and their order are those of the TypeScript SDK
(sdks/test-vectors/receipts.json holds the shared vectors).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._canonical import CanonicalJsonError, canonical_json, parse_json
from ._jws import load_pyjwt, resolve_key, verify_signed_statement
from ._note import ed25519_note_verifier
from .audit_entry import GENESIS_HASH, HASH, audit_entry_hash, check_entry_shape, is_chain_index, is_chain_timestamp
from .jwks import KeySource, key_source
from .transparency import (
    TransparencyFormatError,
    VerifierKey,
    leaf_hash,
    parse_verifier_key,
    verify_checkpoint,
    verify_inclusion_proof,
)
from .verify import VerificationResult, verify_token_signature

__all__ = ["RECEIPT_SEAL_TYP", "ReceiptVerification", "verify_receipt"]

#: The JWS ``typ`` of a receipt seal.
RECEIPT_SEAL_TYP = "authority-receipt-seal+jws"

_V1_MEMBERS = frozenset({"receiptVersion", "intentId", "tenantId", "decision", "token", "entries", "seal", "jwks"})
_RECEIPT_MEMBERS = {1: _V1_MEMBERS, 2: _V1_MEMBERS | {"checkpoint", "inclusion"}}
_INCLUSION_MEMBERS = frozenset({"index", "proof"})
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


def _log_proof_problem(value: dict[str, Any]) -> str | None:
    checkpoint = value.get("checkpoint")
    if not isinstance(checkpoint, str) or checkpoint == "":
        return "checkpoint is missing or not a non-empty string"
    inclusion, entries = value.get("inclusion"), value["entries"]
    if not isinstance(inclusion, list):
        return "inclusion is missing or not an array"
    if len(inclusion) != len(entries):
        return f"inclusion holds {len(inclusion)} proofs for {len(entries)} entries"
    for position, (item, entry) in enumerate(zip(inclusion, entries)):
        if not isinstance(item, dict):
            return f"inclusion[{position}] is not an object"
        unknown = sorted(set(item) - _INCLUSION_MEMBERS)
        if unknown:
            return f"unknown inclusion[{position}] member {unknown[0]!r}"
        if not is_chain_index(item.get("index")) or item["index"] != entry["index"]:
            return f"inclusion[{position}].index is not the index of entries[{position}]"
        proof = item.get("proof")
        if not isinstance(proof, list) or not all(isinstance(h, str) and HASH.fullmatch(h) for h in proof):
            return f"inclusion[{position}].proof is not an array of 64 lower-case hex digits"
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
    if version == 2:
        return _log_proof_problem(value)
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


def _check_log_proof(receipt: dict[str, Any], log_key: VerifierKey) -> None:
    outcome = verify_checkpoint(receipt["checkpoint"], log_key)
    if not outcome.valid or outcome.checkpoint is None:
        raise _Refused("CHECKPOINT_INVALID", f"{outcome.reason}: {outcome.detail}")
    checkpoint, tenant = outcome.checkpoint, receipt["tenantId"]
    if not checkpoint.origin.endswith(f"/audit/{tenant}"):
        raise _Refused("CHECKPOINT_INVALID", f"the checkpoint is of {checkpoint.origin}, not of tenant {tenant}")
    head_size = int(receipt["seal"]["headIndex"]) + 1
    if checkpoint.size != head_size:
        raise _Refused(
            "CHECKPOINT_INVALID",
            f"the checkpoint is for tree size {checkpoint.size}, the seal's head for {head_size}",
        )
    for entry, item in zip(receipt["entries"], receipt["inclusion"]):
        index = int(entry["index"])
        verified = verify_inclusion_proof(
            index,
            checkpoint.size,
            leaf_hash(entry["entryHash"]),
            [bytes.fromhex(h) for h in item["proof"]],
            checkpoint.root_hash,
        )
        if not verified.valid:
            raise _Refused(
                "INCLUSION_PROOF_INVALID",
                f"entry {index} is not in the checkpoint's tree: {verified.reason}: {verified.detail}",
            )


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


def _pinned_log_key(log_key: object) -> VerifierKey | None:
    if log_key is None:
        return None
    if isinstance(log_key, VerifierKey):
        # Read again from its text form, so that a hand-built key is held to the same rules.
        try:
            data = base64.b64encode(bytes([log_key.type]) + bytes(log_key.public_key)).decode("ascii")
            log_key = f"{log_key.name}+{log_key.key_id:08x}+{data}"
        except (TypeError, ValueError) as error:
            raise TypeError(f"log_key is a VerifierKey with fields of the wrong types: {error}") from None
    if not isinstance(log_key, str):
        raise TypeError("log_key must be the log's verifier key text or a VerifierKey")
    try:
        parsed = parse_verifier_key(log_key)
        ed25519_note_verifier(parsed)
    except TransparencyFormatError as error:
        raise ValueError(f"log_key is not an Ed25519 log verifier key: {error}") from None
    return parsed


def verify_receipt(
    receipt: Mapping[str, Any] | str | bytes,
    jwks: Mapping[str, Any] | KeySource,
    *,
    expected_tenant_id: str | None = None,
    log_key: str | VerifierKey | None = None,
) -> ReceiptVerification:
    """Verifies an intent's receipt (``GET /intent/:id/receipt``, the dict or its JSON text)
    offline. Trust comes only from ``jwks``, the keys you pin: the tenant's JWKS merged with its
    archive of RETIRED keys (``{"keys": [*current, *archive]}``), or a key source; and, for a
    version-2 receipt, from ``log_key``, the tenant's log verifier key
    (``GET /.well-known/authority/:tenantId/log-key``, ``<origin>+<key ID>+<base64>``). The receipt's
    embedded ``jwks`` is only compared with them, never trusted.

    Checks, in order (the first failure is the ``reason``): ``RECEIPT_MALFORMED`` (version 1 or 2,
    members, types; for version 2 a non-empty ``checkpoint`` and one ``{index, proof}`` per entry,
    in order); ``LOG_KEY_MISSING`` (a version-2 receipt without ``log_key``: nothing is skipped);
    ``TENANT_MISMATCH`` (with ``expected_tenant_id``); ``ENTRY_HASH_MISMATCH``; ``ENTRY_MISMATCH``
    (another tenant or intent, order, links of consecutive entries); ``SEAL_MISMATCH`` (the seal
    binds exactly these entries at or before its head); ``SEAL_SIGNATURE_INVALID``;
    ``CHECKPOINT_INVALID`` (version 2: not a checkpoint note signed by the log key for its own
    origin, an origin not ending in ``/audit/<tenantId>``, or a tree size other than
    ``seal.headIndex + 1``; witness cosignatures are ignored); ``INCLUSION_PROOF_INVALID`` (version
    2: an entry's RFC 9162 proof does not lead to the checkpoint's root); ``TOKEN_INVALID``
    (signature under a pinned key, this intent and tenant, APPROVED; expiry is not checked and no
    nonce is consumed); ``EMBEDDED_JWKS_MISMATCH``. ``KEY_SOURCE_UNAVAILABLE`` only comes from a key
    source that raises. A version-1 receipt verifies the same with or without ``log_key``; a
    caller who needs the log's proof checks ``result.receipt["receiptVersion"] == 2``.

    Never raises for a bad receipt; raises :class:`~authority_runtime.MissingDependencyError`
    without PyJWT and cryptography, ``TypeError`` for a malformed ``jwks`` or a ``log_key`` that is
    not text, ``ValueError`` for a ``log_key`` that is not an Ed25519 log verifier key.
    """
    load_pyjwt()
    keys = key_source(jwks, merge_identical=True)
    if expected_tenant_id is not None and (not isinstance(expected_tenant_id, str) or expected_tenant_id == ""):
        raise TypeError("expected_tenant_id must be a non-empty string")
    pinned_log_key = _pinned_log_key(log_key)
    try:
        copy = _copy(receipt)
        if not isinstance(copy, dict):
            raise _Refused("RECEIPT_MALFORMED", "the receipt is not a JSON object")
        version = copy.get("receiptVersion")
        if isinstance(version, float) and version.is_integer():
            version = int(version)
        if not isinstance(version, int) or isinstance(version, bool) or version not in _RECEIPT_MEMBERS:
            raise _Refused("RECEIPT_MALFORMED", f"receiptVersion {version!r} is not 1 or 2")
        problem = _shape_problem(copy, version)
        if problem is not None:
            raise _Refused("RECEIPT_MALFORMED", problem)
        if version == 2 and pinned_log_key is None:
            raise _Refused(
                "LOG_KEY_MISSING", "a version-2 receipt verifies only against the tenant's pinned log key (log_key)"
            )
        if expected_tenant_id is not None and copy["tenantId"] != expected_tenant_id:
            raise _Refused("TENANT_MISMATCH", "the receipt belongs to another tenant")
        _check_entries(copy)
        _check_seal(copy, keys)
        if version == 2 and pinned_log_key is not None:
            _check_log_proof(copy, pinned_log_key)
        claims = _check_token(copy, keys)
        _check_embedded_jwks(copy, keys)
    except _Refused as refused:
        return ReceiptVerification(valid=False, reason=refused.reason, detail=refused.detail)
    return ReceiptVerification(valid=True, reason=None, detail="", receipt=copy, token_claims=claims)
