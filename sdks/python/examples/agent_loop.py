"""The agent's side: ask before acting, wait for a human when the service asks for one, and leave
with the Authority Decision Token that the executor will check."""

import os
import sys

from authority_runtime import AuthorityClient

client = AuthorityClient(os.environ["AUTHORITY_URL"], os.environ["AUTHORITY_TENANT"], os.environ["AUTHORITY_API_KEY"])
target = os.environ.get("AUTHORITY_TARGET_SYSTEM", "acme/api")

decision = client.submit_intent(
    actor_id="release-bot",
    actor_type="agent",
    target_system=target,
    proposed_action="merge pull request #42",
    risk_context={"baseRiskScore": 20},
    args={"operation": "merge_pr", "pullNumber": 42},
)
if decision.verdict == "DENY":
    sys.exit(f"DENIED by {decision.reason}")
if decision.verdict == "ESCALATE":
    print(f"ESCALATED intent {decision.intent_id}: waiting for a human", file=sys.stderr, flush=True)
    status = client.wait_for_approval(decision.intent_id, timeout=600)
    if status != "APPROVED_AFTER_REVIEW":
        sys.exit(f"not approved: {status}")
    decision = client.fetch_token(decision.intent_id)

print(decision.token)  # hand it to the executor together with the action
