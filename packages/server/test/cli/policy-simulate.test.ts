import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PolicyTestInputError } from '../../src/cli/policy-input-error.js';
import { formatSimulation, parseSample, simulateSample } from '../../src/cli/policy-simulate.js';
import { NO_BUDGETS } from '../../src/intent/domain/budgets.js';
import { evaluateIntent } from '../../src/intent/domain/evaluate-intent.js';
import type { IntentRequest } from '../../src/intent/domain/intent-request.js';
import { DEFAULT_THRESHOLDS } from '../../src/intent/domain/thresholds.js';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import { starterRules } from '../../src/policy/packs.js';

const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');
const STARTER = compilePolicy(starterRules());

/** An intent as `GET /intents` lists it, decided by the starter policy. */
function exported(intentId: string, proposedAction: string, minute: number) {
  const request: IntentRequest = {
    tenantId: 'acme',
    actor: { id: 'agent-7', type: 'agent' },
    targetSystem: 'acme/payments',
    proposedAction,
    riskContext: { baseRiskScore: 10 },
  };
  const evaluation = evaluateIntent({
    killSwitch: { enabled: false, reason: null },
    actorBlocked: false,
    thresholds: DEFAULT_THRESHOLDS,
    floorEnabled: true,
    policy: STARTER,
    budgets: NO_BUDGETS,
    evaluatedAt: 0,
    request,
    explain: false,
  });
  return {
    intentId,
    correlationId: `c-${intentId}`,
    tenantId: 'acme',
    request,
    status: evaluation.outcome,
    authorityDecision: { decision: evaluation.outcome, decidingRule: evaluation.decidingRule, riskScore: 10 },
    tokenIssued: false,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
  };
}

const SAMPLE = [
  exported('i-1', 'list open pull requests', 1),
  exported('i-2', 'merge pull request 1', 2),
  exported('i-3', 'merge pull request 2', 3),
  exported('i-4', 'rm -rf /srv', 4),
];
const ALLOW_ALL = { rules: [{ id: 'allow-all', effect: 'ALLOW' }] };

describe('policy simulation of an exported sample', () => {
  it('reads JSON lines newest first and reports the transitions', () => {
    const samples = parseSample(`${SAMPLE.map((s) => JSON.stringify(s)).join('\n')}\n\n`);
    assert.deepEqual(
      samples.map((s) => s.intentId),
      ['i-4', 'i-3', 'i-2', 'i-1'],
    );
    const result = simulateSample(samples, [{ id: 'allow-all', effect: 'ALLOW' }], 0);
    assert.deepEqual(result.transitions, { 'ESCALATED->APPROVED': 2 });
    const report = formatSimulation(result);
    assert.equal(report[0], 'this change turns 2 escalations into approvals');
    assert.match(
      report[1] ?? '',
      /^ {2}i-3 2026-01-01T00:03:00.000Z: ESCALATED \(starter\/escalate-writes\) -> APPROVED \(allow-all\)$/,
    );
    assert.equal(report.at(-1), '4 evaluated, 2 changed');
  });

  it('names the line of a bad sample', () => {
    for (const [line, fragment] of [
      ['{not json', 'not JSON'],
      ['[1]', 'intent object'],
      [JSON.stringify({ ...SAMPLE[0], createdAt: 'soon' }), 'createdAt'],
      [JSON.stringify({ ...SAMPLE[0], request: { tenantId: 'acme' } }), 'request'],
      [JSON.stringify({ ...SAMPLE[0], authorityDecision: { decision: 'MAYBE' } }), 'decision'],
      [JSON.stringify({ ...SAMPLE[0], authorityDecision: { decision: 'DENIED' } }), 'decidingRule'],
    ] as const) {
      assert.throws(
        () => parseSample(`${JSON.stringify(SAMPLE[1])}\n${line}`),
        (error: unknown) =>
          error instanceof PolicyTestInputError &&
          error.message.startsWith('sample line 2:') &&
          error.message.includes(fragment),
        line,
      );
    }
  });
});

describe('authority policy test --sample', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'policy-simulate-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const full = path.join(dir, name);
    writeFileSync(full, content);
    return full;
  };
  const run = (...args: string[]) => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'policy', 'test', ...args], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const sample = file('sample.jsonl', SAMPLE.map((s) => JSON.stringify(s)).join('\n'));
  const draft = file('draft.json', JSON.stringify(ALLOW_ALL));

  it('prints what the change turns into what, exit 0', () => {
    const { status, stdout } = run('--sample', sample, '--policy', draft);
    assert.equal(status, 0, stdout);
    assert.equal(stdout.split('\n')[0], 'this change turns 2 escalations into approvals');
    const same = run('--sample', sample);
    assert.equal(same.status, 0);
    assert.match(same.stdout, /^this change turns no decision\n4 evaluated, 0 changed\n$/);
  });

  it('exits 1 when more decisions change than --max-changes', () => {
    assert.equal(run('--sample', sample, '--policy', draft, '--max-changes', '2').status, 0);
    const over = run('--sample', sample, '--policy', draft, '--max-changes', '1');
    assert.equal(over.status, 1, over.stdout);
  });

  it('exits 2 on bad input', () => {
    const bad = run('--sample', file('bad.jsonl', '{"intentId": 1}'), '--policy', draft);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /sample line 1: intentId/);
    assert.equal(run('--sample', path.join(dir, 'missing.jsonl')).status, 2);
    // Usage errors: their line, then the command's usage (README, "Every command exits 2 …").
    const neither = run('--policy', draft);
    assert.equal(neither.status, 2, 'neither cases nor a sample');
    assert.match(neither.stderr, /^error: give a cases file, a --sample file, or both\n/);
    assert.match(neither.stderr, /\nUsage: authority policy test /);
    for (const bad of ['-1', '1.5', 'x']) {
      const refused = run('--sample', sample, '--max-changes', bad);
      assert.equal(refused.status, 2, bad);
      assert.match(
        refused.stderr,
        /^error: option '--max-changes <n>' argument .* is invalid\. must be an integer ≥ 0/,
      );
      assert.match(refused.stderr, /\nUsage: authority policy test /);
    }
  });
});
