import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { ConfirmButton, ShownOnce } from '../../components/confirm.js';
import { Done, useRecordedAction } from '../../components/done.js';
import { Form, TextField } from '../../components/fields.js';
import { Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useAction, useApi } from '../../components/use-api.js';

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  status: string;
  description: string | null;
  disabledReason: string | null;
}

interface Delivery {
  id: string;
  eventId: string;
  event: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const deliveries = useApi(
    () =>
      api<{ deliveries: Delivery[] }>('GET', `/webhooks/${endpoint.id}/deliveries`, { query: { limit: 20 } }),
    endpoint.id,
  );
  const redeliver = useRecordedAction(async (deliveryId: string) => {
    await api('POST', `/webhooks/${endpoint.id}/deliveries/${deliveryId}/redeliver`);
    await deliveries.reload();
    return 'Queued a new delivery of that event: it is sent at once.';
  });
  return (
    <>
      <Problem error={deliveries.error ?? redeliver.error} />
      <Done message={redeliver.done} />
      {deliveries.data && deliveries.data.deliveries.length === 0 ? (
        <p class="muted">No deliveries yet.</p>
      ) : null}
      {deliveries.data && deliveries.data.deliveries.length > 0 ? (
        <table>
          <caption>Deliveries to {endpoint.url}</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Created</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.deliveries.map((delivery) => (
              <tr key={delivery.id}>
                <td>{delivery.event}</td>
                <td>{delivery.status}</td>
                <td>{delivery.attempts}</td>
                <td>{delivery.lastStatusCode ?? delivery.lastError ?? '—'}</td>
                <td>{formatTime(delivery.createdAt)}</td>
                <td>
                  <button
                    type="button"
                    disabled={redeliver.busy}
                    onClick={() => void redeliver.run(delivery.id)}
                  >
                    Redeliver
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

/** Webhooks: endpoints, their deliveries, redelivery and secret rotation (secrets shown once). */
export function Webhooks() {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('*');
  const [secret, setSecret] = useState<{ endpointId: string; label: string; value: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const endpoints = useApi(() => api<{ webhooks: Endpoint[] }>('GET', '/webhooks'), 'webhooks');
  const create = useAction(async () => {
    const eventList = events
      .split(',')
      .map((event) => event.trim())
      .filter(Boolean);
    const answer = await api<Endpoint & { secret: string }>('POST', '/webhooks', {
      body: { url: url.trim(), events: eventList },
    });
    setSecret({ endpointId: answer.id, label: `Signing secret of ${answer.url}`, value: answer.secret });
    setUrl('');
    await endpoints.reload();
  });
  const rotate = useAction(async (endpoint: Endpoint) => {
    const answer = await api<{ secret: string }>('POST', `/webhooks/${endpoint.id}/rotate-secret`);
    setSecret({
      endpointId: endpoint.id,
      label: `New signing secret of ${endpoint.url}`,
      value: answer.secret,
    });
  });
  const remove = useRecordedAction(async (endpoint: Endpoint) => {
    await api('DELETE', `/webhooks/${endpoint.id}`);
    // A secret shown for this endpoint goes with it.
    setSecret((shown) => (shown?.endpointId === endpoint.id ? null : shown));
    await endpoints.reload();
    return `Deleted the endpoint ${endpoint.url}: nothing more is sent to it.`;
  });
  return (
    <>
      <Section title="New endpoint">
        <Form label="Register a webhook endpoint" onSubmit={() => void create.run()}>
          <div class="filters">
            <TextField label="Receiver URL" type="url" value={url} onValue={setUrl} required />
            <TextField
              label="Events"
              value={events}
              onValue={setEvents}
              hint="* or a comma-separated list: decision.completed, decision.escalated, decision.approved, decision.denied, chain.break"
            />
          </div>
          <button type="submit" class="primary" disabled={create.busy || url.trim() === ''}>
            Register endpoint
          </button>
        </Form>
        <Problem error={create.error} />
      </Section>
      {secret ? <ShownOnce label={secret.label} value={secret.value} /> : null}
      <Section title="Endpoints">
        <Problem error={endpoints.error ?? rotate.error ?? remove.error} />
        <Done message={remove.done} />
        {endpoints.data && endpoints.data.webhooks.length === 0 ? (
          <p class="muted">No endpoint yet.</p>
        ) : null}
        {endpoints.data?.webhooks.map((endpoint) => (
          <article key={endpoint.id} class="card" aria-label={`Endpoint ${endpoint.url}`}>
            <p>
              <strong>{endpoint.url}</strong> · {endpoint.status}
              {endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''} · events{' '}
              {endpoint.events.join(', ')}
            </p>
            <div class="buttons">
              <button
                type="button"
                aria-expanded={open === endpoint.id}
                onClick={() => setOpen(open === endpoint.id ? null : endpoint.id)}
              >
                {open === endpoint.id ? 'Hide deliveries' : 'Show deliveries'}
              </button>
              <ConfirmButton
                label="Rotate secret"
                question="Replace the signing secret? The receiver must switch to the new one."
                onConfirm={() => void rotate.run(endpoint)}
              />
              <ConfirmButton
                label="Delete endpoint"
                question={`Delete ${endpoint.url} and its queued deliveries?`}
                onConfirm={() => void remove.run(endpoint)}
              />
            </div>
            {open === endpoint.id ? <Deliveries endpoint={endpoint} /> : null}
          </article>
        ))}
      </Section>
    </>
  );
}
