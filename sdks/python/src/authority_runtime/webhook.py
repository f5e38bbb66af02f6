"""Verification of webhook deliveries (contract §7) before a receiver acts on them."""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from ._canonical import CanonicalJsonError, canonical_json, parse_json

__all__ = ["WEBHOOK_SIGNATURE_HEADER", "WEBHOOK_TOLERANCE_SECONDS", "WebhookVerification", "verify_webhook_signature"]

#: The header carrying ``sha256=<hex HMAC-SHA256(secret, raw body)>``.
WEBHOOK_SIGNATURE_HEADER = "x-service-signature"
#: How far the signed ``sentAt`` may be from the receiver's clock, in seconds.
WEBHOOK_TOLERANCE_SECONDS = 300.0

_SIGNATURE = re.compile(r"sha256=[0-9a-f]{64}")
_TIMESTAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})", re.ASCII)


@dataclass(frozen=True)
class WebhookVerification:
    """``valid`` with the parsed ``payload``, or ``reason``: ``SIGNATURE_MISSING``,
    ``SIGNATURE_MISMATCH``, ``PAYLOAD_MALFORMED``, ``PAYLOAD_SIGNATURE_MISMATCH``,
    ``TIMESTAMP_MISMATCH`` or ``TIMESTAMP_OUT_OF_TOLERANCE``."""

    valid: bool
    reason: str | None
    payload: dict[str, Any] | None


def _fail(reason: str) -> WebhookVerification:
    return WebhookVerification(valid=False, reason=reason, payload=None)


def _mac(secret: str, data: bytes) -> bytes:
    return hmac.new(secret.encode("utf-8"), data, hashlib.sha256).digest()


def _matches(signature: str, digest: bytes) -> bool:
    return hmac.compare_digest(bytes.fromhex(signature[len("sha256=") :]), digest)


def _is_payload(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    text = ("eventId", "event", "tenantId", "timestamp", "sentAt", "signature")
    if not all(isinstance(value.get(name), str) for name in text):
        return False
    if not all(value.get(name) is None or isinstance(value.get(name), str) for name in ("intentId", "decision")):
        return False
    if "intentId" not in value or "decision" not in value or "riskScore" not in value:
        return False
    risk = value["riskScore"]
    if risk is not None and (isinstance(risk, bool) or not isinstance(risk, (int, float))):
        return False
    return _SIGNATURE.fullmatch(value["signature"]) is not None


def parse_timestamp(text: str) -> float | None:
    """Unix seconds of an RFC 3339 date-time with ``Z`` or an offset; ``None`` for anything else."""
    match = _TIMESTAMP.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    fraction = match.group(7) or "0"
    zone = match.group(8)
    try:
        offset = (
            timezone.utc
            if zone == "Z"
            else timezone((1 if zone[0] == "+" else -1) * timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
        )
        moment = datetime(year, month, day, hour, minute, second, tzinfo=offset)
    except ValueError:
        return None
    return moment.timestamp() + float(f"0.{fraction}")


def verify_webhook_signature(
    secret: str | Sequence[str],
    raw_body: bytes | str,
    signature_header: str | Sequence[str] | None,
    sent_at: str | int | None = None,
    *,
    now: float | None = None,
    tolerance_seconds: float = WEBHOOK_TOLERANCE_SECONDS,
) -> WebhookVerification:
    """Verifies a webhook delivery before you act on it, in this order (constant-time comparisons):

    1. the ``x-service-signature`` header (``signature_header``) is ``sha256=<hex HMAC-SHA256(secret,
       raw body)>`` over the body exactly as received;
    2. the body is a delivery payload whose own ``signature`` is the HMAC of the JCS of the payload
       without ``signature``;
    3. ``sent_at``, when given, is the ``x-service-timestamp`` header; it is not signed, so it must
       name the same second as the signed ``sentAt`` (else ``TIMESTAMP_MISMATCH``);
    4. the signed ``sentAt`` is within ``tolerance_seconds`` (300) of ``now`` (unix seconds; default
       the system clock), so a captured delivery cannot be replayed later.

    ``secret`` may be several secrets while you switch to a rotated one. Delivery is at least once:
    remember the ``eventId`` values you processed. Raises ``TypeError`` only without a secret.
    """
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets or any(not isinstance(s, str) or s == "" for s in secrets):
        raise TypeError("verify_webhook_signature needs the endpoint secret")
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else bytes(raw_body)
    header = signature_header
    if not isinstance(header, str) and header is not None:
        values = list(header)
        header = values[0] if len(values) == 1 else None
    if not isinstance(header, str) or _SIGNATURE.fullmatch(header) is None:
        return _fail("SIGNATURE_MISSING")
    matched: str | None = None
    for candidate in secrets:  # every secret is tried, so timing does not tell which one matched
        if _matches(header, _mac(candidate, body)) and matched is None:
            matched = candidate
    if matched is None:
        return _fail("SIGNATURE_MISMATCH")

    try:
        payload = parse_json(body.decode("utf-8", errors="replace"))
    except ValueError:
        return _fail("PAYLOAD_MALFORMED")
    if not _is_payload(payload):
        return _fail("PAYLOAD_MALFORMED")
    unsigned = {name: value for name, value in payload.items() if name != "signature"}
    try:
        canonical = canonical_json(unsigned)
    except CanonicalJsonError:
        return _fail("PAYLOAD_MALFORMED")
    if not _matches(payload["signature"], _mac(matched, canonical.encode("utf-8"))):
        return _fail("PAYLOAD_SIGNATURE_MISMATCH")

    signed_at = parse_timestamp(payload["sentAt"])
    if signed_at is None:
        return _fail("PAYLOAD_MALFORMED")
    if sent_at is not None and str(sent_at).strip() != str(int(signed_at // 1)):
        return _fail("TIMESTAMP_MISMATCH")
    current = time.time() if now is None else now
    if abs(current - signed_at) > tolerance_seconds:
        return _fail("TIMESTAMP_OUT_OF_TOLERANCE")
    return WebhookVerification(valid=True, reason=None, payload=payload)
