import { useEffect, useState } from 'preact/hooks';
import { api, tenantId } from '../../api/client.js';
import { Done, useRecordedAction } from '../../components/done.js';
import { Form, TextField } from '../../components/fields.js';
import { Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useApi } from '../../components/use-api.js';
import { useSession } from '../../session/session-context.js';

interface ThresholdsRecord {
  escalateAt: number;
  denyAt: number;
  modifiers: { privileged: number; production: number; sensitive: number };
  lowConfidenceEscalateBelow: number;
  approvalTtlSeconds: number;
  tokenTtlSeconds: number;
  updatedAt: string | null;
  updatedBy: string | null;
}

const FIELDS = [
  ['escalateAt', 'Escalate at risk score', '0 to 101, at most denyAt'],
  ['denyAt', 'Deny at risk score', 'escalateAt to 101'],
  ['privileged', 'Modifier: privileged access', '0 to 100'],
  ['production', 'Modifier: touches production', '0 to 100'],
  ['sensitive', 'Modifier: sensitive data', '0 to 100'],
  ['lowConfidenceEscalateBelow', 'Escalate below interpretation confidence', '0 to 1'],
  ['approvalTtlSeconds', 'Approval lifetime (seconds)', '60 to 604800'],
  ['tokenTtlSeconds', 'Token lifetime (seconds)', '1 to 300'],
] as const;

type FieldName = (typeof FIELDS)[number][0];

function formOf(record: ThresholdsRecord): Record<FieldName, string> {
  return {
    escalateAt: String(record.escalateAt),
    denyAt: String(record.denyAt),
    privileged: String(record.modifiers.privileged),
    production: String(record.modifiers.production),
    sensitive: String(record.modifiers.sensitive),
    lowConfidenceEscalateBelow: String(record.lowConfidenceEscalateBelow),
    approvalTtlSeconds: String(record.approvalTtlSeconds),
    tokenTtlSeconds: String(record.tokenTtlSeconds),
  };
}

/** Thresholds (contract §4.4): read by policy readers, changed by policy writers; the server validates. */
export function Thresholds() {
  const { can } = useSession();
  const record = useApi(
    () => api<ThresholdsRecord>('GET', `/authority/thresholds/${tenantId()}`),
    'thresholds',
  );
  const [form, setForm] = useState<Record<FieldName, string> | null>(null);
  useEffect(() => {
    if (record.data) setForm(formOf(record.data));
  }, [record.data]);
  const save = useRecordedAction(async () => {
    if (!form) return undefined;
    const number = (name: FieldName) => Number(form[name]);
    await api('PUT', `/authority/thresholds/${tenantId()}`, {
      body: {
        escalateAt: number('escalateAt'),
        denyAt: number('denyAt'),
        modifiers: {
          privileged: number('privileged'),
          production: number('production'),
          sensitive: number('sensitive'),
        },
        lowConfidenceEscalateBelow: number('lowConfidenceEscalateBelow'),
        approvalTtlSeconds: number('approvalTtlSeconds'),
        tokenTtlSeconds: number('tokenTtlSeconds'),
      },
    });
    await record.reload();
    return 'Saved.';
  });
  const writable = can('authority:thresholds:write');
  return (
    <Section title="Risk thresholds">
      <Problem error={record.error} />
      {record.data ? (
        <p class="muted">
          Last changed {formatTime(record.data.updatedAt)}{' '}
          {record.data.updatedBy ? `by ${record.data.updatedBy}` : ''}
        </p>
      ) : null}
      {form ? (
        <Form label="Thresholds" onSubmit={() => void save.run()}>
          <div class="filters">
            {FIELDS.map(([name, label, hint]) => (
              <TextField
                key={name}
                label={label}
                hint={hint}
                inputMode="numeric"
                readOnly={!writable}
                value={form[name]}
                onValue={(value) => setForm({ ...form, [name]: value })}
              />
            ))}
          </div>
          {writable ? (
            <button type="submit" class="primary" disabled={save.busy}>
              Save thresholds
            </button>
          ) : (
            <p class="muted">
              Your role can read the thresholds; changing them needs authority:thresholds:write.
            </p>
          )}
        </Form>
      ) : null}
      <Problem error={save.error} title="The thresholds were not saved" />
      <Done message={save.done} />
    </Section>
  );
}
