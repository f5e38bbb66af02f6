import { useRoute } from 'preact-iso';
import { api, tenantId } from '../../api/client.js';
import { Gate } from '../../components/gate.js';
import { Json, Loading, Page, Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useApi } from '../../components/use-api.js';
import { entriesOf } from './export-lines.js';

function EntryBody({ index }: { index: number }) {
  const { data, error, loading } = useApi(async () => {
    const text = await api<string>('GET', `/audit/${tenantId()}/export`, {
      query: { fromIndex: index, toIndex: index },
      text: true,
    });
    return entriesOf(text)[0] ?? null;
  }, String(index));
  return (
    <Page title={`Audit entry #${index}`}>
      <Loading when={loading && data === undefined} />
      <Problem error={error} />
      {data === null ? <p>No entry at this index.</p> : null}
      {data ? (
        <>
          <dl class="facts">
            <dt>Event</dt>
            <dd>{data.eventType}</dd>
            <dt>Actor</dt>
            <dd>
              {data.actorId} ({data.actorType})
            </dd>
            <dt>When</dt>
            <dd>{formatTime(data.createdAt)}</dd>
            <dt>Intent</dt>
            <dd>{data.intentId ? <a href={`/console/intents/${data.intentId}`}>{data.intentId}</a> : '—'}</dd>
            <dt>Correlation id</dt>
            <dd>
              <code>{data.correlationId ?? '—'}</code>
            </dd>
            <dt>Entry hash</dt>
            <dd>
              <code class="hash">{data.entryHash}</code>
            </dd>
            <dt>Previous hash</dt>
            <dd>
              <code class="hash">{data.previousHash}</code>
            </dd>
          </dl>
          <p class="muted">
            entryHash = SHA-256 of the RFC 8785 canonical JSON of the entry without entryHash; previousHash is
            the entry hash of #{index - 1}.
          </p>
          <Section title="Payload">
            <Json value={data.payload} label="Payload" />
          </Section>
          <p>
            {index > 0 ? <a href={`/console/audit/entries/${index - 1}`}>Previous entry</a> : null}{' '}
            <a href={`/console/audit/entries/${index + 1}`}>Next entry</a> ·{' '}
            <a href="/console/audit">Timeline</a>
          </p>
        </>
      ) : null}
    </Page>
  );
}

/** One entry of the chain with its hashes, read from the export of that one index. */
export function AuditEntry() {
  const { params } = useRoute();
  const index = Number(params.index);
  return (
    <Gate anyOf={['audit:read']} title="Audit entry">
      {Number.isInteger(index) && index >= 0 ? (
        <EntryBody index={index} />
      ) : (
        <Page title="Audit entry">
          <p>Not an entry index.</p>
        </Page>
      )}
    </Gate>
  );
}
