"""``AuthorityClient``: the agent's side of Authority Runtime, standard library only."""

from __future__ import annotations

import time
import urllib.parse
import uuid
from collections.abc import Mapping
from typing import Any, Literal

from ._http import Response, Retry, Transport
from ._note import ED25519_KEY_TYPE, parse_verifier_key
from .decision import Decision, PhysicalDecision
from .errors import AuthorityApiError

__all__ = ["AuthorityClient"]

#: Intent statuses that end the wait: the escalation was decided or expired.
PENDING_STATUS = "ESCALATED"


def _object(answer: Response) -> dict[str, Any]:
    """The body of an answer that must be a JSON object (a record, a key set, a report);
    ``INVALID_RESPONSE`` with the answer's status otherwise (a proxy's JSON array, say)."""
    if not isinstance(answer.body, dict):
        raise AuthorityApiError(
            answer.status, "INVALID_RESPONSE", "the answer is not a JSON object", request_id=answer.request_id
        )
    return answer.body


def _key_or_new(idempotency_key: str | None) -> str:
    """The caller's ``Idempotency-Key`` as given (an empty or malformed one is refused, not
    replaced), or a fresh random one when there is none."""
    return str(uuid.uuid4()) if idempotency_key is None else idempotency_key


def _path_id(value: str) -> str:
    if not isinstance(value, str) or value == "":
        raise TypeError("an id must be a non-empty string")
    return urllib.parse.quote(value, safe="")


class AuthorityClient:
    """A client of one tenant of an Authority Runtime service.

    Every call retries 429 (honouring ``retry-after``), 500, 502, 503, 504 and network errors with
    exponential backoff and full jitter, up to ``max_attempts`` attempts in all; 400, 401, 403, 404
    and 409 are final. ``timeout`` bounds each attempt as a whole, from the connection to the last
    byte of the answer (``TIMEOUT``, status 0, when it runs out), not each read. ``submit_intent``
    sends one ``Idempotency-Key`` per submission (generated unless given) that every retry reuses,
    so retries never make two decisions. Anything that is not a decision raises
    :class:`~authority_runtime.AuthorityApiError`; ``AUTHORITY_LOOP_FAILED`` and every other failure
    never yield a token.

    >>> client = AuthorityClient("https://authority.example.com", "acme", "service_live_...")
    """

    def __init__(
        self,
        base_url: str,
        tenant_id: str,
        api_key: str,
        timeout: float = 10.0,
        max_attempts: int = 4,
        *,
        max_retry_after: float = 60.0,
    ) -> None:
        self._transport = Transport(
            base_url,
            tenant_id,
            api_key,
            timeout=timeout,
            max_attempts=max_attempts,
            max_retry_after=max_retry_after,
        )
        self.base_url = base_url
        self.tenant_id = tenant_id

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        query: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """Any other route of the API, with the same headers, retries and errors: the parsed JSON
        answer of a 2xx, or ``None`` for a 2xx without a body (``204 No Content``: a deletion, for
        example). A ``POST`` or ``PATCH`` without ``idempotency_key`` is repeated only after a 429
        or a connection that could not be opened: it might act twice. ``path`` starts with ``/`` (``/v1`` is optional, the service strips it; with a
        ``base_url`` ending in ``/v1`` it is not repeated)."""
        answer = self._transport.request(method, path, body, query=query, idempotency_key=idempotency_key, empty=True)
        return answer.body

    def _json(self, method: str, path: str, body: Any = None, retry: Retry | None = None) -> dict[str, Any]:
        """A route whose 2xx answer is a JSON object; any other answer is ``INVALID_RESPONSE``."""
        return _object(self._transport.request(method, path, body, retry=retry))

    # Intents ---------------------------------------------------------------------------------

    def submit_intent(
        self,
        actor_id: str,
        actor_type: Literal["service", "agent", "human", "workflow"],
        target_system: str,
        proposed_action: str,
        risk_context: Mapping[str, Any],
        args: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        *,
        explain: bool = False,
    ) -> Decision:
        """``POST /intent``: asks for a decision on an action. Returns the :class:`Decision`
        (``ALLOW`` with a token, ``ESCALATE`` with an escalation id, or ``DENY``)."""
        body: dict[str, Any] = {
            "tenantId": self.tenant_id,
            "actor": {"id": actor_id, "type": actor_type},
            "targetSystem": target_system,
            "proposedAction": proposed_action,
            "riskContext": dict(risk_context),
        }
        if args is not None:
            body["args"] = dict(args)
        answer = self._transport.request(
            "POST",
            "/intent",
            body,
            query={"explain": "true"} if explain else None,
            idempotency_key=_key_or_new(idempotency_key),
            results=frozenset({403}),
        )
        return Decision.from_response(answer.status, answer.body, answer.request_id)

    def get_intent(self, intent_id: str) -> dict[str, Any]:
        """``GET /intent/:id``: the intent record, with its ``status``."""
        return self._intent(intent_id)

    def _intent(self, intent_id: str, deadline: float | None = None) -> dict[str, Any]:
        return _object(self._transport.request("GET", f"/intent/{_path_id(intent_id)}", deadline=deadline))

    def wait_for_approval(self, intent_id: str, timeout: float = 300.0, poll_interval: float = 1.0) -> str:
        """Polls the intent until it leaves ``ESCALATED`` and returns its status
        (``APPROVED_AFTER_REVIEW``, ``DENIED_AFTER_REVIEW``, ``EXPIRED``, ...), or ``ESCALATED``
        when ``timeout`` seconds passed first, also while a read is still waiting for the service
        (each read, its retries included, ends at the deadline). A read that fails with a
        retryable error after all its retries (the service unavailable for a while) does not end
        the wait: polling goes on until the deadline. Other errors (404, 401, 403) are raised."""
        if poll_interval <= 0:
            raise ValueError("poll_interval must be positive")
        deadline = time.monotonic() + timeout
        while True:
            status = PENDING_STATUS
            try:
                record = self._intent(intent_id, deadline)
            except AuthorityApiError as error:
                if error.code == "TIMEOUT" and time.monotonic() >= deadline:
                    return PENDING_STATUS
                if not error.retryable:
                    raise
            else:
                status = record.get("status") if isinstance(record, dict) else None
                if not isinstance(status, str):
                    raise AuthorityApiError(200, "INVALID_RESPONSE", "the intent record has no status")
            remaining = deadline - time.monotonic()
            if status != PENDING_STATUS or remaining <= 0:
                return status
            time.sleep(min(poll_interval, remaining))

    def fetch_token(self, intent_id: str, idempotency_key: str | None = None) -> Decision:
        """``POST /intent/:id/token``: the token of an approved escalation, for the principal that
        submitted the intent. Always sends an ``Idempotency-Key``, so a retry after a lost answer
        gets the same token back."""
        answer = self._transport.request(
            "POST",
            f"/intent/{_path_id(intent_id)}/token",
            idempotency_key=_key_or_new(idempotency_key),
        )
        return Decision.from_response(answer.status, answer.body, answer.request_id)

    def decide_approval(
        self,
        intent_id: str,
        decision: Literal["approve", "deny"],
        rationale: str,
        approver: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """``POST /authority/approval``: approves or denies an escalated intent (permission
        ``authority:approve``; the requester may not approve its own intent)."""
        body: dict[str, Any] = {"intentId": intent_id, "decision": decision, "rationale": rationale}
        if approver is not None:
            body["approver"] = dict(approver)
        result: dict[str, Any] = self._json("POST", "/authority/approval", body)
        return result

    def get_receipt(self, intent_id: str) -> dict[str, Any]:
        """``GET /intent/:id/receipt``: the offline-verifiable receipt (see :func:`verify_receipt`).

        While the intent's token can still be consumed, only the principal that submitted the intent
        gets it; anyone else gets 409 ``CONFLICT`` (``details.reason == "token_live"``).
        """
        result: dict[str, Any] = self._json("GET", f"/intent/{_path_id(intent_id)}/receipt")
        return result

    # Audit and keys --------------------------------------------------------------------------

    def verify_chain(self, from_index: int | None = None, to_index: int | None = None) -> dict[str, Any]:
        """``POST /audit/verify-chain``: ``{valid, length, latestHash, ..., brokenAt?, reason?}``."""
        body: dict[str, Any] = {}
        if from_index is not None:
            body["from"] = from_index
        if to_index is not None:
            body["to"] = to_index
        result: dict[str, Any] = self._json("POST", "/audit/verify-chain", body, retry="safe")
        return result

    def jwks(self) -> dict[str, Any]:
        """The tenant's public key set (ACTIVE and PREVIOUS keys), for verifying tokens."""
        path = f"/.well-known/authority/{_path_id(self.tenant_id)}/jwks.json"
        return _object(self._transport.request("GET", path, authenticated=False))

    def jwks_archive(self) -> dict[str, Any]:
        """The tenant's RETIRED public keys, which still verify receipts."""
        path = f"/.well-known/authority/{_path_id(self.tenant_id)}/jwks-archive.json"
        return _object(self._transport.request("GET", path, authenticated=False))

    def log_key(self) -> str:
        """The tenant's log verifier key, ``<origin>+<key ID>+<base64>``, as
        ``GET /.well-known/authority/:tenantId/log-key`` serves it (without its newline): what
        :func:`verify_checkpoint` and a version-2 :func:`verify_receipt` check against. Pin it once,
        out of band. An answer that is not an Ed25519 (0x01) verifier key raises
        :class:`AuthorityApiError` with ``INVALID_RESPONSE``."""
        path = f"/.well-known/authority/{_path_id(self.tenant_id)}/log-key"
        answer = self._transport.request("GET", path, authenticated=False, text=True)
        key = str(answer.body).removesuffix("\n")
        try:
            parsed = parse_verifier_key(key)
        except ValueError:
            parsed = None
        if parsed is None or parsed.type != ED25519_KEY_TYPE:
            raise AuthorityApiError(
                answer.status, "INVALID_RESPONSE", "the answer is not a log verifier key", request_id=answer.request_id
            )
        return key

    def create_api_key(
        self, name: str, role: str, *, scopes: list[str] | None = None, expires_at: str | None = None
    ) -> dict[str, Any]:
        """``POST /keys``: a new API key, whose secret (``key``) is in this answer only."""
        body: dict[str, Any] = {"name": name, "role": role}
        if scopes is not None:
            body["scopes"] = scopes
        if expires_at is not None:
            body["expiresAt"] = expires_at
        result: dict[str, Any] = self._json("POST", "/keys", body)
        return result

    # Physical surface ------------------------------------------------------------------------

    def classify(self, goal: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/physical/classify``: the open-intent code of a structured goal; no token."""
        result: dict[str, Any] = self._json("POST", "/v1/physical/classify", {"goal": dict(goal)}, retry="safe")
        return result

    def issue_physical_token(self, request: Mapping[str, Any], idempotency_key: str | None = None) -> PhysicalDecision:
        """``POST /v1/physical/authority-tokens``: the authority loop of the physical surface.
        Sends one ``Idempotency-Key`` (generated unless given) that every retry reuses."""
        try:
            answer = self._transport.request(
                "POST",
                "/v1/physical/authority-tokens",
                dict(request),
                idempotency_key=_key_or_new(idempotency_key),
            )
        except AuthorityApiError as error:
            if error.status in (422, 423) and error.code == "policy_denied":
                envelope = {
                    "code": error.code,
                    "message": error.message,
                    "details": error.details,
                    "requestId": error.request_id,
                }
                return PhysicalDecision("DENY", None, None, None, error.details, {"error": envelope})
            raise
        body = answer.body
        decision = body.get("decision") if isinstance(body, dict) else None
        if decision == "ALLOW" and isinstance(body.get("token"), str):
            return PhysicalDecision("ALLOW", body["token"], None, None, None, body)
        if decision == "ESCALATE" and isinstance(body.get("escalationTicketId"), str):
            url = body.get("approvalUrl")
            return PhysicalDecision(
                "ESCALATE", None, body["escalationTicketId"], url if isinstance(url, str) else None, None, body
            )
        raise AuthorityApiError(
            answer.status, "INVALID_RESPONSE", "not a physical decision", request_id=answer.request_id
        )
