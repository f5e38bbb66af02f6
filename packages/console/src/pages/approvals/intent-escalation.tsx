import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { ApprovalAnswer, EscalationDetail } from '../../api/types.js';
import { Form, TextArea } from '../../components/fields.js';
import { useFocusOnShow } from '../../components/focus.js';
import { Json, Loading, Page, Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime, TimeLeft } from '../../components/time.js';
import { useAction, useApi } from '../../components/use-api.js';
import { useSession } from '../../session/session-context.js';
import { RiskBadge } from './badges.js';
import { REFRESH_MS } from './inbox.js';

const RATIONALE_MIN = 10;

function Progress({ item }: { item: EscalationDetail }) {
  return (
    <div class="progress-line">
      <progress max={item.requiredApprovals} value={item.approvalsReceived} aria-label="Approvals received" />
      <span>
        {item.approvalsReceived} of {item.requiredApprovals} approval{item.requiredApprovals > 1 ? 's' : ''}
        {item.requiredApprovals > 1 ? ' by distinct senior approvers' : ''}
      </span>
    </div>
  );
}

/** Who asks, what, which rule, what risk, which arguments: everything an approver weighs. */
function Facts({ item, me }: { item: EscalationDetail; me: string }) {
  const { decision } = item.intent;
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        {item.status}
        {item.status === 'pending' ? (
          <>
            {' '}
            (<TimeLeft until={item.expiresAt} />)
          </>
        ) : null}
      </dd>
      <dt>Queue</dt>
      <dd>
        <span class={item.queue === 'catastrophic-review' ? 'tag tag-danger' : 'tag'}>{item.queue}</span>
      </dd>
      <dt>Progress</dt>
      <dd>
        <Progress item={item} />
      </dd>
      <dt>Actor</dt>
      <dd>
        {item.intent.actor.id} ({item.intent.actor.type})
      </dd>
      <dt>Submitted by</dt>
      <dd>
        <code>{item.intent.requestedBy}</code>
        {item.intent.requestedBy === me ? ' (you)' : ''}
      </dd>
      <dt>Target system</dt>
      <dd>{item.targetSystem}</dd>
      <dt>Action</dt>
      <dd>{item.proposedAction}</dd>
      <dt>Interpreted as</dt>
      <dd>
        {decision.intent
          ? `${decision.intent.oiCode}, ${decision.intent.operationType}, confidence ${decision.intent.confidence}`
          : '—'}
      </dd>
      <dt>Risk</dt>
      <dd>
        <RiskBadge score={item.riskScore} />
      </dd>
      <dt>Deciding rule</dt>
      <dd>
        {item.decidingRule ? (
          <>
            <code>{item.decidingRule.id}</code> ({item.decidingRule.effect}, priority{' '}
            {item.decidingRule.priority})
          </>
        ) : (
          '—'
        )}
      </dd>
      <dt>Matched rules</dt>
      <dd>
        {decision.matchedRules.map((rule) => (
          <code key={rule.id} class="chip">
            {rule.id}: {rule.effect}
          </code>
        ))}
      </dd>
      <dt>Gates</dt>
      <dd>{decision.gateTrace.join(' → ')}</dd>
      <dt>Created</dt>
      <dd>{formatTime(item.createdAt)}</dd>
    </dl>
  );
}

function Decisions({ item, me }: { item: EscalationDetail; me: string }) {
  if (item.decisions.length === 0) return <p class="muted">No decision recorded yet.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Decision</th>
          <th scope="col">By</th>
          <th scope="col">Rationale</th>
          <th scope="col">When</th>
        </tr>
      </thead>
      <tbody>
        {item.decisions.map((decision) => (
          <tr key={decision.approvalId}>
            <td>{decision.decision}</td>
            <td>
              {decision.approver.name ?? decision.approver.id ?? ''}{' '}
              <code>{decision.approver.principalId}</code>
              {decision.approver.principalId === me ? ' (you)' : ''}
            </td>
            <td>{decision.rationale}</td>
            <td>{formatTime(decision.decidedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Warnings shown before deciding, while the escalation waits for a decision; the server still
 * decides and its refusal is shown too.
 */
function Notices({ item, me, senior }: { item: EscalationDetail; me: string; senior: boolean }) {
  if (item.status !== 'pending') return null;
  const notes: string[] = [];
  if (item.intent.requestedBy === me) {
    notes.push(
      'Separation of duties: you submitted this intent, so you cannot approve it. Another approver must decide.',
    );
  }
  if (item.decisions.some((decision) => decision.approver.principalId === me)) {
    notes.push('You already decided on this escalation; a second approval must come from someone else.');
  }
  if (item.queue === 'catastrophic-review' && !senior) {
    notes.push('The catastrophic-review queue needs a senior approver (authority:approve:catastrophic).');
  }
  if (notes.length === 0) return null;
  return (
    <ul class="notice" aria-label="Before you decide">
      {notes.map((note) => (
        <li key={note}>{note}</li>
      ))}
    </ul>
  );
}

export function IntentEscalation({ escalationId }: { escalationId: string }) {
  const { session, can } = useSession();
  const me = session.user.id;
  const [rationale, setRationale] = useState('');
  const [outcome, setOutcome] = useState<ApprovalAnswer | null>(null);
  const {
    data: item,
    error,
    loading,
    reload,
  } = useApi(
    () => api<EscalationDetail>('GET', `/authority/approvals/${encodeURIComponent(escalationId)}`),
    escalationId,
    REFRESH_MS,
  );
  const decide = useAction(async (decision: 'approve' | 'deny') => {
    if (!item) return;
    let answer: ApprovalAnswer;
    try {
      answer = await api<ApprovalAnswer>('POST', '/authority/approval', {
        body: {
          intentId: item.intentId,
          decision,
          approver: { name: session.user.email },
          rationale: rationale.trim(),
        },
      });
    } catch (refusal) {
      // Decided by someone else or expired meanwhile: show the escalation as it is now.
      await reload();
      throw refusal;
    }
    setRationale('');
    // The page shows the new state (progress, decisions) before it says the decision was recorded.
    await reload();
    setOutcome(answer);
  });
  // The decision form is gone once the decision is recorded: the focus moves to what says so.
  const recorded = useFocusOnShow<HTMLParagraphElement>(outcome !== null, outcome);
  const short = rationale.trim().length < RATIONALE_MIN;
  return (
    <Page title={item ? `Escalation: ${item.proposedAction}` : 'Escalation'}>
      <Loading when={loading && !item} />
      <Problem error={error} />
      {item ? (
        <>
          <Notices item={item} me={me} senior={can('authority:approve:catastrophic')} />
          <Facts item={item} me={me} />
          <Section title="Arguments">
            <p class="muted">Values under keys that look like secrets are redacted.</p>
            <Json value={item.intent.args} label="Arguments of the action" />
          </Section>
          <Section title="Why it was escalated">
            <ul>
              {item.intent.decision.rationale.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
            <Json value={item.intent.riskContext} label="Risk context" />
          </Section>
          <Section title="Decisions">
            <Decisions item={item} me={me} />
          </Section>
          {item.status === 'pending' ? (
            <Section title="Decide">
              <Form label="Decide on the escalation" onSubmit={() => void decide.run('approve')}>
                <TextArea
                  label="Rationale"
                  value={rationale}
                  onValue={setRationale}
                  required
                  hint="Why you approve or deny: 10 to 2,000 characters, recorded in the audit chain."
                />
                <div class="buttons">
                  <button type="submit" class="primary" disabled={decide.busy || short}>
                    Approve
                  </button>
                  <button
                    type="button"
                    class="danger"
                    disabled={decide.busy || short}
                    onClick={() => void decide.run('deny')}
                  >
                    Deny
                  </button>
                </div>
              </Form>
            </Section>
          ) : null}
          {outcome ? (
            <p class="success" role="status" tabIndex={-1} ref={recorded}>
              Recorded. The escalation is now {outcome.status} ({outcome.approvalsReceived} of{' '}
              {outcome.requiredApprovals} approvals).
            </p>
          ) : null}
          <Problem error={decide.error} title="Your decision was refused" takeFocus />
          <p>
            <a href={`/console/intents/${item.intentId}`}>Open the intent</a> ·{' '}
            <a href="/console/approvals">Back to the inbox</a>
          </p>
        </>
      ) : null}
    </Page>
  );
}
