import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { Ticket } from '../../api/types.js';
import { Done, useRecordedAction } from '../../components/done.js';
import { Form, TextArea, TextField } from '../../components/fields.js';
import { Json, Loading, Page, Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime, TimeLeft } from '../../components/time.js';
import { useApi } from '../../components/use-api.js';
import { useSession } from '../../session/session-context.js';
import { goalText, SafetyBadge } from './badges.js';
import { REFRESH_MS } from './inbox.js';

function Facts({ ticket }: { ticket: Ticket }) {
  const request = ticket.request;
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        {ticket.status}
        {ticket.status === 'pending' ? (
          <>
            {' '}
            (<TimeLeft until={ticket.expiresAtMs} />)
          </>
        ) : null}
      </dd>
      <dt>Code</dt>
      <dd>
        <code>{ticket.intent.oiCode}</code>
      </dd>
      <dt>Goal</dt>
      <dd>{goalText(ticket.intent.structuredGoal)}</dd>
      <dt>Safety</dt>
      <dd>
        <SafetyBadge request={request} />
      </dd>
      <dt>Clauses that fired</dt>
      <dd>{request && request.clauseIds.length > 0 ? request.clauseIds.join(', ') : '—'}</dd>
      <dt>Safe default</dt>
      <dd>{request?.safeDefault ?? '—'}</dd>
      <dt>Opened</dt>
      <dd>{formatTime(ticket.createdAtMs)}</dd>
      {ticket.approvedBy ? (
        <>
          <dt>Decided by</dt>
          <dd>
            {ticket.operator ?? ''} <code>{ticket.approvedBy}</code> at {formatTime(ticket.approvedAtMs)}
          </dd>
        </>
      ) : null}
      {ticket.rejectionReason ? (
        <>
          <dt>Reason</dt>
          <dd>{ticket.rejectionReason}</dd>
        </>
      ) : null}
    </dl>
  );
}

/** A physical escalation ticket: approve or reject with the operator's name and a reason. */
export function TicketDetail({ ticketId }: { ticketId: string }) {
  const { session, can } = useSession();
  const [operator, setOperator] = useState(session.user.email);
  const [reason, setReason] = useState('');
  const {
    data: ticket,
    error,
    loading,
    reload,
  } = useApi(
    () => api<Ticket>('GET', `/v1/physical/approvals/${encodeURIComponent(ticketId)}`),
    ticketId,
    REFRESH_MS,
  );
  const decide = useRecordedAction(async (decision: 'approved' | 'rejected') => {
    await api<Ticket>('POST', `/v1/physical/approvals/${encodeURIComponent(ticketId)}/decide`, {
      body: { decision, operator: operator.trim(), ...(reason.trim() ? { reason: reason.trim() } : {}) },
    });
    await reload();
    return `Recorded: the ticket is ${decision}.`;
  });
  return (
    <Page title={`Physical ticket ${ticketId}`}>
      <Loading when={loading && !ticket} />
      <Problem error={error} />
      {ticket ? (
        <>
          <Facts ticket={ticket} />
          <Section title="Structured goal">
            <Json value={ticket.intent.structuredGoal} label="Structured goal" />
          </Section>
          {ticket.status === 'pending' && can('physical:approvals:decide') ? (
            <Section title="Decide">
              <Form label="Decide on the ticket" onSubmit={() => void decide.run('approved')}>
                <TextField
                  label="Operator"
                  value={operator}
                  onValue={setOperator}
                  required
                  maxLength={200}
                  hint="Your name as shown with the decision; the signed-in user is recorded as the decider."
                />
                <TextArea
                  label="Reason"
                  value={reason}
                  onValue={setReason}
                  hint="Recorded with a rejection."
                />
                <div class="buttons">
                  <button type="submit" class="primary" disabled={decide.busy || operator.trim() === ''}>
                    Approve
                  </button>
                  <button
                    type="button"
                    class="danger"
                    disabled={decide.busy || operator.trim() === ''}
                    onClick={() => void decide.run('rejected')}
                  >
                    Reject
                  </button>
                </div>
              </Form>
            </Section>
          ) : null}
          <Problem error={decide.error} title="Your decision was refused" takeFocus />
          <Done message={decide.done} />
          <p>
            <a href="/console/approvals">Back to the inbox</a>
          </p>
        </>
      ) : null}
    </Page>
  );
}
