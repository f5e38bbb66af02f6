"""Offline verification of Authority Decision Tokens (contract §5), as an adapter must do before
acting on one."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._jws import load_pyjwt, parse_kid_tenant, resolve_key, split_compact_jws, verify_compact_jws
from ._canonical import parse_json
from .errors import NonceStoreError
from .jwks import KeySource, key_source
from .nonce_store import NonceStore, TokenNonceStore
from .reasons import TOKEN_VERIFICATION_REASONS

__all__ = [
    "AUTHORITY_ISSUER",
    "DEFAULT_CLOCK_SKEW_SECONDS",
    "MAX_TOKEN_LENGTH",
    "MAX_TOKEN_TTL_SECONDS",
    "VerificationResult",
    "verify_authority_token",
]

#: The issuer every Authority Decision Token carries (``iss``).
AUTHORITY_ISSUER = "service-authority"
#: Longest lifetime a token may declare, ``exp - iat``, in seconds.
MAX_TOKEN_TTL_SECONDS = 300
#: Tolerated clock difference between the service and the verifier, in seconds.
DEFAULT_CLOCK_SKEW_SECONDS = 5.0
#: Longer tokens are ``TOKEN_MALFORMED`` before any decoding work.
MAX_TOKEN_LENGTH = 65_536

_STRING_CLAIMS = (
    "intentId",
    "tenantId",
    "adapterId",
    "adapterTarget",
    "targetSystem",
    "proposedAction",
    "decision",
    "issuedAt",
    "expiresAt",
    "nonce",
)


@dataclass(frozen=True)
class VerificationResult:
    """The outcome of :func:`verify_authority_token`.

    ``valid`` is true only when every check passed (and the nonce store, when given, recorded the
    first use); ``reason`` is then ``None``, else one of the contract's reasons. ``claims`` holds
    the verified claims of a valid token. ``detail`` says more, for logs only.
    """

    valid: bool
    reason: str | None
    claims: dict[str, Any] | None
    detail: str = ""


def _fail(reason: str, detail: str) -> VerificationResult:
    return VerificationResult(valid=False, reason=reason, claims=None, detail=detail)


def _is_number(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an integer beyond the double range: JSON.parse makes it Infinity
        return False


def _decode_claims(payload: bytes) -> dict[str, Any] | str:
    try:
        claims = parse_json(payload)
    except ValueError:
        return "the payload is not JSON"
    if not isinstance(claims, dict):
        return "the payload is not a JSON object"
    for name in _STRING_CLAIMS:
        if not isinstance(claims.get(name), str):
            return f"claim {name} is missing or not a string"
    if claims["nonce"] == "":
        return "claim nonce is empty"
    for name in ("iat", "exp"):
        if not _is_number(claims.get(name)):
            return f"claim {name} is missing or not a number"
    if "nbf" in claims and not _is_number(claims["nbf"]):
        return "claim nbf is not a number"
    return claims


def verify_token_signature(
    token: object, keys: KeySource, tenant_id: str, pinned_kid: str | None = None
) -> dict[str, Any] | VerificationResult:
    """Checks 1 to 3 of the contract (structure, kid, signature, claim types, ``iss``, ``aud``);
    the type-checked claims, or the failed result. Shared with :func:`verify_receipt`."""
    parts = split_compact_jws(token, MAX_TOKEN_LENGTH)
    if isinstance(parts, str):
        return _fail("TOKEN_MALFORMED", parts)
    tenant = parse_kid_tenant(parts.kid)
    if tenant is None:
        return _fail("KID_MISMATCH", "kid is not of the form <tenantId>-<seconds>-<base32>")
    if tenant != tenant_id:
        return _fail("KID_MISMATCH", "kid belongs to another tenant")
    if pinned_kid is not None and parts.kid != pinned_kid:
        return _fail("KID_MISMATCH", "kid is not the pinned kid")
    found = resolve_key(keys, parts.kid)
    if isinstance(found, Exception):
        return _fail("KEY_SOURCE_UNAVAILABLE", f"key source failed: {found}")
    if isinstance(found, str):
        return _fail("KID_MISMATCH", found)
    payload = verify_compact_jws(parts, found)
    if isinstance(payload, str):
        return _fail("SIGNATURE_VERIFICATION_FAILED", payload)
    claims = _decode_claims(payload)
    if isinstance(claims, str):
        return _fail("TOKEN_MALFORMED", claims)
    if claims.get("iss") != AUTHORITY_ISSUER:
        return _fail("SIGNATURE_VERIFICATION_FAILED", "iss is not service-authority")
    if claims.get("aud") != claims["adapterId"]:
        return _fail("SIGNATURE_VERIFICATION_FAILED", "aud is not the token adapterId")
    return claims


def _consume(
    store: NonceStore | TokenNonceStore,
    token: str,
    claims: dict[str, Any],
    expires_at: float,
    adapter_id: str,
    target_system: str,
) -> VerificationResult | None:
    try:
        if isinstance(store, TokenNonceStore):
            first_use = store.consume_token(
                token,
                nonce=claims["nonce"],
                expires_at=expires_at,
                adapter_id=adapter_id,
                target_system=target_system,
            )
        else:
            first_use = store.consume(claims["nonce"], expires_at)
    except NonceStoreError as error:
        remote = error.remote_reason
        if error.kind == "rejected" and remote is not None:
            if remote == "TENANT_KILL_SWITCH" or remote in TOKEN_VERIFICATION_REASONS:
                return _fail(remote, str(error))
        return _fail("NONCE_STORE_UNAVAILABLE", f"nonce store could not confirm: {error}")
    except Exception as error:  # noqa: BLE001 - a store that cannot confirm never yields valid
        return _fail("NONCE_STORE_UNAVAILABLE", f"nonce store could not confirm: {error}")
    if first_use is not True:
        return _fail("NONCE_ALREADY_CONSUMED", "the nonce was already consumed")
    return None


def verify_authority_token(
    token: str,
    jwks: Mapping[str, Any] | KeySource,
    *,
    tenant_id: str,
    adapter_id: str,
    target_system: str,
    nonce_store: NonceStore | TokenNonceStore | None = None,
    pinned_kid: str | None = None,
    now: float | None = None,
    clock_skew_seconds: float = DEFAULT_CLOCK_SKEW_SECONDS,
) -> VerificationResult:
    """Verifies an Authority Decision Token offline, as the adapter ``adapter_id`` of tenant
    ``tenant_id`` about to act on ``target_system`` must before any side effect.

    ``jwks`` is the tenant's key set (``{"keys": [...]}``, pinned) or a key source such as
    :class:`~authority_runtime.RemoteJwks`. Checks run in the contract's order and the first failure
    is reported: ``TOKEN_MALFORMED``, ``KID_MISMATCH``, ``SIGNATURE_VERIFICATION_FAILED`` (the
    algorithm is the key's, never the header's; ``iss``; ``aud`` = the token's ``adapterId``),
    ``TOKEN_TTL_EXCEEDS_LIMIT`` (``exp - iat > 300``), ``TOKEN_EXPIRED`` (now ≥ ``exp`` + skew),
    ``TOKEN_NOT_YET_VALID`` (``iat`` or ``nbf`` later than now + skew), ``TOKEN_DECISION_INVALID``,
    ``TOKEN_TENANT_MISMATCH``, ``TOKEN_ADAPTER_MISMATCH``, ``TOKEN_TARGET_MISMATCH``, and last,
    with a nonce store, ``NONCE_ALREADY_CONSUMED``: the nonce is consumed only when everything else
    passed. Without a nonce store the nonce is not checked: an adapter that executes must pass one.

    Never raises for a bad token. Raises :class:`~authority_runtime.MissingDependencyError` when
    PyJWT or cryptography is missing (it refuses to run rather than skip a check), and ``TypeError``
    or ``ValueError`` for misuse (an empty ``tenant_id``, a malformed key set).

    ``now`` is the verifier's clock in unix seconds (default: the system clock).
    """
    load_pyjwt()
    for name, value in (("tenant_id", tenant_id), ("adapter_id", adapter_id), ("target_system", target_system)):
        if not isinstance(value, str) or value == "":
            raise TypeError(f"verify_authority_token: {name} must be a non-empty string")
    if not _is_number(clock_skew_seconds) or not 0 <= clock_skew_seconds <= MAX_TOKEN_TTL_SECONDS:
        raise ValueError("verify_authority_token: clock_skew_seconds must be between 0 and 300")
    keys = key_source(jwks)
    current = time.time() if now is None else now
    skew = clock_skew_seconds

    checked = verify_token_signature(token, keys, tenant_id, pinned_kid)
    if isinstance(checked, VerificationResult):
        return checked
    claims = checked
    # Compared as doubles, as every other verifier of these tokens compares them.
    iat, exp = float(claims["iat"]), float(claims["exp"])
    nbf = None if claims.get("nbf") is None else float(claims["nbf"])
    if exp - iat > MAX_TOKEN_TTL_SECONDS:
        return _fail("TOKEN_TTL_EXCEEDS_LIMIT", f"exp - iat is {exp - iat} s")
    if current >= exp + skew:
        return _fail("TOKEN_EXPIRED", "the token expired")
    if iat > current + skew:
        return _fail("TOKEN_NOT_YET_VALID", "iat lies in the future beyond the allowed skew")
    if nbf is not None and nbf > current + skew:
        return _fail("TOKEN_NOT_YET_VALID", "nbf lies in the future beyond the allowed skew")
    if claims["decision"] != "APPROVED":
        return _fail("TOKEN_DECISION_INVALID", "decision is not APPROVED")
    if claims["tenantId"] != tenant_id:
        return _fail("TOKEN_TENANT_MISMATCH", "token tenantId differs")
    if claims["adapterId"] != adapter_id:
        return _fail("TOKEN_ADAPTER_MISMATCH", "token adapterId differs")
    if claims["targetSystem"] != target_system:
        return _fail("TOKEN_TARGET_MISMATCH", "token targetSystem differs")
    if nonce_store is not None:
        refused = _consume(nonce_store, token, claims, exp + skew, adapter_id, target_system)
        if refused is not None:
            return refused
    return VerificationResult(valid=True, reason=None, claims=claims)
