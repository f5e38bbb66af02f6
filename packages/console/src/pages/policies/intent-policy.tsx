import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { PolicyVersion, ReviewSetting } from '../../api/types.js';
import { ConfirmButton } from '../../components/confirm.js';
import { Done, useRecordedAction } from '../../components/done.js';
import { Checkbox, Form, TextArea } from '../../components/fields.js';
import { Gate } from '../../components/gate.js';
import { Json, Page, Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useAction, useApi } from '../../components/use-api.js';
import { useSession } from '../../session/session-context.js';
import { IssueOutline, issuesOf, parseDraft } from './issue-outline.js';
import { PolicyTabs } from './policy-tabs.js';
import { ReviewForm, Reviews } from './review.js';
import { ReviewSettingSection } from './review-setting.js';

/** Pack rules (`<pack>/<rule>`) are kept by a save unless replacePacks; the editor holds the others. */
const ownRules = (version: PolicyVersion) => version.rules.filter((rule) => !String(rule.id).includes('/'));
const draftOf = (version: PolicyVersion) => JSON.stringify(ownRules(version), null, 2);

function History({
  versions,
  reviewRequired,
  active,
  onLoad,
  onChanged,
}: {
  versions: PolicyVersion[];
  reviewRequired: boolean;
  active: PolicyVersion;
  onLoad: (version: PolicyVersion) => void;
  onChanged: () => Promise<void>;
}) {
  const { can } = useSession();
  const activate = useRecordedAction(async (version: number) => {
    await api('POST', `/authority/policy/versions/${version}/activate`);
    await onChanged();
    return version < active.version ? `Rolled back to v${version}.` : `Activated v${version}.`;
  });
  return (
    <Section title="Versions">
      <Problem error={activate.error} title="Activation refused" />
      <Done message={activate.done} />
      <table>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">State</th>
            <th scope="col">Rules</th>
            <th scope="col">Packs</th>
            <th scope="col">Created</th>
            <th scope="col">Reviews</th>
            <th scope="col">Activated</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((version) => (
            <tr key={version.version}>
              <td>v{version.version}</td>
              <td>{version.active ? <strong>active</strong> : (version.status ?? 'inactive')}</td>
              <td>{version.rules.length}</td>
              <td>{version.packs.join(', ') || '—'}</td>
              <td>
                {formatTime(version.createdAt)} by <code>{version.author ?? version.createdBy}</code>
              </td>
              <td>
                <Reviews version={version} />
                <ReviewForm version={version} reviewRequired={reviewRequired} onChanged={onChanged} />
              </td>
              <td>{formatTime(version.activatedAt)}</td>
              <td class="buttons">
                <button type="button" onClick={() => onLoad(version)}>
                  Edit a copy of v{version.version}
                </button>
                {!version.active && can('authority:policy:write') ? (
                  <ConfirmButton
                    kind="primary"
                    disabled={activate.busy}
                    label={
                      version.version < active.version
                        ? `Roll back to v${version.version}`
                        : `Activate v${version.version}`
                    }
                    question={`Make v${version.version} the active policy? From the next decision on, every intent is decided by its ${version.rules.length} rules instead of v${active.version}'s.`}
                    onConfirm={() => void activate.run(version.version)}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function Editor({
  initial,
  packs,
  saved,
  onSaved,
}: {
  initial: string;
  packs: string[];
  /** The last version saved here; kept by the page, since a save that activates remounts the editor. */
  saved: PolicyVersion | null;
  onSaved: (version: PolicyVersion) => Promise<void>;
}) {
  const [text, setText] = useState(initial);
  const [activate, setActivate] = useState(false);
  const [replacePacks, setReplacePacks] = useState(false);
  const draft = parseDraft(text);
  const save = useAction(async () => {
    const version = await api<PolicyVersion>('POST', '/authority/policy', {
      body: { rules: draft.value, activate, replacePacks },
    });
    await onSaved(version);
  });
  const issues = issuesOf(save.error);
  const items = Array.isArray(draft.value) ? draft.value : [];
  return (
    <Section title="New version">
      <Form label="New policy version" onSubmit={() => void save.run()}>
        <TextArea
          label="Rules (JSON array)"
          rows={18}
          value={text}
          onValue={setText}
          describedBy={issues.length > 0 ? 'policy-issues' : undefined}
          hint={
            packs.length > 0
              ? `Rules of the installed packs (${packs.join(', ')}) are kept unless you replace them.`
              : 'Each rule: {id, effect, priority?, bindings?, conditions?}.'
          }
        />
        {draft.error ? (
          <p class="problem" role="alert">
            Not valid JSON: {draft.error}
          </p>
        ) : null}
        <Checkbox label="Activate on save" checked={activate} onChecked={setActivate} />
        <Checkbox
          label="Replace the installed packs' rules"
          checked={replacePacks}
          onChecked={setReplacePacks}
        />
        <button type="submit" class="primary" disabled={save.busy || draft.error !== null}>
          Save version
        </button>
      </Form>
      {issues.length > 0 ? (
        <IssueOutline id="policy-issues" items={items} issues={issues} collection="rules" noun="Rule" />
      ) : (
        <Problem error={save.error} />
      )}
      {saved && !save.busy && !save.error ? (
        <p class="success" role="status">
          Saved v{saved.version}
          {saved.active
            ? ' and activated it'
            : saved.status === 'draft'
              ? ' as a draft: it needs review before it can be activated'
              : ' (not active: activate it from the versions table)'}
          .
        </p>
      ) : null}
    </Section>
  );
}

function PolicyBody() {
  const { can } = useSession();
  const active = useApi(() => api<PolicyVersion>('GET', '/authority/policy'), 'active');
  const versions = useApi(
    () => api<{ versions: PolicyVersion[]; review: ReviewSetting }>('GET', '/authority/policy/versions'),
    'versions',
  );
  const [draft, setDraft] = useState<{ key: number; text: string } | null>(null);
  const [saved, setSaved] = useState<PolicyVersion | null>(null);
  const reload = async () => {
    await Promise.all([active.reload(), versions.reload()]);
  };
  const current = active.data;
  const editorText = draft?.text ?? (current ? draftOf(current) : '[]');
  return (
    <>
      <Problem error={active.error ?? versions.error} />
      {current ? (
        <Section title={`Active: v${current.version}`}>
          <p>
            {current.rules.length} rules, packs {current.packs.join(', ') || 'none'}; activated{' '}
            {formatTime(current.activatedAt)}.
          </p>
          <details>
            <summary>Show the active rules</summary>
            <Json value={current.rules} label="Active rules" />
          </details>
        </Section>
      ) : null}
      {versions.data ? <ReviewSettingSection review={versions.data.review} onChanged={reload} /> : null}
      {current && versions.data ? (
        <History
          versions={versions.data.versions}
          reviewRequired={versions.data.review.required}
          active={current}
          onLoad={(version) => {
            setSaved(null);
            setDraft({ key: Date.now(), text: draftOf(version) });
          }}
          onChanged={reload}
        />
      ) : null}
      {current && can('authority:policy:write') ? (
        <Editor
          key={draft?.key ?? current.version}
          initial={editorText}
          packs={current.packs}
          saved={saved}
          onSaved={async (version) => {
            setSaved(version);
            await reload();
          }}
        />
      ) : null}
    </>
  );
}

/**
 * Policies (contract §14 page 4): the active version, the review setting (§16), the history, a new
 * version, activation and rollback.
 */
export function IntentPolicy() {
  return (
    <Gate anyOf={['authority:policy:read', 'physical:policy:read']} title="Policies">
      <Page title="Policies">
        <PolicyTabs />
        <Gate anyOf={['authority:policy:read']} title="the intent policy" inline>
          <PolicyBody />
        </Gate>
      </Page>
    </Gate>
  );
}
