import { useState } from 'preact/hooks';
import { api, tenantId } from '../../api/client.js';
import { download } from '../../api/download.js';
import { Form, TextField } from '../../components/fields.js';
import { Gate } from '../../components/gate.js';
import { Page, Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useAction, useApi } from '../../components/use-api.js';
import { useSession } from '../../session/session-context.js';

interface Verification {
  valid: boolean;
  length: number;
  latestHash: string;
  verifiedAt: string;
  checkpointsVerified: number;
  brokenAt?: number;
  reason?: string;
}

interface Checkpoint {
  index: number;
  entryHash: string;
  issuedAt: string;
  kid: string;
}

const indexOrUndefined = (text: string) => (text.trim() === '' ? undefined : Number(text.trim()));

function Verify() {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [result, setResult] = useState<Verification | null>(null);
  const verify = useAction(async () => {
    setResult(null);
    const body: Record<string, number> = {};
    const start = indexOrUndefined(from);
    const end = indexOrUndefined(to);
    if (start !== undefined) body.from = start;
    if (end !== undefined) body.to = end;
    setResult(await api<Verification>('POST', '/audit/verify-chain', { body }));
  });
  return (
    <Section title="Verify the chain">
      <Form label="Verify the chain" onSubmit={() => void verify.run()}>
        <div class="filters">
          <TextField
            label="From index"
            inputMode="numeric"
            value={from}
            onValue={setFrom}
            hint="Empty: the start"
          />
          <TextField label="To index" inputMode="numeric" value={to} onValue={setTo} hint="Empty: the head" />
        </div>
        <button type="submit" class="primary" disabled={verify.busy}>
          {verify.busy ? 'Verifying…' : 'Verify chain'}
        </button>
      </Form>
      <Problem error={verify.error} />
      {result ? (
        <div class={result.valid ? 'success' : 'problem'} role="status">
          <p>
            <strong>{result.valid ? 'VALID' : 'BROKEN'}</strong>: {result.length} entries,{' '}
            {result.checkpointsVerified} checkpoints verified at {formatTime(result.verifiedAt)}.
          </p>
          {result.brokenAt !== undefined ? (
            <p>
              Broken at <a href={`/console/audit/entries/${result.brokenAt}`}>entry #{result.brokenAt}</a>:{' '}
              {result.reason}
            </p>
          ) : null}
          <p>
            Latest hash <code class="hash">{result.latestHash}</code>
          </p>
        </div>
      ) : null}
    </Section>
  );
}

function Checkpoints() {
  const { data, error } = useApi(
    () => api<{ checkpoints: Checkpoint[] }>('GET', `/audit/${tenantId()}/checkpoints`),
    'checkpoints',
  );
  return (
    <Section title="Signed checkpoints">
      <Problem error={error} />
      {data && data.checkpoints.length === 0 ? <p class="muted">No checkpoint yet.</p> : null}
      {data && data.checkpoints.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Index</th>
              <th scope="col">Entry hash</th>
              <th scope="col">Key</th>
              <th scope="col">Issued</th>
            </tr>
          </thead>
          <tbody>
            {data.checkpoints.map((checkpoint) => (
              <tr key={`${checkpoint.index}-${checkpoint.issuedAt}`}>
                <td>
                  <a href={`/console/audit/entries/${checkpoint.index}`}>#{checkpoint.index}</a>
                </td>
                <td>
                  <code class="hash">{checkpoint.entryHash}</code>
                </td>
                <td>
                  <code>{checkpoint.kid}</code>
                </td>
                <td>{formatTime(checkpoint.issuedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}

function Export() {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const run = useAction(async () => {
    const text = await api<string>('GET', `/audit/${tenantId()}/export`, {
      query: { fromIndex: indexOrUndefined(from), toIndex: indexOrUndefined(to) },
      text: true,
    });
    download(`audit-${tenantId()}.ndjson`, text, 'application/x-ndjson');
  });
  return (
    <Section title="Export">
      <p>
        The entries and checkpoints as NDJSON, for offline verification with{' '}
        <code>authority chain verify</code>.
      </p>
      <Form label="Export the chain" onSubmit={() => void run.run()}>
        <div class="filters">
          <TextField label="Export from index" inputMode="numeric" value={from} onValue={setFrom} />
          <TextField label="Export to index" inputMode="numeric" value={to} onValue={setTo} />
        </div>
        <button type="submit" disabled={run.busy}>
          Download export
        </button>
      </Form>
      <Problem error={run.error} />
    </Section>
  );
}

/** Chain verification (with brokenAt), the signed checkpoints and the export download. */
export function ChainPage() {
  const { can } = useSession();
  return (
    <Gate anyOf={['audit:read', 'audit:verify']} title="Audit chain">
      <Page title="Audit chain">
        {can('audit:verify') ? <Verify /> : null}
        {can('audit:read') ? <Checkpoints /> : null}
        {can('audit:read') ? <Export /> : null}
      </Page>
    </Gate>
  );
}
