import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { PolicyVersion, SimulationResult } from '../../api/types.js';
import { Checkbox, Form, SelectField, TextArea, TextField } from '../../components/fields.js';
import { Gate } from '../../components/gate.js';
import { Page, Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { formatTime, isoOf } from '../../components/time.js';
import { useAction, useApi } from '../../components/use-api.js';
import { type Issue, IssueOutline, issuesOf, parseDraft } from './issue-outline.js';
import { PolicyTabs } from './policy-tabs.js';

const DRAFT = 'draft';
const ownRules = (version: PolicyVersion) => version.rules.filter((rule) => !String(rule.id).includes('/'));

/** The sample's inputs as typed: `from` and `to` are datetime-local values (the browser's time zone). */
interface SampleInputs {
  limit: string;
  from: string;
  to: string;
  actorId: string;
  targetSystem: string;
}
type SampleField = keyof SampleInputs;
/** The `sample` of the request body. */
type Sample = Record<string, string | number>;
const SAMPLE_FIELDS: readonly SampleField[] = ['limit', 'from', 'to', 'actorId', 'targetSystem'];
const NO_SAMPLE: SampleInputs = { limit: '', from: '', to: '', actorId: '', targetSystem: '' };

/**
 * The `sample` of contract §16 from the inputs, or the message of each input the server would
 * refuse. Only what the request schema itself refuses is checked here (a limit that is not a whole
 * number from 1 to 10,000); everything else, such as `from` after `to`, is left to the server, whose
 * 400 is shown next to the field it names.
 */
function sampleOf(
  inputs: SampleInputs,
): { sample: Record<string, string | number> } | { errors: Partial<Record<SampleField, string>> } {
  const sample: Sample = {};
  const errors: Partial<Record<SampleField, string>> = {};
  const limit = inputs.limit.trim();
  if (limit !== '') {
    const value = Number(limit);
    if (/^\d+$/.test(limit) && value >= 1 && value <= 10_000) sample.limit = value;
    else errors.limit = 'A whole number from 1 to 10000.';
  }
  for (const field of ['from', 'to'] as const) {
    if (inputs[field] === '') continue;
    const iso = isoOf(inputs[field]);
    if (iso === undefined) errors[field] = 'Not a date and time.';
    else sample[field] = iso;
  }
  for (const field of ['actorId', 'targetSystem'] as const) {
    const value = inputs[field].trim();
    if (value !== '') sample[field] = value;
  }
  return Object.keys(errors).length > 0 ? { errors } : { sample };
}

/** The server's issues about the sample (`/sample/<field>`), by field. */
function sampleIssuesOf(issues: readonly Issue[]): Partial<Record<SampleField, string>> {
  const byField: Partial<Record<SampleField, string>> = {};
  for (const issue of issues) {
    const field = /^\/sample\/([A-Za-z]+)/.exec(issue.path)?.[1];
    const known = SAMPLE_FIELDS.find((name) => name === field);
    if (known) byField[known] = [byField[known], issue.message].filter(Boolean).join('; ');
  }
  return byField;
}

/** The sample a result was computed on, in words. */
function describeSample(sample: Sample): string {
  const filters = [
    sample.actorId === undefined ? '' : `actor ${sample.actorId}`,
    sample.targetSystem === undefined ? '' : `target system ${sample.targetSystem}`,
    sample.from === undefined ? '' : `created from ${formatTime(sample.from)}`,
    sample.to === undefined ? '' : `created before ${formatTime(sample.to)}`,
  ].filter(Boolean);
  return `Sample: up to the ${sample.limit ?? 1000} most recent intents${filters.length > 0 ? ` (${filters.join(', ')})` : ''}.`;
}

function Outcome({ result, sample }: { result: SimulationResult; sample: Sample }) {
  const transitions = Object.entries(result.transitions);
  return (
    <Section title="Simulation result">
      <p role="status">
        {result.evaluated} intent{result.evaluated === 1 ? '' : 's'} replayed, {result.changed} would change (
        {result.durationMs} ms).
      </p>
      <p class="muted">{describeSample(sample)}</p>
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
  const [inputs, setInputs] = useState<SampleInputs>(NO_SAMPLE);
  const [invalid, setInvalid] = useState<Partial<Record<SampleField, string>>>({});
  const [outcome, setOutcome] = useState<{ result: SimulationResult; sample: Sample } | null>(null);
  const draft = parseDraft(text);
  const usesDraft = source === DRAFT;
  const run = useAction(async (sample: Sample) => {
    setOutcome(null);
    const sampled = Object.keys(sample).length === 0 ? {} : { sample };
    const body = usesDraft
      ? { rules: draft.value, replacePacks, ...sampled }
      : { version: Number(source), ...sampled };
    setOutcome({
      result: await api<SimulationResult>('POST', '/authority/policy/simulate', { body }),
      sample,
    });
  });
  const submit = () => {
    const checked = sampleOf(inputs);
    if ('errors' in checked) {
      setInvalid(checked.errors);
      return;
    }
    setInvalid({});
    void run.run(checked.sample);
  };
  const issues = issuesOf(run.error);
  const refusedSample = sampleIssuesOf(issues);
  const otherIssues = issues.filter((issue) => !issue.path.startsWith('/sample/'));
  const errorOf = (field: SampleField) => invalid[field] ?? refusedSample[field];
  const input = (field: SampleField) => ({
    value: inputs[field],
    onValue: (value: string) => {
      setInputs((current) => ({ ...current, [field]: value }));
      setInvalid((current) => ({ ...current, [field]: undefined }));
    },
    error: errorOf(field),
  });
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
      <Form label="Simulate a policy" onSubmit={submit}>
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
        <fieldset class="sample">
          <legend>Intents to replay</legend>
          <div class="filters">
            <TextField
              label="Sample limit"
              inputMode="numeric"
              {...input('limit')}
              hint="The most recent matching intents: 1 to 10000, default 1000"
            />
            <TextField
              label="From"
              type="datetime-local"
              {...input('from')}
              hint="Created at or after (your local time)"
            />
            <TextField
              label="To"
              type="datetime-local"
              {...input('to')}
              hint="Created before (your local time)"
            />
            <TextField label="Actor id" maxLength={200} {...input('actorId')} hint="Exactly this actor" />
            <TextField
              label="Target system"
              maxLength={200}
              {...input('targetSystem')}
              hint="Exactly this target system"
            />
          </div>
        </fieldset>
        <button type="submit" class="primary" disabled={run.busy || (usesDraft && draft.error !== null)}>
          Run simulation
        </button>
      </Form>
      {usesDraft && otherIssues.length > 0 ? (
        <IssueOutline
          id="simulation-issues"
          items={items}
          issues={otherIssues}
          collection="rules"
          noun="Rule"
        />
      ) : (
        <Problem error={run.error} title="Simulation refused" />
      )}
      {outcome ? <Outcome result={outcome.result} sample={outcome.sample} /> : null}
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
      <p>
        Replays recent intents against a draft or a stored version: decides and mints nothing, and records one{' '}
        <code>policy.simulated</code> audit entry with the counts.
      </p>
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
