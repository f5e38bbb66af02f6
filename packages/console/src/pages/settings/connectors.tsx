import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { ConfirmButton } from '../../components/confirm.js';
import { Done, useRecordedAction } from '../../components/done.js';
import { Checkbox, Form, SelectField, TextArea, TextField } from '../../components/fields.js';
import { useFocusOnShow } from '../../components/focus.js';
import { Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useAction, useApi } from '../../components/use-api.js';
import { useSession } from '../../session/session-context.js';
import { parseDraft } from '../policies/issue-outline.js';

interface Connector {
  id: string;
  type: string;
  name: string;
  targetSystem: string;
  status: string;
  lastCheckedAt: string | null;
  latencyMs: number | null;
  autoExecute: boolean;
  lastError: string | null;
}

interface TestResult {
  connectorId: string;
  ok: boolean;
  latencyMs: number;
  checkedAt: string;
  error?: string;
}

const TYPES = ['noop', 'http', 'github'].map((value) => ({ value, label: value }));

function NewConnector({ onCreated }: { onCreated: () => Promise<void> }) {
  const [type, setType] = useState('noop');
  const [name, setName] = useState('');
  const [targetSystem, setTargetSystem] = useState('');
  const [config, setConfig] = useState('{}');
  const [autoExecute, setAutoExecute] = useState(false);
  const [registered, setRegistered] = useState<string | null>(null);
  const done = useFocusOnShow<HTMLParagraphElement>(registered !== null, registered, true);
  const parsed = parseDraft(config);
  const create = useAction(async () => {
    setRegistered(null);
    const created = await api<{ name: string }>('POST', '/connectors', {
      body: { type, name: name.trim(), targetSystem: targetSystem.trim(), config: parsed.value, autoExecute },
    });
    // The configuration holds the connector's secrets: sealed by the service, gone from the page.
    setName('');
    setTargetSystem('');
    setConfig('{}');
    setAutoExecute(false);
    setRegistered(created.name);
    await onCreated();
  });
  return (
    <Section title="New connector">
      <Form label="Register a connector" onSubmit={() => void create.run()}>
        <div class="filters">
          <SelectField label="Type" value={type} onValue={setType} options={TYPES} />
          <TextField label="Connector name" value={name} onValue={setName} required />
          <TextField
            label="Target system"
            value={targetSystem}
            onValue={setTargetSystem}
            required
            hint="owner/repo"
          />
        </div>
        <TextArea
          label="Configuration (JSON)"
          rows={4}
          value={config}
          onValue={setConfig}
          hint='http: {"url": "https://…"}; github: {"token": "…", "baseUrl"?: "…"}; secrets are sealed and never shown again'
        />
        <Checkbox
          label="Execute approved intents automatically"
          checked={autoExecute}
          onChecked={setAutoExecute}
        />
        <button type="submit" class="primary" disabled={create.busy || parsed.error !== null}>
          Register connector
        </button>
      </Form>
      {registered !== null ? (
        <p class="success" role="status" tabIndex={-1} ref={done}>
          Connector {registered} registered; its secrets are sealed and the form is cleared.
        </p>
      ) : null}
      <Problem error={create.error} />
    </Section>
  );
}

/** Connectors: health as the background checks see it, a test round trip, registration. */
export function Connectors() {
  const { can } = useSession();
  const [results, setResults] = useState<Record<string, TestResult>>({});
  const list = useApi(() => api<{ connectors: Connector[] }>('GET', '/connectors'), 'connectors');
  const test = useRecordedAction(async (id: string, name: string) => {
    const result = await api<TestResult>('POST', `/connectors/${id}/test`);
    setResults((previous) => ({ ...previous, [id]: result }));
    await list.reload();
    return `Tested ${name}: ${result.ok ? 'passed' : `failed: ${result.error ?? ''}`} in ${result.latencyMs} ms.`;
  });
  const remove = useAction(async (id: string) => {
    await api('DELETE', `/connectors/${id}`);
    await list.reload();
  });
  return (
    <>
      <Section title="Connectors">
        <Problem error={list.error ?? test.error ?? remove.error} />
        <Done message={test.done} />
        {list.data && list.data.connectors.length === 0 ? <p class="muted">No connector yet.</p> : null}
        {list.data && list.data.connectors.length > 0 ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Target</th>
                <th scope="col">Health</th>
                <th scope="col">Checked</th>
                <th scope="col">Auto-execute</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.connectors.map((connector) => {
                const result = results[connector.id];
                return (
                  <tr key={connector.id}>
                    <td>{connector.name}</td>
                    <td>{connector.type}</td>
                    <td>{connector.targetSystem}</td>
                    <td>
                      {connector.status}
                      {connector.latencyMs !== null ? ` (${connector.latencyMs} ms)` : ''}
                      {connector.lastError ? `: ${connector.lastError}` : ''}
                      {result ? (
                        <span role="status">
                          {' '}
                          · test {result.ok ? 'passed' : `failed: ${result.error ?? ''}`} in{' '}
                          {result.latencyMs} ms
                        </span>
                      ) : null}
                    </td>
                    <td>{formatTime(connector.lastCheckedAt)}</td>
                    <td>{connector.autoExecute ? 'yes' : 'no'}</td>
                    <td class="buttons">
                      {can('connectors:test') ? (
                        <button
                          type="button"
                          disabled={test.busy}
                          onClick={() => void test.run(connector.id, connector.name)}
                        >
                          Test {connector.name}
                        </button>
                      ) : null}
                      {can('connectors:write') ? (
                        <ConfirmButton
                          label={`Delete ${connector.name}`}
                          question={`Delete ${connector.name}? Approved intents for ${connector.targetSystem} stop executing.`}
                          onConfirm={() => void remove.run(connector.id)}
                        />
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        ) : null}
      </Section>
      {can('connectors:write') ? <NewConnector onCreated={() => list.reload()} /> : null}
    </>
  );
}
