import { useState } from 'preact/hooks';
import { api, tenantId } from '../../api/client.js';
import type { TimelineEvent } from '../../api/types.js';
import { TextField } from '../../components/fields.js';
import { Gate } from '../../components/gate.js';
import { Page } from '../../components/page.js';
import { PagerButtons, usePager } from '../../components/pager.js';
import { Problem } from '../../components/problem.js';
import { formatTime, isoOf } from '../../components/time.js';
import { useApi } from '../../components/use-api.js';
import { useSession } from '../../session/session-context.js';

/** Audit (contract §14 page 3): the tenant's chain as a timeline, with filters and paging. */
export function AuditTimeline() {
  const { can } = useSession();
  return (
    <Gate anyOf={['audit:read', 'audit:verify']} title="Audit">
      <Page
        title="Audit"
        actions={
          <a class="button" href="/console/audit/chain">
            Verify the chain, checkpoints and export
          </a>
        }
      >
        {can('audit:read') ? (
          <TimelineEntries />
        ) : (
          <p>Your role can verify the chain but not read its entries.</p>
        )}
      </Page>
    </Gate>
  );
}

/** The entries, loaded only for roles that may read them (a verify-only role sees no request fail). */
function TimelineEntries() {
  const [actorId, setActorId] = useState('');
  const [targetSystem, setTargetSystem] = useState('');
  const [eventType, setEventType] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const filters = [actorId, targetSystem, eventType, from, to].map((v) => v.trim()).join('|');
  const pager = usePager(filters);
  const { data, error } = useApi(
    () =>
      api<{ events: TimelineEvent[]; nextCursor: string | null }>('GET', `/audit/${tenantId()}/timeline`, {
        query: {
          actorId: actorId.trim() || undefined,
          targetSystem: targetSystem.trim() || undefined,
          eventType: eventType.trim() || undefined,
          from: isoOf(from),
          to: isoOf(to),
          limit: 25,
          cursor: pager.cursor,
        },
      }),
    `${filters}|${pager.cursor ?? ''}`,
  );
  return (
    <>
      <div class="filters">
        <TextField label="Actor id" value={actorId} onValue={setActorId} />
        <TextField label="Target system" value={targetSystem} onValue={setTargetSystem} />
        <TextField label="Event type" value={eventType} onValue={setEventType} hint="e.g. intent.decided" />
        <TextField label="From" type="datetime-local" value={from} onValue={setFrom} />
        <TextField label="To" type="datetime-local" value={to} onValue={setTo} />
      </div>
      <Problem error={error} />
      {data ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Index</th>
                <th scope="col">Event</th>
                <th scope="col">Summary</th>
                <th scope="col">Actor</th>
                <th scope="col">When</th>
                <th scope="col">Entry hash</th>
              </tr>
            </thead>
            <tbody>
              {data.events.map((event) => (
                <tr key={event.index}>
                  <td>
                    <a href={`/console/audit/entries/${event.index}`}>#{event.index}</a>
                  </td>
                  <td>{event.eventType}</td>
                  <td>{event.summary}</td>
                  <td>{event.actorId}</td>
                  <td>{formatTime(event.createdAt)}</td>
                  <td>
                    <code class="hash">{event.entryHash.slice(0, 16)}…</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {data.events.length === 0 ? <p class="muted">No entries match.</p> : null}
        </div>
      ) : null}
      <PagerButtons pager={pager} nextCursor={data?.nextCursor} />
    </>
  );
}
