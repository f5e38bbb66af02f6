import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { Form, SelectField, TextField } from '../../components/fields.js';
import { Section } from '../../components/page.js';
import { PagerButtons, usePager } from '../../components/pager.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useAction, useApi } from '../../components/use-api.js';
import { useSession } from '../../session/session-context.js';

interface Actor {
  id: string;
  actorIdentity: string;
  actorIdentityKind: string;
  actorKind: string;
  displayName: string | null;
  status: string;
  createdAtMs: number;
}

const KINDS = ['robot', 'drone', 'vehicle', 'cobot', 'agv', 'amr', 'rov', 'other'].map((value) => ({
  value,
  label: value,
}));

/** The physical actor roster: machines allowed to ask for physical tokens. */
export function PhysicalActors() {
  const { can } = useSession();
  const pager = usePager('actors');
  const [identity, setIdentity] = useState('');
  const [kind, setKind] = useState('robot');
  const [displayName, setDisplayName] = useState('');
  const actors = useApi(
    () =>
      api<{ actors: Actor[]; nextCursor: string | null }>('GET', '/v1/physical/actors', {
        query: { limit: 25, cursor: pager.cursor },
      }),
    pager.cursor ?? '',
  );
  const register = useAction(
    async (status: string, actorIdentity: string, actorKind: string, name: string) => {
      await api('POST', '/v1/physical/actors', {
        body: { actorIdentity, actorKind, status, ...(name ? { displayName: name } : {}) },
      });
      await actors.reload();
    },
  );
  return (
    <>
      {can('physical:actors:write') ? (
        <Section title="Register an actor">
          <Form
            label="Register a physical actor"
            onSubmit={() => void register.run('active', identity.trim(), kind, displayName.trim())}
          >
            <div class="filters">
              <TextField
                label="Actor identity"
                value={identity}
                onValue={setIdentity}
                required
                hint="e.g. devid:arm-7"
              />
              <SelectField label="Actor kind" value={kind} onValue={setKind} options={KINDS} />
              <TextField label="Display name" value={displayName} onValue={setDisplayName} />
            </div>
            <button type="submit" class="primary" disabled={register.busy || identity.trim() === ''}>
              Register actor
            </button>
          </Form>
        </Section>
      ) : null}
      <Section title="Roster">
        <Problem error={actors.error ?? register.error} />
        {actors.data ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Identity</th>
                <th scope="col">Kind</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Registered</th>
                {can('physical:actors:write') ? <th scope="col">Action</th> : null}
              </tr>
            </thead>
            <tbody>
              {actors.data.actors.map((actor) => (
                <tr key={actor.id}>
                  <td>
                    <code>{actor.actorIdentity}</code>
                  </td>
                  <td>{actor.actorKind}</td>
                  <td>{actor.displayName ?? '—'}</td>
                  <td>{actor.status}</td>
                  <td>{formatTime(actor.createdAtMs)}</td>
                  {can('physical:actors:write') ? (
                    <td>
                      <button
                        type="button"
                        onClick={() =>
                          void register.run(
                            actor.status === 'active' ? 'disabled' : 'active',
                            actor.actorIdentity,
                            actor.actorKind,
                            actor.displayName ?? '',
                          )
                        }
                      >
                        {actor.status === 'active'
                          ? `Disable ${actor.actorIdentity}`
                          : `Enable ${actor.actorIdentity}`}
                      </button>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <PagerButtons pager={pager} nextCursor={actors.data?.nextCursor} />
      </Section>
    </>
  );
}
