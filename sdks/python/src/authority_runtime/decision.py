"""The results of the decision calls: :class:`Decision` (intent surface) and
:class:`PhysicalDecision` (physical surface)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .errors import AuthorityApiError

__all__ = ["Decision", "PhysicalDecision", "Verdict"]

Verdict = Literal["ALLOW", "DENY", "ESCALATE"]

_VERDICTS: dict[str, tuple[Verdict, int]] = {
    "APPROVED": ("ALLOW", 200),
    "ESCALATED": ("ESCALATE", 202),
    "DENIED": ("DENY", 403),
}


def _invalid(status: int, message: str, request_id: str | None) -> AuthorityApiError:
    return AuthorityApiError(status, "INVALID_RESPONSE", message, request_id=request_id)


@dataclass(frozen=True)
class Decision:
    """The service's decision on an intent, in the shape of the document's Python SDK.

    - ``verdict``: ``ALLOW`` (APPROVED), ``ESCALATE`` (ESCALATED: a human must approve) or ``DENY``
      (DENIED). A denial is a result, not an exception.
    - ``reason``: the deciding rule's id and the first rationale line (the interpretation of the
      action), e.g. ``"starter/escalate-writes: interpreted as OI-105 (write, confidence 0.9)"``.
    - ``intent_id``, ``escalation_id`` (ESCALATE only), ``risk_score``.
    - ``token``: the Authority Decision Token, only ever from a 200 APPROVED answer.
    - ``response``: the whole response body.
    """

    verdict: Verdict
    reason: str
    intent_id: str
    token: str | None
    escalation_id: str | None
    risk_score: float | None
    response: dict[str, Any]

    @classmethod
    def from_response(cls, status: int, body: Any, request_id: str | None = None) -> Decision:
        """Reads an intent response (``POST /intent`` or ``POST /intent/:id/token``); raises
        :class:`AuthorityApiError` ``INVALID_RESPONSE`` when it is not the documented shape or its
        decision does not match the status."""
        decision = body.get("authorityDecision") if isinstance(body, dict) else None
        if not isinstance(decision, dict) or not isinstance(body.get("intentId"), str):
            raise _invalid(status, "the answer is not an intent response", request_id)
        outcome = decision.get("decision")
        verdict_and_status = _VERDICTS.get(outcome) if isinstance(outcome, str) else None
        if verdict_and_status is None or verdict_and_status[1] != status:
            raise _invalid(status, f"decision {outcome!r} does not go with HTTP {status}", request_id)
        verdict = verdict_and_status[0]
        token = body.get("authorityDecisionToken")
        if verdict == "ALLOW":
            if not isinstance(token, str) or token == "":
                raise _invalid(status, "an APPROVED answer without a token", request_id)
        else:
            token = None
        escalation = body.get("escalationId") if verdict == "ESCALATE" else None
        rule = decision.get("decidingRule")
        rule_id = rule.get("id") if isinstance(rule, dict) else None
        rationale = decision.get("rationale")
        first_line = rationale[0] if isinstance(rationale, list) and rationale and isinstance(rationale[0], str) else ""
        reason = ": ".join(part for part in (rule_id if isinstance(rule_id, str) else "", first_line) if part)
        risk = decision.get("riskScore")
        return cls(
            verdict=verdict,
            reason=reason,
            intent_id=body["intentId"],
            token=token,
            escalation_id=escalation if isinstance(escalation, str) else None,
            risk_score=float(risk) if isinstance(risk, (int, float)) and not isinstance(risk, bool) else None,
            response=body,
        )


@dataclass(frozen=True)
class PhysicalDecision:
    """The outcome of ``POST /v1/physical/authority-tokens``.

    - ``decision``: ``ALLOW`` (``token`` set), ``ESCALATE`` (``escalation_ticket_id`` and
      ``approval_url`` set) or ``DENY`` (the 422 / 423 ``policy_denied`` answer: ``details`` holds
      ``clauseId``, ``clauseIds``, ``safeDefault``, ...). A denial is a result, not an exception.
    - ``response``: the whole body (the error envelope for a denial).
    """

    decision: Literal["ALLOW", "ESCALATE", "DENY"]
    token: str | None
    escalation_ticket_id: str | None
    approval_url: str | None
    details: dict[str, Any] | None
    response: dict[str, Any]
