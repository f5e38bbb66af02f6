"""The exceptions of the SDK."""

from __future__ import annotations

from typing import Any, Literal

__all__ = ["AuthorityApiError", "MissingDependencyError", "NonceStoreError"]


class AuthorityApiError(Exception):
    """Anything from the service that is not a decision: an error status, a transport failure.

    The fields are those of the TypeScript SDK's ``AuthorityApiError``:

    - ``status``: the HTTP status, or ``0`` when no answer arrived (network error, timeout).
    - ``code``: the envelope's code (``VALIDATION_ERROR``, ``AUTHORITY_LOOP_FAILED``,
      ``rate_limited``, ...); ``NETWORK_ERROR`` or ``TIMEOUT`` when ``status`` is 0;
      ``INVALID_RESPONSE``, with the answer's ``status``, for an answer that is not the documented
      shape, an error answer without the envelope included (a proxy's page, for example), as in
      the TypeScript SDK.
    - ``message``: human-readable, never a secret.
    - ``details``: the envelope's ``details`` (a dict), or ``None``.
    - ``request_id``: the ``x-request-id`` of the answer, when there was one.
    - ``retryable``: whether the same request may succeed later (429, 500, 502, 503, 504, network
      errors). The client already retried those up to ``max_attempts``.
    - ``retry_after``: on a 429, the seconds the ``retry-after`` header asked to wait, else ``None``.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        details: dict[str, Any] | None = None,
        request_id: str | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(f"{code} ({status}): {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.request_id = request_id
        self.retryable = retryable
        self.retry_after: float | None = None


class NonceStoreError(Exception):
    """Raised by a nonce store that cannot confirm whether a nonce was used before.

    ``kind`` is ``"unavailable"`` (the store could not answer) or ``"rejected"`` (the service's
    consume endpoint refused the token for another reason, given in ``remote_reason``, e.g.
    ``TENANT_KILL_SWITCH``). The verifier never lets it escape: it reports
    ``NONCE_STORE_UNAVAILABLE``, or the remote reason when it is a known one.
    """

    def __init__(
        self,
        kind: Literal["unavailable", "rejected"],
        message: str,
        *,
        remote_reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.remote_reason = remote_reason


class MissingDependencyError(ImportError):
    """The token and receipt verifiers need PyJWT and cryptography, and refuse to run without them."""
