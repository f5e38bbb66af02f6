import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { EscalationItem, Ticket } from '../../api/types.js';
import { SelectField } from '../../components/fields.js';
import { Gate } from '../../components/gate.js';
import { Page, Section } from '../../components/page.js';
import { PagerButtons, usePager } from '../../components/pager.js';
import { Problem } from '../../components/problem.js';
import { formatTime, TimeLeft } from '../../components/time.js';
import { useApi } from '../../components/use-api.js';
import { useSession } from '../../session/session-context.js';
import { goalText, RiskBadge, SafetyBadge } from './badges.js';

/** Contract §14: the inbox refreshes at least every 5 s. */
export const REFRESH_MS = 5_000;

/** Rows per page of each list; further pages follow the service's `nextCursor`. */
export const PAGE_SIZE = 100;

const INTENT_STATUSES = ['pending', 'approved', 'denied', 'expired'];
const TICKET_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'consumed'];
const options = (values: string[]) => values.map((value) => ({ value, label: value }));

function IntentEscalations() {
  const [status, setStatus] = useState('pending');
  const [queue, setQueue] = useState('');
  const pager = usePager(`${status}:${queue}`);
  const { data, error } = useApi(
    () =>
      api<{ approvals: EscalationItem[]; nextCursor: string | null }>('GET', '/authority/approvals', {
        query: { status, queue: queue || undefined, limit: PAGE_SIZE, cursor: pager.cursor },
      }),
    `${status}:${queue}:${pager.cursor ?? ''}`,
    REFRESH_MS,
  );
  return (
    <Section title="Intent escalations">
      <div class="filters">
        <SelectField label="Status" value={status} onValue={setStatus} options={options(INTENT_STATUSES)} />
        <SelectField
          label="Queue"
          value={queue}
          onValue={setQueue}
          options={[{ value: '', label: 'all queues' }, ...options(['standard', 'catastrophic-review'])]}
        />
      </div>
      <Problem error={error} />
      {data && data.approvals.length === 0 ? <p class="muted">No {status} escalations.</p> : null}
      {data && data.approvals.length > 0 ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Action</th>
                <th scope="col">Queue</th>
                <th scope="col">Actor</th>
                <th scope="col">Target</th>
                <th scope="col">Risk</th>
                <th scope="col">Deciding rule</th>
                <th scope="col">Arguments</th>
                <th scope="col">Approvals</th>
                <th scope="col">{status === 'pending' ? 'Time left' : 'Status'}</th>
              </tr>
            </thead>
            <tbody>
              {data.approvals.map((item) => (
                <tr key={item.escalationId}>
                  <td>
                    <a href={`/console/approvals/${item.escalationId}`}>{item.proposedAction}</a>
                  </td>
                  <td>
                    <span class={item.queue === 'catastrophic-review' ? 'tag tag-danger' : 'tag'}>
                      {item.queue}
                    </span>
                  </td>
                  <td>{item.actorId}</td>
                  <td>{item.targetSystem}</td>
                  <td>
                    <RiskBadge score={item.riskScore} />
                  </td>
                  <td>{item.decidingRule ? <code>{item.decidingRule.id}</code> : '—'}</td>
                  <td>
                    <code class="preview">{item.argsPreview ?? '—'}</code>
                  </td>
                  <td>
                    {item.approvalsReceived} of {item.requiredApprovals}
                  </td>
                  <td>{item.status === 'pending' ? <TimeLeft until={item.expiresAt} /> : item.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <PagerButtons pager={pager} nextCursor={data?.nextCursor} label="Escalation pages" />
    </Section>
  );
}

function PhysicalTickets() {
  const [status, setStatus] = useState('pending');
  const pager = usePager(status);
  const { data, error } = useApi(
    () =>
      api<{ tickets: Ticket[]; nextCursor: string | null }>('GET', '/v1/physical/approvals', {
        query: { status, limit: PAGE_SIZE, cursor: pager.cursor },
      }),
    `${status}:${pager.cursor ?? ''}`,
    REFRESH_MS,
  );
  return (
    <Section title="Physical tickets">
      <div class="filters">
        <SelectField
          label="Ticket status"
          value={status}
          onValue={setStatus}
          options={options(TICKET_STATUSES)}
        />
      </div>
      <Problem error={error} />
      {data && data.tickets.length === 0 ? <p class="muted">No {status} tickets.</p> : null}
      {data && data.tickets.length > 0 ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Ticket</th>
                <th scope="col">Code</th>
                <th scope="col">Goal</th>
                <th scope="col">Safety</th>
                <th scope="col">Opened</th>
                <th scope="col">{status === 'pending' ? 'Time left' : 'Status'}</th>
              </tr>
            </thead>
            <tbody>
              {data.tickets.map((ticket) => (
                <tr key={ticket.ticketId}>
                  <td>
                    <a href={`/console/approvals/${ticket.ticketId}`}>{ticket.ticketId}</a>
                  </td>
                  <td>
                    <code>{ticket.intent.oiCode}</code>
                  </td>
                  <td>{goalText(ticket.intent.structuredGoal)}</td>
                  <td>
                    <SafetyBadge request={ticket.request} />
                  </td>
                  <td>{formatTime(ticket.createdAtMs)}</td>
                  <td>
                    {ticket.status === 'pending' ? <TimeLeft until={ticket.expiresAtMs} /> : ticket.status}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <PagerButtons pager={pager} nextCursor={data?.nextCursor} label="Ticket pages" />
    </Section>
  );
}

/** Approvals (contract §14 page 1): escalations and tickets waiting for a human. */
export function ApprovalsInbox() {
  const { can } = useSession();
  return (
    <Gate anyOf={['authority:approve', 'physical:approvals:read']} title="Approvals">
      <Page title="Approvals">
        <p class="muted" aria-live="off">
          Refreshed every {REFRESH_MS / 1000} seconds.
        </p>
        {can('authority:approve') ? <IntentEscalations /> : null}
        {can('physical:approvals:read') ? <PhysicalTickets /> : null}
      </Page>
    </Gate>
  );
}
