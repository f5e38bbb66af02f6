import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { Checkbox, Form, TextArea } from '../../components/fields.js';
import { Gate } from '../../components/gate.js';
import { Json, Page, Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useAction, useApi } from '../../components/use-api.js';
import { useSession } from '../../session/session-context.js';
import { IssueOutline, issuesOf, parseDraft } from './issue-outline.js';
import { PolicyTabs } from './policy-tabs.js';

interface ActivePhysicalPolicy {
  active: { description?: string; clauses: unknown[] };
  version: number;
  activatedAt: number | null;
}

function Upload({ initial, onSaved }: { initial: string; onSaved: () => Promise<void> }) {
  const [text, setText] = useState(initial);
  const [activate, setActivate] = useState(false);
  const [saved, setSaved] = useState<{ version: number; active: boolean } | null>(null);
  const draft = parseDraft(text);
  const upload = useAction(async () => {
    setSaved(null);
    setSaved(await api('POST', '/v1/physical/policy', { body: { policy: draft.value, activate } }));
    await onSaved();
  });
  const issues = issuesOf(upload.error);
  const clauses = (draft.value as { clauses?: unknown } | undefined)?.clauses;
  return (
    <Section title="Upload a new version">
      <Form label="Upload a physical policy version" onSubmit={() => void upload.run()}>
        <TextArea
          label="Policy document (JSON)"
          rows={18}
          value={text}
          onValue={setText}
          describedBy={issues.length > 0 ? 'physical-issues' : undefined}
          hint="{description?, clauses: [{id, effect, appliesTo?, when?, safeDefault, citations?}]}; built-in clauses always apply first."
        />
        {draft.error ? (
          <p class="problem" role="alert">
            Not valid JSON: {draft.error}
          </p>
        ) : null}
        <Checkbox label="Activate on upload" checked={activate} onChecked={setActivate} />
        <button type="submit" class="primary" disabled={upload.busy || draft.error !== null}>
          Upload version
        </button>
      </Form>
      {issues.length > 0 ? (
        <IssueOutline
          id="physical-issues"
          items={Array.isArray(clauses) ? clauses : []}
          issues={issues}
          collection="clauses"
          noun="Clause"
        />
      ) : (
        <Problem error={upload.error} />
      )}
      {saved ? (
        <p class="success" role="status">
          Uploaded v{saved.version}
          {saved.active ? ' and activated it.' : ' (not active).'}
        </p>
      ) : null}
    </Section>
  );
}

/** The physical clause policy (contract §9, §14): the active version and uploads with their validation. */
export function PhysicalPolicy() {
  return (
    <Gate anyOf={['authority:policy:read', 'physical:policy:read']} title="Policies">
      <Page title="Physical clause policy">
        <PolicyTabs />
        <Gate anyOf={['physical:policy:read']} title="the physical clause policy" inline>
          <ActivePolicy />
        </Gate>
      </Page>
    </Gate>
  );
}

/** Loaded only for roles that may read the physical policy (no request fails behind the refusal). */
function ActivePolicy() {
  const { can } = useSession();
  const active = useApi(() => api<ActivePhysicalPolicy>('GET', '/v1/physical/policy'), 'physical-policy');
  const current = active.data;
  return (
    <>
      <Problem error={active.error} />
      {current ? (
        <Section
          title={current.version === 0 ? 'Active: the default policy (v0)' : `Active: v${current.version}`}
        >
          <p>
            {current.active.clauses.length} clauses; activated {formatTime(current.activatedAt)}. The service
            keeps no list of earlier uploads: to roll back, upload the earlier document again and activate it.
          </p>
          <Json value={current.active} label="Active physical policy" />
        </Section>
      ) : null}
      {current && can('physical:policy:write') ? (
        <Upload
          key={current.version}
          initial={JSON.stringify(current.active, null, 2)}
          onSaved={() => active.reload()}
        />
      ) : null}
    </>
  );
}
