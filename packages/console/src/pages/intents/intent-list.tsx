import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { IntentView } from '../../api/types.js';
import { SelectField, TextField } from '../../components/fields.js';
import { Gate } from '../../components/gate.js';
import { Page } from '../../components/page.js';
import { PagerButtons, usePager } from '../../components/pager.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useApi } from '../../components/use-api.js';
import { RiskBadge } from '../approvals/badges.js';

const STATUSES = [
  '',
  'APPROVED',
  'ESCALATED',
  'DENIED',
  'APPROVED_AFTER_REVIEW',
  'DENIED_AFTER_REVIEW',
  'EXPIRED',
];

/** Intents (contract §14 page 2), newest first, by status, actor and target. */
export function IntentList() {
  return (
    <Gate anyOf={['intent:read']} title="Intents">
      <IntentPage />
    </Gate>
  );
}

/** Loaded only for roles that may read intents (no request fails behind the refusal). */
function IntentPage() {
  const [status, setStatus] = useState('');
  const [actorId, setActorId] = useState('');
  const [targetSystem, setTargetSystem] = useState('');
  const filters = `${status}|${actorId.trim()}|${targetSystem.trim()}`;
  const pager = usePager(filters);
  const { data, error } = useApi(
    () =>
      api<{ intents: IntentView[]; nextCursor: string | null }>('GET', '/intents', {
        query: {
          status: status || undefined,
          actorId: actorId.trim() || undefined,
          targetSystem: targetSystem.trim() || undefined,
          limit: 25,
          cursor: pager.cursor,
        },
      }),
    `${filters}|${pager.cursor ?? ''}`,
  );
  return (
    <Page title="Intents">
      <div class="filters">
        <SelectField
          label="Status"
          value={status}
          onValue={setStatus}
          options={STATUSES.map((value) => ({ value, label: value || 'any status' }))}
        />
        <TextField label="Actor id" value={actorId} onValue={setActorId} />
        <TextField label="Target system" value={targetSystem} onValue={setTargetSystem} hint="owner/repo" />
      </div>
      <Problem error={error} />
      {data ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Action</th>
                <th scope="col">Status</th>
                <th scope="col">Actor</th>
                <th scope="col">Target</th>
                <th scope="col">Risk</th>
                <th scope="col">Deciding rule</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {data.intents.map((intent) => (
                <tr key={intent.intentId}>
                  <td>
                    <a href={`/console/intents/${intent.intentId}`}>{intent.request.proposedAction}</a>
                  </td>
                  <td>{intent.status}</td>
                  <td>{intent.request.actor.id}</td>
                  <td>{intent.request.targetSystem}</td>
                  <td>
                    <RiskBadge score={intent.authorityDecision.riskScore} />
                  </td>
                  <td>
                    <code>{intent.authorityDecision.decidingRule?.id ?? '—'}</code>
                  </td>
                  <td>{formatTime(intent.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {data.intents.length === 0 ? <p class="muted">No intents match.</p> : null}
        </div>
      ) : null}
      <PagerButtons pager={pager} nextCursor={data?.nextCursor} />
    </Page>
  );
}
