import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { ConfirmButton, ShownOnce } from '../../components/confirm.js';
import { Done, useRecordedAction } from '../../components/done.js';
import { Form, SelectField, TextField } from '../../components/fields.js';
import { Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useAction, useApi } from '../../components/use-api.js';
import { ROLE_PERMISSIONS } from '../../session/roles.js';
import { useSession } from '../../session/session-context.js';

interface KeySummary {
  id: string;
  name: string;
  displayPrefix: string;
  role: string;
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/**
 * API keys: the list (never secrets), a new key shown once, revocation. A user creates and revokes
 * only keys of roles whose permissions it holds (only an owner, owner keys), as the server decides.
 */
export function ApiKeys() {
  const { can } = useSession();
  const within = (keyRole: string) => (ROLE_PERMISSIONS[keyRole] ?? []).every(can);
  const roles = Object.keys(ROLE_PERMISSIONS)
    .filter(within)
    .map((value) => ({ value, label: value }));
  const [name, setName] = useState('');
  const [role, setRole] = useState('agent');
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const keys = useApi(() => api<{ keys: KeySummary[] }>('GET', '/keys'), 'keys');
  const create = useAction(async () => {
    const answer = await api<{ name: string; key: string }>('POST', '/keys', {
      body: { name: name.trim(), role },
    });
    setCreated(answer);
    setName('');
    await keys.reload();
  });
  const revoke = useRecordedAction(async (id: string, name: string) => {
    await api('DELETE', `/keys/${encodeURIComponent(id)}`);
    await keys.reload();
    return `Revoked the key "${name}": requests with it now fail.`;
  });
  return (
    <>
      <Section title="New key">
        <Form label="Create an API key" onSubmit={() => void create.run()}>
          <div class="filters">
            <TextField label="Key name" value={name} onValue={setName} required maxLength={200} />
            <SelectField label="Role" value={role} onValue={setRole} options={roles} />
          </div>
          <button type="submit" class="primary" disabled={create.busy || name.trim() === ''}>
            Create key
          </button>
        </Form>
        <Problem error={create.error} title="The key was not created" />
        {created ? <ShownOnce label={`New key "${created.name}"`} value={created.key} /> : null}
      </Section>
      <Section title="Keys">
        <Problem error={keys.error ?? revoke.error} />
        <Done message={revoke.done} />
        {keys.data ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Role</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td>
                    <code>{key.displayPrefix}…</code>
                  </td>
                  <td>{key.role}</td>
                  <td>{formatTime(key.createdAt)}</td>
                  <td>{formatTime(key.lastUsedAt)}</td>
                  <td>
                    {key.revokedAt ? (
                      `revoked ${formatTime(key.revokedAt)}`
                    ) : !within(key.role) ? (
                      'active'
                    ) : (
                      <ConfirmButton
                        label={`Revoke ${key.name}`}
                        question={`Revoke the key "${key.name}"? Requests with it fail at once.`}
                        onConfirm={() => void revoke.run(key.id, key.name)}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Section>
    </>
  );
}
