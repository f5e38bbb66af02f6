"""Compact JWS machinery shared by the token and receipt verifiers: structural checks, kid
parsing, key look-up, and signature verification through PyJWT with the algorithm fixed by the key.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ._canonical import parse_json
from .errors import MissingDependencyError
from .jwks import KeySource, key_algorithm

__all__ = [
    "CompactJws",
    "load_pyjwt",
    "parse_kid_tenant",
    "resolve_key",
    "split_compact_jws",
    "verify_compact_jws",
    "verify_signed_statement",
]

_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
# The tenant part may contain "-", so the fixed-shape parts are anchored at the end. Like
# JavaScript's ".", the tenant part never spans a line terminator.
_KID = re.compile(r"([^\n\r\u2028\u2029]+)-([0-9]{1,12})-([A-Z2-7]{8})")
_MIN_RSA_BITS = 2048
# Half the order n of the P-256 group (cryptography does not publish n). For every ECDSA signature
# (r, s), (r, n - s) verifies too; the service mints only the one with s <= n/2, so a token has
# exactly one valid encoding, and the verifiers refuse the other (docs/decisions.md, "Hardening").
_P256_HALF_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551 // 2


def load_pyjwt() -> ModuleType:
    """PyJWT with its cryptography backend, or :class:`MissingDependencyError`: the verifiers
    refuse to run rather than skip a check."""
    try:
        import jwt
        from jwt.algorithms import has_crypto
    except ImportError as error:
        raise MissingDependencyError(
            "authority_runtime's verifiers need PyJWT and cryptography: "
            "pip install 'authority-runtime[verify]' (Debian: apt-get install python3-jwt python3-cryptography)"
        ) from error
    if not has_crypto:
        raise MissingDependencyError(
            "PyJWT is installed without cryptography: pip install 'authority-runtime[verify]' "
            "(Debian: apt-get install python3-cryptography)"
        )
    return jwt


def b64url_decode(part: str) -> bytes | None:
    """Decodes canonical unpadded base64url; ``None`` for anything else (several texts that decode
    to the same bytes would let a modified JWS still verify)."""
    if _BASE64URL.fullmatch(part) is None or len(part) % 4 == 1:
        return None
    raw = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    if base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii") != part:
        return None
    return raw


@dataclass(frozen=True)
class CompactJws:
    """A compact JWS that passed the structural checks; nothing in it is verified yet."""

    header: dict[str, Any]
    alg: str
    kid: str
    compact: str


def split_compact_jws(value: object, max_length: int, subject: str = "the token") -> CompactJws | str:
    """The parts of a compact JWS, or why ``value`` is not one: not a string, longer than
    ``max_length``, not three canonical base64url parts (header and payload non-empty), a header
    that is not a JSON object with a string ``alg`` and a non-empty string ``kid``."""
    if not isinstance(value, str):
        return f"{subject} is not a string"
    if len(value) > max_length:
        return f"{subject} is too long"
    parts = value.split(".")
    if len(parts) != 3:
        return f"{subject} does not have three parts"
    if parts[0] == "" or parts[1] == "":
        return "empty header or payload"
    decoded = [b64url_decode(part) for part in parts]
    if any(raw is None for raw in decoded):
        return "a part is not canonical base64url"
    try:
        header = parse_json(decoded[0] or b"")
    except ValueError:
        return "the header is not JSON"
    if not isinstance(header, dict):
        return "the header is not a JSON object"
    alg, kid = header.get("alg"), header.get("kid")
    if not isinstance(alg, str):
        return "the header has no alg"
    if not isinstance(kid, str) or kid == "":
        return "the header has no kid"
    return CompactJws(header=header, alg=alg, kid=kid, compact=value)


def parse_kid_tenant(kid: str) -> str | None:
    """The tenant of a kid of the form ``<tenantId>-<unix seconds>-<8 base32 chars>``, else ``None``.

    >>> parse_kid_tenant("acme-corp-1700000000-ABCDEFGH")
    'acme-corp'
    """
    match = _KID.fullmatch(kid)
    return None if match is None else match.group(1)


def resolve_key(source: KeySource, kid: str) -> dict[str, Any] | str | Exception:
    """The key of ``kid`` (a dict), why it is unknown (a str), or the error of a failing source."""
    try:
        jwk = source.get_key(kid)
    except Exception as error:  # noqa: BLE001 - any failure of the source means "unavailable"
        return error
    if jwk is None:
        return "kid is not in the key set"
    if not hasattr(jwk, "get") or (jwk.get("kid") is not None and jwk.get("kid") != kid):
        return "the key source returned a key of another kid"
    return dict(jwk)


def _public_key(jwt: ModuleType, jwk: dict[str, Any], alg: str) -> Any:
    algorithms = jwt.algorithms
    if alg == "EdDSA":
        return algorithms.OKPAlgorithm.from_jwk({"kty": "OKP", "crv": "Ed25519", "x": jwk.get("x")})
    if alg == "ES256":
        members = {"kty": "EC", "crv": "P-256", "x": jwk.get("x"), "y": jwk.get("y")}
        return algorithms.ECAlgorithm.from_jwk(members)
    key = algorithms.RSAAlgorithm.from_jwk({"kty": "RSA", "n": jwk.get("n"), "e": jwk.get("e")})
    if key.key_size < _MIN_RSA_BITS:
        raise ValueError(f"RSA keys below {_MIN_RSA_BITS} bits are refused")
    return key


def has_high_s(signature: bytes) -> bool:
    """Whether a raw ``r || s`` ES256 signature has s > n/2 (PyJWT accepts both twins). A signature
    that is not 64 bytes is left to PyJWT, which refuses it.

    >>> has_high_s(bytes(32) + (_P256_HALF_ORDER + 1).to_bytes(32, "big"))
    True
    >>> has_high_s(bytes(32) + _P256_HALF_ORDER.to_bytes(32, "big"))
    False
    """
    return len(signature) == 64 and int.from_bytes(signature[32:], "big") > _P256_HALF_ORDER


def verify_compact_jws(parts: CompactJws, jwk: dict[str, Any]) -> bytes | str:
    """The verified payload bytes, or why the signature does not verify. The algorithm is the key's
    own ``alg`` and the header must name exactly it, so ``alg: none``, HS256 keyed with the public
    key and every other algorithm confusion fail here; an ES256 signature must be low-S."""
    jwt = load_pyjwt()
    try:
        alg = key_algorithm(jwk)
    except ValueError as error:
        return f"unusable key: {error}"
    if parts.alg != alg:
        return f"header alg {parts.alg!r} is not the key's {alg}"
    try:
        key = _public_key(jwt, jwk, alg)
    except Exception as error:  # noqa: BLE001 - a key PyJWT cannot load never verifies anything
        return f"unusable key: {error}"
    if "crit" in parts.header:
        return "critical header extensions are not supported"
    header_part, payload_part, signature_part = parts.compact.split(".")
    signing_input = f"{header_part}.{payload_part}".encode("ascii")
    # The parts passed the canonical base64url check, so they decode.
    payload, signature = b64url_decode(payload_part), b64url_decode(signature_part)
    if alg == "ES256" and has_high_s(signature or b""):
        return "the ES256 signature is not in low-S form"
    try:
        algorithm = jwt.PyJWS().get_algorithm_by_name(alg)
        verified = algorithm.verify(signing_input, algorithm.prepare_key(key), signature)
    except Exception as error:  # noqa: BLE001 - whatever PyJWT raises, the signature did not verify
        return f"signature check failed: {error}"
    if verified is not True or payload is None:
        return "signature check failed"
    return payload


def verify_signed_statement(
    jws: object, *, typ: str, tenant_id: str, payload: str, keys: KeySource
) -> None | str | Exception:
    """Checks a signed statement of the service (a receipt seal): a compact JWS with header
    ``typ``, a kid of ``tenant_id`` found in ``keys``, a signature under that key's own algorithm,
    and exactly ``payload`` as its content. ``None`` when it verifies, the problem (a str), or the
    error of a failing key source."""
    parts = split_compact_jws(jws, 2**53, "the signature")
    if isinstance(parts, str):
        return parts
    if parts.header.get("typ") != typ:
        return f"header typ {parts.header.get('typ')!r} is not {typ}"
    tenant = parse_kid_tenant(parts.kid)
    if tenant is None:
        return "kid is not of the form <tenantId>-<seconds>-<base32>"
    if tenant != tenant_id:
        return "kid belongs to another tenant"
    found = resolve_key(keys, parts.kid)
    if isinstance(found, Exception):
        return found
    if isinstance(found, str):
        return f"{found} (kid {parts.kid})"
    verified = verify_compact_jws(parts, found)
    if isinstance(verified, str):
        return verified
    try:
        text = verified.decode("utf-8-sig")  # a leading BOM is dropped, as a UTF-8 decoder does
    except UnicodeDecodeError:
        return "the signed payload is not UTF-8"
    if text != payload:
        return "the signed payload is not the JCS of the other fields"
    return None
