// Type-checked (never run) by scripts/check-packed-sdk.mjs against the packed package: its
// declarations resolve for a strict NodeNext project, root and `/wire` subpath alike.
import {
  AuthorityApiError,
  type AuthorityClient,
  type IntentSubmission,
  type IntentView,
  type PhysicalDecision,
  verifyAuthorityToken,
} from '@authority-runtime/sdk';
import { type IntentResponse, WIRE_ROUTES } from '@authority-runtime/sdk/wire';

export async function typed(client: AuthorityClient): Promise<string | undefined> {
  const result: IntentSubmission = await client.submitIntent({
    actor: { id: 'a', type: 'agent' },
    targetSystem: 'acme/payments',
    proposedAction: 'list open pull requests',
    riskContext: { baseRiskScore: 10 },
  });
  const response: IntentResponse = result.response;
  const view: IntentView = await client.getIntent(result.intentId);
  const physical: PhysicalDecision['decision'] = 'DENY';
  const error = new AuthorityApiError({ status: 0, code: 'TIMEOUT', message: 'x', retryable: true });
  void [response, view, physical, error, WIRE_ROUTES.submitIntent.method, verifyAuthorityToken];
  return result.outcome === 'APPROVED' ? result.token : undefined;
}
