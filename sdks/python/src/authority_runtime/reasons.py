"""The reasons the verifiers report, as the contract and the TypeScript SDK name them."""

from __future__ import annotations

__all__ = [
    "OPERATIONAL_FAILURE_REASONS",
    "RECEIPT_VERIFICATION_REASONS",
    "TOKEN_VERIFICATION_REASONS",
    "WEBHOOK_VERIFICATION_REASONS",
]

#: Contract §5, in the order the checks run; the first failing check is the one reported.
TOKEN_VERIFICATION_REASONS: tuple[str, ...] = (
    "TOKEN_MALFORMED",
    "KID_MISMATCH",
    "SIGNATURE_VERIFICATION_FAILED",
    "TOKEN_TTL_EXCEEDS_LIMIT",
    "TOKEN_EXPIRED",
    "TOKEN_NOT_YET_VALID",
    "TOKEN_DECISION_INVALID",
    "TOKEN_TENANT_MISMATCH",
    "TOKEN_ADAPTER_MISMATCH",
    "TOKEN_TARGET_MISMATCH",
    "NONCE_ALREADY_CONSUMED",
)

#: Reasons outside the ordered list: ``TENANT_KILL_SWITCH`` comes from the service's consume
#: endpoint; ``KEY_SOURCE_UNAVAILABLE`` (no key set could be loaded) and ``NONCE_STORE_UNAVAILABLE``
#: (the store could not confirm first use; the token is refused) are the SDK's own.
OPERATIONAL_FAILURE_REASONS: tuple[str, ...] = (
    "TENANT_KILL_SWITCH",
    "KEY_SOURCE_UNAVAILABLE",
    "NONCE_STORE_UNAVAILABLE",
)

#: :func:`~authority_runtime.verify_receipt`, in the order its checks run (``LOG_KEY_MISSING``,
#: ``CHECKPOINT_INVALID`` and ``INCLUSION_PROOF_INVALID`` concern version-2 receipts only).
RECEIPT_VERIFICATION_REASONS: tuple[str, ...] = (
    "RECEIPT_MALFORMED",
    "LOG_KEY_MISSING",
    "TENANT_MISMATCH",
    "ENTRY_HASH_MISMATCH",
    "ENTRY_MISMATCH",
    "SEAL_MISMATCH",
    "SEAL_SIGNATURE_INVALID",
    "CHECKPOINT_INVALID",
    "INCLUSION_PROOF_INVALID",
    "TOKEN_INVALID",
    "EMBEDDED_JWKS_MISMATCH",
    "KEY_SOURCE_UNAVAILABLE",
)

#: :func:`~authority_runtime.verify_webhook_signature`, in the order its checks run.
WEBHOOK_VERIFICATION_REASONS: tuple[str, ...] = (
    "SIGNATURE_MISSING",
    "SIGNATURE_MISMATCH",
    "PAYLOAD_MALFORMED",
    "PAYLOAD_SIGNATURE_MISMATCH",
    "TIMESTAMP_MISMATCH",
    "TIMESTAMP_OUT_OF_TOLERANCE",
)
