import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { PolicyVersion, SimulationResult } from '../../api/types.js';
import { Checkbox, Form, SelectField, TextArea, TextField } from '../../components/fields.js';
import { Gate } from '../../components/gate.js';
import { Page, Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useAction, useApi } from '../../components/use-api.js';
import { IssueOutline, issuesOf, parseDraft } from './issue-outline.js';
import { PolicyTabs } from './policy-tabs.js';

const DRAFT = 'draft';
const ownRules = (version: PolicyVersion) => version.rules.filter((rule) => !String(rule.id).includes('/'));

function Outcome({ result }: { result: SimulationResult }) {
  const transitions = Object.entries(result.transitions);
  return (
    <Section title="Simulation result">
      <p role="status">
        {result.evaluated} intents replayed, {result.changed} would change ({result.durationMs} ms).
      </p>
      {transitions.length > 0 ? (
        <ul aria-label="Transitions">
          {transitions.map(([pair, count]) => (
            <li key={pair}>
              {pair.replace('->', ' → ')}: {count}
            </li>
          ))}
        </ul>
      ) : null}
      {result.changes.length > 0 ? (
        <table>
          <caption>Changed intents (newest first)</caption>
          <thead>
            <tr>
              <th scope="col">Intent</th>
              <th scope="col">Created</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {result.changes.map((change) => (
              <tr key={change.intentId}>
                <td>
                  <a href={`/console/intents/${change.intentId}`}>{change.intentId}</a>
                </td>
                <td>{formatTime(change.createdAt)}</td>
                <td>
                  {change.before.decision} (<code>{change.before.decidingRule.id}</code>)
                </td>
                <td>
                  {change.after.decision} (<code>{change.after.decidingRule.id}</code>)
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}

function SimulationForm({ active, versions }: { active: PolicyVersion; versions: PolicyVersion[] }) {
  const [source, setSource] = useState(DRAFT);
  const [text, setText] = useState(JSON.stringify(ownRules(active), null, 2));
  const [replacePacks, setReplacePacks] = useState(false);
  const [limit, setLimit] = useState('');
  const [result, setResult] = useState<SimulationResult | null>(null);
  const draft = parseDraft(text);
  const usesDraft = source === DRAFT;
  const run = useAction(async () => {
    setResult(null);
    const sample = limit.trim() === '' ? {} : { sample: { limit: Number(limit) } };
    const body = usesDraft
      ? { rules: draft.value, replacePacks, ...sample }
      : { version: Number(source), ...sample };
    setResult(await api<SimulationResult>('POST', '/authority/policy/simulate', { body }));
  });
  const issues = issuesOf(run.error);
  const items = Array.isArray(draft.value) ? draft.value : [];
  const options = [
    { value: DRAFT, label: 'The draft below' },
    ...versions.map((version) => ({
      value: String(version.version),
      label: `Stored v${version.version}${version.status ? ` (${version.status})` : ''}`,
    })),
  ];
  return (
    <>
      <Form label="Simulate a policy" onSubmit={() => void run.run()}>
        <SelectField label="Policy to simulate" value={source} onValue={setSource} options={options} />
        {usesDraft ? (
          <>
            <TextArea
              label="Draft rules (JSON array)"
              rows={16}
              value={text}
              onValue={setText}
              describedBy={issues.length > 0 ? 'simulation-issues' : undefined}
              hint="Starts as the active version's rules; installed pack rules are kept unless you replace them."
            />
            {draft.error ? (
              <p class="problem" role="alert">
                Not valid JSON: {draft.error}
              </p>
            ) : null}
            <Checkbox
              label="Replace the installed packs' rules"
              checked={replacePacks}
              onChecked={setReplacePacks}
            />
          </>
        ) : null}
        <TextField
          label="Sample limit"
          inputMode="numeric"
          value={limit}
          onValue={setLimit}
          hint="The most recent intents to replay: 1 to 10000, default 1000"
        />
        <button type="submit" class="primary" disabled={run.busy || (usesDraft && draft.error !== null)}>
          Run simulation
        </button>
      </Form>
      {usesDraft && issues.length > 0 ? (
        <IssueOutline id="simulation-issues" items={items} issues={issues} collection="rules" noun="Rule" />
      ) : (
        <Problem error={run.error} title="Simulation refused" />
      )}
      {result ? <Outcome result={result} /> : null}
    </>
  );
}

function SimulationBody() {
  const active = useApi(() => api<PolicyVersion>('GET', '/authority/policy'), 'active');
  const versions = useApi(
    () => api<{ versions: PolicyVersion[] }>('GET', '/authority/policy/versions'),
    'versions',
  );
  return (
    <>
      <p>Replays recent intents against a draft or a stored version: decides, records and mints nothing.</p>
      <Problem error={active.error ?? versions.error} />
      {active.data && versions.data ? (
        <SimulationForm active={active.data} versions={versions.data.versions} />
      ) : null}
    </>
  );
}

/** Policy simulation (contract §16): POST /authority/policy/simulate. */
export function Simulation() {
  return (
    <Gate anyOf={['authority:policy:read', 'physical:policy:read']} title="Policies">
      <Page title="Policy simulation">
        <PolicyTabs />
        <Gate anyOf={['authority:policy:read']} title="the simulation" inline>
          <SimulationBody />
        </Gate>
      </Page>
    </Gate>
  );
}
