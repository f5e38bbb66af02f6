import { useState } from 'preact/hooks';
import { api, tenantId } from '../../api/client.js';
import type { TimelineEvent } from '../../api/types.js';
import { ConfirmButton } from '../../components/confirm.js';
import { Done, useRecordedAction } from '../../components/done.js';
import { Form, TextArea, TextField } from '../../components/fields.js';
import { Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useAction, useApi } from '../../components/use-api.js';
import { useSession } from '../../session/session-context.js';

interface Tenant {
  id: string;
  name: string;
  plan: string;
  killSwitch: { enabled: boolean; reason: string | null; changedBy: string | null; changedAt: string | null };
  ipAllowlist: string[];
}

function KillSwitch({ tenant, onChanged }: { tenant: Tenant; onChanged: () => Promise<void> }) {
  const [reason, setReason] = useState('');
  const change = useRecordedAction(async (enabled: boolean) => {
    await api('PUT', `/authority/kill-switch/${tenantId()}`, {
      body: { enabled, reason: reason.trim() || undefined },
    });
    setReason('');
    await onChanged();
    return `Recorded: the kill switch is now ${enabled ? 'on' : 'off'}.`;
  });
  const on = tenant.killSwitch.enabled;
  return (
    <Section title="Kill switch">
      <p class={on ? 'problem' : ''}>
        The kill switch is <strong>{on ? 'ON: every intent is DENIED' : 'off'}</strong>
        {tenant.killSwitch.changedAt
          ? ` (changed ${formatTime(tenant.killSwitch.changedAt)} by ${tenant.killSwitch.changedBy ?? '?'}${
              tenant.killSwitch.reason ? `: ${tenant.killSwitch.reason}` : ''
            })`
          : ''}
        .
      </p>
      <TextField
        label="Reason"
        value={reason}
        onValue={setReason}
        maxLength={500}
        required={!on}
        hint={on ? 'Recorded in the audit chain' : 'Required to turn it on; recorded in the audit chain'}
      />
      <ConfirmButton
        label={on ? 'Turn the kill switch off' : 'Turn the kill switch on'}
        disabled={!on && reason.trim() === ''}
        question={
          on
            ? 'Turn the kill switch off? Intents are decided by policy again.'
            : 'Turn the kill switch on? Every intent of this tenant is DENIED until it is turned off.'
        }
        onConfirm={() => void change.run(!on)}
      />
      <Problem error={change.error} />
      <Done message={change.done} />
    </Section>
  );
}

function IpAllowlist({ tenant, onChanged }: { tenant: Tenant; onChanged: () => Promise<void> }) {
  const [text, setText] = useState(tenant.ipAllowlist.join('\n'));
  const save = useAction(async () => {
    const cidrs = text
      .split(/[\s,]+/)
      .map((value) => value.trim())
      .filter(Boolean);
    await api('PUT', '/tenant/ip-allowlist', { body: { cidrs } });
    await onChanged();
  });
  return (
    <Section title="IP allowlist">
      <Form label="IP allowlist" onSubmit={() => void save.run()}>
        <TextArea
          label="Allowed addresses and CIDR blocks"
          rows={5}
          value={text}
          onValue={setText}
          hint="One per line; empty allows every address. A list that excludes your own address is refused."
        />
        <button type="submit" class="primary" disabled={save.busy}>
          Save allowlist
        </button>
      </Form>
      <Problem error={save.error} />
    </Section>
  );
}

function Floor() {
  const [agreementVersion, setAgreementVersion] = useState('');
  const [result, setResult] = useState<{ enabled: boolean } | null>(null);
  const last = useApi(
    () =>
      api<{ events: TimelineEvent[] }>('GET', `/audit/${tenantId()}/timeline`, {
        query: { eventType: 'floor.changed', limit: 1 },
      }),
    'floor',
  );
  const change = useAction(async (enabled: boolean) => {
    setResult(
      await api<{ enabled: boolean }>('PUT', `/authority/floor/${tenantId()}`, {
        body: enabled ? { enabled } : { enabled, agreementVersion: agreementVersion.trim() },
      }),
    );
    await last.reload();
  });
  const lastChange = last.data?.events[0];
  return (
    <Section title="Catastrophic floor">
      <p>
        The floor escalates destructive actions (DROP, TRUNCATE, rm -rf, force pushes) to two senior
        approvers.{' '}
        {result
          ? `It is now ${result.enabled ? 'enabled' : 'disabled'}.`
          : lastChange
            ? `Last change: ${lastChange.summary}, by ${lastChange.actorId} (${formatTime(lastChange.createdAt)}).`
            : 'It has never been changed: it is enabled.'}
      </p>
      <TextField
        label="Agreement version"
        value={agreementVersion}
        onValue={setAgreementVersion}
        hint="Needed to disable the floor: the FLOOR_AGREEMENT_VERSION the service announces (default 2026-01)"
      />
      <div class="buttons">
        <ConfirmButton
          label="Disable the floor"
          question="Disable the catastrophic floor? Destructive actions will be decided by your rules alone."
          disabled={agreementVersion.trim() === ''}
          onConfirm={() => void change.run(false)}
        />
        <button type="button" onClick={() => void change.run(true)} disabled={change.busy}>
          Enable the floor
        </button>
      </div>
      <Problem error={change.error ?? last.error} />
    </Section>
  );
}

/** The tenant's controls: kill switch (with confirmation), IP allowlist, catastrophic floor (owner). */
export function TenantControls() {
  const { can } = useSession();
  const tenant = useApi(() => api<Tenant>('GET', '/tenant'), 'tenant');
  return (
    <>
      <Problem error={tenant.error} />
      {tenant.data && can('authority:killswitch:write') ? (
        <KillSwitch tenant={tenant.data} onChanged={() => tenant.reload()} />
      ) : null}
      {tenant.data && can('tenant:admin') ? (
        <IpAllowlist
          key={tenant.data.ipAllowlist.join(',')}
          tenant={tenant.data}
          onChanged={() => tenant.reload()}
        />
      ) : null}
      {can('authority:floor:write') ? <Floor /> : null}
    </>
  );
}
