"""Authority Runtime SDK for Python.

The client (:class:`AuthorityClient`) needs only the standard library. The verifiers of tokens
and receipts need PyJWT and cryptography (``pip install 'authority-runtime[verify]'``) and refuse to
run without them; the webhook check needs only the standard library.
"""

from .audit_entry import GENESIS_HASH, audit_entry_hash
from .client import AuthorityClient
from .decision import Decision, PhysicalDecision, Verdict
from .errors import AuthorityApiError, MissingDependencyError, NonceStoreError
from .jwks import KeySource, KeySourceError, RemoteJwks, StaticJwks
from .nonce_store import InMemoryNonceStore, NonceStore, RemoteNonceStore, TokenNonceStore
from .reasons import (
    OPERATIONAL_FAILURE_REASONS,
    RECEIPT_VERIFICATION_REASONS,
    TOKEN_VERIFICATION_REASONS,
    WEBHOOK_VERIFICATION_REASONS,
)
from .receipt import RECEIPT_SEAL_TYP, ReceiptVerification, verify_receipt
from .transparency import (
    CHECKPOINT_VERIFICATION_REASONS,
    PROOF_FAILURE_REASONS,
    Checkpoint,
    CheckpointVerification,
    Cosignature,
    ProofVerification,
    TransparencyFormatError,
    leaf_hash,
    verify_checkpoint,
    verify_consistency_proof,
    verify_inclusion_proof,
)
from .verify import (
    AUTHORITY_ISSUER,
    DEFAULT_CLOCK_SKEW_SECONDS,
    MAX_TOKEN_LENGTH,
    MAX_TOKEN_TTL_SECONDS,
    VerificationResult,
    verify_authority_token,
)
from .webhook import WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TOLERANCE_SECONDS, WebhookVerification, verify_webhook_signature

__version__ = "0.1.0"

__all__ = [
    "AUTHORITY_ISSUER",
    "CHECKPOINT_VERIFICATION_REASONS",
    "PROOF_FAILURE_REASONS",
    "Checkpoint",
    "CheckpointVerification",
    "Cosignature",
    "ProofVerification",
    "TransparencyFormatError",
    "leaf_hash",
    "verify_checkpoint",
    "verify_consistency_proof",
    "verify_inclusion_proof",
    "DEFAULT_CLOCK_SKEW_SECONDS",
    "GENESIS_HASH",
    "MAX_TOKEN_LENGTH",
    "MAX_TOKEN_TTL_SECONDS",
    "OPERATIONAL_FAILURE_REASONS",
    "RECEIPT_SEAL_TYP",
    "RECEIPT_VERIFICATION_REASONS",
    "TOKEN_VERIFICATION_REASONS",
    "WEBHOOK_SIGNATURE_HEADER",
    "WEBHOOK_TOLERANCE_SECONDS",
    "WEBHOOK_VERIFICATION_REASONS",
    "AuthorityApiError",
    "AuthorityClient",
    "Decision",
    "InMemoryNonceStore",
    "KeySource",
    "KeySourceError",
    "MissingDependencyError",
    "NonceStore",
    "NonceStoreError",
    "PhysicalDecision",
    "ReceiptVerification",
    "RemoteJwks",
    "RemoteNonceStore",
    "StaticJwks",
    "TokenNonceStore",
    "VerificationResult",
    "Verdict",
    "WebhookVerification",
    "__version__",
    "audit_entry_hash",
    "verify_authority_token",
    "verify_receipt",
    "verify_webhook_signature",
]
