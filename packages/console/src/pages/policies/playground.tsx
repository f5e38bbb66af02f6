import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { ExplanationEntry, RuleRef } from '../../api/types.js';
import { Checkbox, Form, SelectField, TextArea, TextField } from '../../components/fields.js';
import { Gate } from '../../components/gate.js';
import { Page, Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { useAction } from '../../components/use-api.js';
import { RiskBadge } from '../approvals/badges.js';
import { ExplanationTable } from '../intents/intent-detail.js';
import { parseDraft } from './issue-outline.js';
import { PolicyTabs } from './policy-tabs.js';

interface Evaluation {
  evaluationId: string;
  decision: string;
  riskScore: number;
  matchedRules: RuleRef[];
  decidingRule: RuleRef;
  rationale: string[];
  gateTrace: string[];
  explanation: ExplanationEntry[];
}

const ACTOR_TYPES = ['agent', 'service', 'human', 'workflow'].map((value) => ({ value, label: value }));

function Result({ result }: { result: Evaluation }) {
  return (
    <Section title="Result">
      <dl class="facts" aria-live="polite">
        <dt>Decision</dt>
        <dd>
          <strong class="decision">{result.decision}</strong>
        </dd>
        <dt>Deciding rule</dt>
        <dd>
          <code>{result.decidingRule.id}</code> ({result.decidingRule.effect}, priority{' '}
          {result.decidingRule.priority})
        </dd>
        <dt>Risk</dt>
        <dd>
          <RiskBadge score={result.riskScore} />
        </dd>
        <dt>Matched</dt>
        <dd>
          {result.matchedRules.map((rule) => (
            <code key={rule.id} class="chip">
              {rule.id}: {rule.effect}
            </code>
          ))}
        </dd>
        <dt>Gates</dt>
        <dd>{result.gateTrace.join(' → ')}</dd>
      </dl>
      <ul>
        {result.rationale.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <h3>Why each other rule did not match</h3>
      <ExplanationTable entries={result.explanation} />
    </Section>
  );
}

/** The playground (contract §14 page 4): POST /authority/evaluate?explain=true, decided nothing. */
export function Playground() {
  const [actorId, setActorId] = useState('agent-7');
  const [actorType, setActorType] = useState('agent');
  const [targetSystem, setTargetSystem] = useState('acme/payments');
  const [proposedAction, setProposedAction] = useState('merge pull request 42');
  const [args, setArgs] = useState('{}');
  const [baseRiskScore, setBaseRiskScore] = useState('10');
  const [production, setProduction] = useState(false);
  const [privileged, setPrivileged] = useState(false);
  const [sensitive, setSensitive] = useState(false);
  const [result, setResult] = useState<Evaluation | null>(null);
  const parsedArgs = parseDraft(args);
  const evaluate = useAction(async () => {
    setResult(null);
    setResult(
      await api<Evaluation>('POST', '/authority/evaluate', {
        query: { explain: true },
        body: {
          actor: { id: actorId.trim(), type: actorType },
          targetSystem: targetSystem.trim(),
          proposedAction,
          ...(args.trim() === '' ? {} : { args: parsedArgs.value }),
          riskContext: {
            baseRiskScore: Number(baseRiskScore),
            touchesProduction: production,
            requiresPrivilegedAccess: privileged,
            containsSensitiveData: sensitive,
          },
        },
      }),
    );
  });
  return (
    <Gate anyOf={['authority:policy:read', 'physical:policy:read', 'authority:evaluate']} title="Policies">
      <Page title="Policy playground">
        <PolicyTabs />
        <Gate anyOf={['authority:evaluate']} title="the playground" inline>
          <p>
            Evaluates a request against the active policy: records an audit entry, decides and mints nothing.
          </p>
          <Form label="Evaluate a request" onSubmit={() => void evaluate.run()}>
            <div class="filters">
              <TextField label="Actor id" value={actorId} onValue={setActorId} required />
              <SelectField
                label="Actor type"
                value={actorType}
                onValue={setActorType}
                options={ACTOR_TYPES}
              />
              <TextField
                label="Target system"
                value={targetSystem}
                onValue={setTargetSystem}
                required
                hint="owner/repo"
              />
              <TextField
                label="Base risk score"
                inputMode="numeric"
                value={baseRiskScore}
                onValue={setBaseRiskScore}
                required
                hint="0 to 100"
              />
            </div>
            <TextField label="Proposed action" value={proposedAction} onValue={setProposedAction} required />
            <TextArea label="Arguments (JSON)" rows={5} value={args} onValue={setArgs} />
            {parsedArgs.error ? (
              <p class="problem" role="alert">
                Not valid JSON: {parsedArgs.error}
              </p>
            ) : null}
            <Checkbox label="Touches production" checked={production} onChecked={setProduction} />
            <Checkbox label="Requires privileged access" checked={privileged} onChecked={setPrivileged} />
            <Checkbox label="Contains sensitive data" checked={sensitive} onChecked={setSensitive} />
            <button type="submit" class="primary" disabled={evaluate.busy || parsedArgs.error !== null}>
              Evaluate
            </button>
          </Form>
          <Problem error={evaluate.error} />
          {result ? <Result result={result} /> : null}
        </Gate>
      </Page>
    </Gate>
  );
}
