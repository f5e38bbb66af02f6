import { useRoute } from 'preact-iso';
import { api } from '../../api/client.js';
import { download } from '../../api/download.js';
import type { ExplanationEntry, IntentView } from '../../api/types.js';
import { Gate } from '../../components/gate.js';
import { Json, Loading, Page, Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { redacted } from '../../components/redact.js';
import { formatTime } from '../../components/time.js';
import { useAction, useApi } from '../../components/use-api.js';
import { RiskBadge } from '../approvals/badges.js';

export function explainFailure(entry: ExplanationEntry): string {
  const failed = entry.failed as {
    kind: string;
    binding?: string;
    path?: string;
    op?: string;
    reason?: string;
  };
  if (failed.kind === 'binding') return `binding ${failed.binding} did not match`;
  if (failed.kind === 'condition') return `${failed.path} ${failed.op}: ${failed.reason}`;
  if (failed.kind === 'inactive') return failed.reason ?? 'inactive';
  return JSON.stringify(entry.failed);
}

export function ExplanationTable({ entries }: { entries: ExplanationEntry[] }) {
  if (entries.length === 0) return <p class="muted">Every candidate rule matched.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Rule</th>
          <th scope="col">Effect</th>
          <th scope="col">Why it did not match</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.ruleId}>
            <td>
              <code>{entry.ruleId}</code>
            </td>
            <td>{entry.effect}</td>
            <td>{explainFailure(entry)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function IntentBody({ intentId }: { intentId: string }) {
  const {
    data: intent,
    error,
    loading,
  } = useApi(() => api<IntentView>('GET', `/intent/${encodeURIComponent(intentId)}`), intentId);
  const receipt = useAction(async () => {
    const body = await api<unknown>('GET', `/intent/${encodeURIComponent(intentId)}/receipt`);
    download(`receipt-${intentId}.json`, JSON.stringify(body, null, 2));
  });
  const decision = intent?.authorityDecision;
  return (
    <Page title={intent ? `Intent: ${intent.request.proposedAction}` : 'Intent'}>
      <Loading when={loading && !intent} />
      <Problem error={error} />
      {intent && decision ? (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd>{intent.status}</dd>
            <dt>Decision</dt>
            <dd>{decision.decision}</dd>
            <dt>Actor</dt>
            <dd>
              {intent.request.actor.id} ({intent.request.actor.type})
            </dd>
            <dt>Target system</dt>
            <dd>{intent.request.targetSystem}</dd>
            <dt>Risk</dt>
            <dd>
              <RiskBadge score={decision.riskScore} />
            </dd>
            <dt>Interpreted as</dt>
            <dd>
              {decision.intent.oiCode}, {decision.intent.operationType}, confidence{' '}
              {decision.intent.confidence}
            </dd>
            <dt>Deciding rule</dt>
            <dd>
              <code>{decision.decidingRule?.id ?? '—'}</code>
            </dd>
            <dt>Gate trace</dt>
            <dd>{decision.gateTrace.join(' → ')}</dd>
            <dt>Token issued</dt>
            <dd>{intent.tokenIssued ? 'yes' : 'no'}</dd>
            <dt>Created</dt>
            <dd>{formatTime(intent.createdAt)}</dd>
            <dt>Correlation id</dt>
            <dd>
              <code>{intent.correlationId}</code>
            </dd>
          </dl>
          {intent.approval ? (
            <p>
              Escalated to the {intent.approval.queue} queue ({intent.approval.status}):{' '}
              <a href={`/console/approvals/${intent.approval.escalationId}`}>open the escalation</a>.
            </p>
          ) : null}
          <Section title="Matched rules">
            <ul>
              {decision.matchedRules.map((rule) => (
                <li key={rule.id}>
                  <code>{rule.id}</code> {rule.effect}, priority {rule.priority}
                </li>
              ))}
            </ul>
          </Section>
          <Section title="Rationale">
            <ul>
              {decision.rationale.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </Section>
          <Section title="Explanation">
            {decision.explanation ? (
              <ExplanationTable entries={decision.explanation} />
            ) : (
              <p class="muted">The intent was submitted without ?explain=true, so no explanation was kept.</p>
            )}
          </Section>
          <Section title="Request">
            <Json
              value={
                'args' in intent.request
                  ? { ...intent.request, args: redacted(intent.request.args) }
                  : intent.request
              }
              label="Request"
            />
            {'args' in intent.request ? (
              <p class="muted">Values of args under keys that look like secrets are redacted.</p>
            ) : null}
          </Section>
          <Section title="Execution">
            <Json value={intent.execution} label="Execution" />
          </Section>
          <Section title="Audit entries">
            <ul>
              {(intent.auditEntries ?? []).map((entry) => (
                <li key={entry.index}>
                  <a href={`/console/audit/entries/${entry.index}`}>
                    #{entry.index} {entry.eventType}
                  </a>{' '}
                  <code class="hash">{entry.entryHash}</code>
                </li>
              ))}
            </ul>
          </Section>
          <Section title="Receipt">
            <p>
              An offline-verifiable receipt: the token, the intent's entries and a signed seal. While the
              token can still be used, only the agent that submitted the intent may download it.
            </p>
            {intent.status === 'ESCALATED' ? (
              <p class="muted">The receipt is issued once the escalation is decided or expires.</p>
            ) : (
              <>
                <button type="button" onClick={() => void receipt.run()} disabled={receipt.busy}>
                  Download receipt
                </button>
                <Problem error={receipt.error} />
              </>
            )}
          </Section>
        </>
      ) : null}
    </Page>
  );
}

/** Intent detail (contract §14 page 2): decision, gate trace, rules, explanation, audit, receipt. */
export function IntentDetail() {
  const { params } = useRoute();
  return (
    <Gate anyOf={['intent:read']} title="Intent">
      <IntentBody intentId={params.id ?? ''} />
    </Gate>
  );
}
