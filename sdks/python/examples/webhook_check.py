"""The receiver's side of webhooks: check a delivery before acting on it (call ``handle`` from
your web framework with the raw body and the headers)."""

import os
from collections.abc import Mapping

from authority_runtime import verify_webhook_signature

SECRET = os.environ["AUTHORITY_WEBHOOK_SECRET"]  # whsec_..., shown once when the endpoint was created
seen_event_ids: set[str] = set()  # delivery is at least once: keep these in your database


def handle(raw_body: bytes, headers: Mapping[str, str]) -> int:
    """The HTTP status to answer: 204 when processed (or already processed), 400 when refused."""
    result = verify_webhook_signature(
        SECRET, raw_body, headers.get("x-service-signature"), headers.get("x-service-timestamp")
    )
    if not result.valid or result.payload is None:
        print(f"refused delivery: {result.reason}")
        return 400
    if result.payload["eventId"] not in seen_event_ids:
        seen_event_ids.add(result.payload["eventId"])
        print(f"{result.payload['event']} for intent {result.payload['intentId']}")
    return 204
