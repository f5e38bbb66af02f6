/**
 * The whole loop of an agent, against a running service:
 *
 *   agent → submitIntent → APPROVED: the token goes to the executing system, which verifies it
 *                        → ESCALATED: waitForApproval → fetchToken → the executing system
 *                        → DENIED: the agent reads why and does not act
 *
 * Run it (from the repository, or with the package installed):
 *
 *   AUTHORITY_URL=http://127.0.0.1:8080 AUTHORITY_TENANT=demo AUTHORITY_API_KEY=service_live_… \
 *     node --import tsx packages/sdk/examples/agent-loop.ts
 *
 * The escalated intent waits for a human. Approve it in the console, or set AUTHORITY_APPROVER_KEY
 * (a key with the role `approver`, not the agent's) and this script plays the reviewer itself.
 */
import {
  AuthorityClient,
  InMemoryNonceStore,
  type IntentInput,
  remoteJwks,
  verifyAuthorityToken,
} from '@authority-runtime/sdk';

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const baseUrl = setting('AUTHORITY_URL');
const tenantId = setting('AUTHORITY_TENANT');
const agent = new AuthorityClient({ baseUrl, tenantId, apiKey: setting('AUTHORITY_API_KEY') });
const TARGET = 'acme/payments';

// ---- the executing system: it trusts no agent, only a token it verified itself ----

const jwks = remoteJwks(new URL(`/.well-known/authority/${tenantId}/jwks.json`, baseUrl));
const nonces = new InMemoryNonceStore(); // one process; several adapters share RemoteNonceStore instead

async function executingSystem(token: string, action: string): Promise<void> {
  const verified = await verifyAuthorityToken(token, {
    jwks,
    // Who this executor is: no connector serves the target, so tokens are minted for "external".
    expected: { tenantId, adapterId: 'external', targetSystem: TARGET },
    nonceStore: nonces,
  });
  if (!verified.valid) throw new Error(`executor refused the token: ${verified.reason}`);
  console.log(
    `executor: "${action}" runs under intent ${verified.claims.intentId} (adapter ${verified.claims.adapterId})`,
  );
}

// ---- the agent ----

const intent = (proposedAction: string, extra: Partial<IntentInput> = {}): IntentInput => ({
  actor: { id: 'example-agent', type: 'agent' },
  targetSystem: TARGET,
  proposedAction,
  riskContext: { baseRiskScore: 10 },
  ...extra,
});

async function act(request: IntentInput): Promise<void> {
  const result = await agent.submitIntent(request);
  const why = result.response.authorityDecision;
  console.log(`${result.outcome} ${result.intentId} by ${why.decidingRule.id}: ${request.proposedAction}`);
  switch (result.outcome) {
    case 'APPROVED':
      await executingSystem(result.token, request.proposedAction);
      return;
    case 'DENIED':
      console.log(`  not acting: ${why.rationale.join('; ')}`);
      return;
    case 'ESCALATED': {
      await playReviewer(result.intentId);
      const status = await agent.waitForApproval(result.intentId, { timeoutMs: 10 * 60_000 });
      console.log(`  review finished: ${status}`);
      if (status !== 'APPROVED_AFTER_REVIEW') return;
      const { token } = await agent.fetchToken(result.intentId);
      await executingSystem(token, request.proposedAction);
    }
  }
}

/** Stands in for the human reviewer when AUTHORITY_APPROVER_KEY is set. */
async function playReviewer(intentId: string): Promise<void> {
  const apiKey = process.env.AUTHORITY_APPROVER_KEY;
  if (!apiKey) {
    console.log(`  waiting for a reviewer to approve intent ${intentId} in the console`);
    return;
  }
  const reviewer = new AuthorityClient({ baseUrl, tenantId, apiKey });
  await reviewer.decideApproval({
    intentId,
    decision: 'approve',
    rationale: 'Example reviewer: change is expected',
  });
}

await act(intent('list open pull requests'));
await act(intent('merge pull request 42'));
await act(intent('list open pull requests', { riskContext: { baseRiskScore: 10, touchesProduction: true } }));
