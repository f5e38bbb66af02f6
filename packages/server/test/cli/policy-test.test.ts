import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PolicyTestInputError } from '../../src/cli/policy-input-error.js';
import {
  formatReport,
  type PolicyCaseFailure,
  type PolicyCaseResult,
  type PolicyTestCase,
  parseCasesFile,
  parsePolicyFile,
  runPolicyCases,
} from '../../src/cli/policy-test.js';
import { DEFAULT_THRESHOLDS } from '../../src/intent/domain/thresholds.js';
import { starterRules } from '../../src/policy/packs.js';
import type { Rule } from '../../src/policy/rule.js';

const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

function request(proposedAction: string, riskContext: Record<string, unknown> = {}, extra = {}) {
  return {
    actor: { id: 'agent-7', type: 'agent' },
    targetSystem: 'acme/payments',
    proposedAction,
    riskContext: { baseRiskScore: 10, ...riskContext },
    ...extra,
  };
}

const READ = request('list open pull requests');
const WRITE = request('push the release branch');

function only(results: PolicyCaseResult[]): PolicyCaseResult {
  assert.equal(results.length, 1);
  const [result] = results;
  assert.ok(result);
  return result;
}

function runOne(testCase: Omit<PolicyTestCase, 'name'>, rules: Rule[] = starterRules(), options = {}) {
  return only(runPolicyCases([{ name: 'case', ...testCase }], rules, options, 0));
}

function failureKinds(result: PolicyCaseResult): PolicyCaseFailure['kind'][] {
  return result.failures.map((failure) => failure.kind);
}

describe('runPolicyCases', () => {
  it('passes cases whose decision, matched rules and deciding rule are as expected', () => {
    const results = runPolicyCases(
      [
        {
          name: 'reads are approved',
          request: READ,
          expect: {
            decision: 'APPROVED',
            matchedRules: ['starter/allow-reads'],
            decidingRule: 'starter/allow-reads',
          },
        },
        { name: 'writes escalate', request: WRITE, expect: { decision: 'ESCALATED' } },
        {
          name: 'risky reads are denied by default',
          request: request('list open pull requests', { touchesProduction: true }),
          expect: { decision: 'DENIED', decidingRule: 'signal:default' },
        },
      ],
      starterRules(),
      {},
      0,
    );
    assert.deepEqual(
      results.map((r) => [r.name, r.passed, r.failures]),
      [
        ['reads are approved', true, []],
        ['writes escalate', true, []],
        ['risky reads are denied by default', true, []],
      ],
    );
    assert.equal(results[0]?.evaluation?.outcome, 'APPROVED');
  });

  it('reports a wrong decision with the actual decision, the deciding rule and the explanation', () => {
    const result = runOne({ request: WRITE, expect: { decision: 'DENIED' } });
    assert.equal(result.passed, false);
    assert.deepEqual(result.failures, [
      { kind: 'decision', expected: 'DENIED', actual: 'ESCALATED', decidingRule: 'starter/escalate-writes' },
    ]);
    assert.deepEqual(result.evaluation?.explanation, [
      {
        ruleId: 'starter/allow-reads',
        effect: 'ALLOW',
        failed: { kind: 'condition', path: 'risk.operation_type', op: 'EQ', reason: 'got "write"' },
      },
    ]);
  });

  it('checks that every expected matched rule matched, signals and the floor included', () => {
    const passing = runOne({
      request: request('push --force to main', { baseRiskScore: 70 }),
      expect: {
        decision: 'ESCALATED',
        matchedRules: ['signal:escalate-threshold', 'starter/escalate-writes'],
      },
    });
    assert.deepEqual(passing.failures, []);

    const failing = runOne({
      request: WRITE,
      expect: { decision: 'ESCALATED', matchedRules: ['starter/escalate-writes', 'no-such-rule', 'other'] },
    });
    assert.deepEqual(failing.failures, [
      { kind: 'matched-rules', missing: ['no-such-rule', 'other'], matched: ['starter/escalate-writes'] },
    ]);
  });

  it('checks the deciding rule, and reports every failure of a case', () => {
    const passing = runOne({
      request: request('push the release branch', { baseRiskScore: 95 }),
      expect: { decision: 'DENIED', decidingRule: 'signal:deny-threshold' },
    });
    assert.deepEqual(passing.failures, []);

    const failing = runOne({
      request: WRITE,
      expect: {
        decision: 'APPROVED',
        matchedRules: ['starter/allow-reads'],
        decidingRule: 'starter/allow-reads',
      },
    });
    assert.deepEqual(failureKinds(failing), ['decision', 'matched-rules', 'deciding-rule']);
    assert.deepEqual(failing.failures[2], {
      kind: 'deciding-rule',
      expected: 'starter/allow-reads',
      actual: 'starter/escalate-writes',
    });
  });

  it('fails a case with an invalid request, with the issues, and goes on with the others', () => {
    const results = runPolicyCases(
      [
        {
          name: 'bad request',
          request: { ...READ, actor: { id: 'agent-7', type: 'robot' }, extra: 1 },
          expect: { decision: 'DENIED' },
        },
        { name: 'not an object', request: 'list things', expect: { decision: 'DENIED' } },
        { name: 'no letter or digit', request: request('!!!'), expect: { decision: 'DENIED' } },
        { name: 'fine', request: READ, expect: { decision: 'APPROVED' } },
      ],
      starterRules(),
      {},
      0,
    );
    assert.deepEqual(
      results.map((r) => [r.name, r.passed, failureKinds(r), r.evaluation === undefined]),
      [
        ['bad request', false, ['invalid-request'], true],
        ['not an object', false, ['invalid-request'], true],
        ['no letter or digit', false, ['invalid-request'], true],
        ['fine', true, [], false],
      ],
    );
    const [bad] = results;
    const failure = bad?.failures[0];
    assert.ok(failure?.kind === 'invalid-request');
    assert.deepEqual(failure.issues.map((i) => i.path).sort(), ['/actor/type', '/extra']);
    const third = results[2]?.failures[0];
    assert.ok(third?.kind === 'invalid-request');
    assert.deepEqual(third.issues, [
      { path: '/proposedAction', message: 'must contain a letter or a digit' },
    ]);
  });

  it('defaults tenantId and accepts one given explicitly', () => {
    const given = runOne({ request: { tenantId: 'acme', ...READ }, expect: { decision: 'APPROVED' } });
    assert.deepEqual(given.failures, []);
    const invalid = runOne({ request: { tenantId: '', ...READ }, expect: { decision: 'APPROVED' } });
    assert.deepEqual(failureKinds(invalid), ['invalid-request']);
  });

  it('applies the thresholds of the options', () => {
    const read40 = request('list open pull requests', { baseRiskScore: 40 });
    const byDefault = runOne({ request: read40, expect: { decision: 'APPROVED' } });
    assert.deepEqual(byDefault.failures, []);
    const lowered = runOne({ request: read40, expect: { decision: 'ESCALATED' } }, starterRules(), {
      thresholds: { ...DEFAULT_THRESHOLDS, escalateAt: 30 },
    });
    // The read no longer scores below escalateAt, so allow-reads does not match: default deny.
    assert.deepEqual(lowered.failures, [
      { kind: 'decision', expected: 'ESCALATED', actual: 'DENIED', decidingRule: 'signal:default' },
    ]);
    const write40 = runOne(
      {
        request: request('push the release branch', { baseRiskScore: 40 }),
        expect: { decision: 'ESCALATED', decidingRule: 'signal:escalate-threshold' },
      },
      starterRules(),
      { thresholds: { ...DEFAULT_THRESHOLDS, escalateAt: 30 } },
    );
    assert.deepEqual(write40.failures, []);
  });

  it('honours the kill switch and actor-blocked flags of a case', () => {
    const killed = runOne({
      request: READ,
      killSwitch: true,
      expect: {
        decision: 'DENIED',
        matchedRules: ['signal:kill-switch'],
        decidingRule: 'signal:kill-switch',
      },
    });
    assert.deepEqual(killed.failures, []);
    assert.deepEqual(killed.evaluation?.gateTrace, ['kill_switch']);

    const blocked = runOne({
      request: READ,
      actorBlocked: true,
      expect: { decision: 'APPROVED' },
    });
    assert.deepEqual(blocked.failures, [
      { kind: 'decision', expected: 'APPROVED', actual: 'DENIED', decidingRule: 'signal:actor-blocked' },
    ]);
  });

  it('runs the catastrophic floor unless floorEnabled is false', () => {
    const testCase = {
      request: request('run the cleanup', {}, { args: { sql: 'DROP TABLE users' } }),
      expect: { decision: 'ESCALATED' as const, matchedRules: ['catastrophic-floor'] },
    };
    assert.deepEqual(runOne(testCase).failures, []);
    const off = runOne(testCase, starterRules(), { floorEnabled: false });
    assert.deepEqual(failureKinds(off), ['matched-rules']);
  });

  it('evaluates a custom policy, bindings included', () => {
    const rules = parsePolicyFile({
      rules: [
        {
          id: 'deny-prod-deploys',
          effect: 'DENY',
          priority: 10,
          conditions: { all: [{ path: 'intent.oiCode', op: 'EQ', value: 'OI-104' }] },
        },
        { id: 'humans-only', effect: 'ALLOW', bindings: { actorTypes: ['human'] } },
      ],
    });
    const result = runOne({ request: request('deploy v2'), expect: { decision: 'APPROVED' } }, rules);
    assert.deepEqual(result.failures, [
      { kind: 'decision', expected: 'APPROVED', actual: 'DENIED', decidingRule: 'deny-prod-deploys' },
    ]);
    assert.deepEqual(result.evaluation?.explanation, [
      { ruleId: 'humans-only', effect: 'ALLOW', failed: { kind: 'binding', binding: 'actorTypes' } },
    ]);
  });
});

describe('parseCasesFile and parsePolicyFile', () => {
  const aCase = { name: 'a', request: READ, expect: { decision: 'APPROVED' } };

  it('merges thresholds over the defaults and defaults floorEnabled to true', () => {
    const parsed = parseCasesFile({
      thresholds: { escalateAt: 30, modifiers: { production: 5 } },
      cases: [aCase],
    });
    assert.equal(parsed.options.floorEnabled, true);
    assert.equal(parsed.options.thresholds.escalateAt, 30);
    assert.equal(parsed.options.thresholds.denyAt, DEFAULT_THRESHOLDS.denyAt);
    assert.deepEqual(parsed.options.thresholds.modifiers, { privileged: 20, production: 5, sensitive: 15 });
    assert.equal(parseCasesFile({ floorEnabled: false, cases: [aCase] }).options.floorEnabled, false);
    assert.deepEqual(parseCasesFile({ cases: [aCase] }).options.thresholds, DEFAULT_THRESHOLDS);
  });

  it('refuses a malformed cases file, naming every problem', () => {
    const bad = (input: unknown, pattern: RegExp) =>
      assert.throws(
        () => parseCasesFile(input),
        (e: unknown) => e instanceof PolicyTestInputError && pattern.test(e.message),
      );
    bad([aCase], /must be an object/);
    bad({ cases: [] }, /cases: must be a non-empty array/);
    bad({ cases: [aCase], extra: 1 }, /extra: unknown field/);
    bad({ cases: [aCase, aCase] }, /cases\[1\]\.name: duplicate name/);
    bad(
      { cases: [{ ...aCase, expect: { decision: 'ALLOW' } }] },
      /cases\[0\]\.expect\.decision: must be one of/,
    );
    bad({ cases: [{ ...aCase, expect: { decision: 'DENIED', matchedRules: 'x' } }] }, /matchedRules/);
    bad({ cases: [{ name: 'a', expect: { decision: 'DENIED' } }] }, /cases\[0\]\.request: is required/);
    bad({ cases: [{ ...aCase, killSwitch: 'yes' }] }, /cases\[0\]\.killSwitch: must be a boolean/);
    bad({ cases: [aCase], thresholds: { escalateAt: 95 } }, /thresholds\/escalateAt: must be less than/);
    bad(
      {
        cases: [
          { ...aCase, name: '' },
          { ...aCase, name: 'b', expect: {} },
        ],
      },
      /cases\[0\]\.name.*; cases\[1\]\.expect\.decision/,
    );
  });

  it('takes {rules} (other fields ignored) or a bare array, and names the rule of an invalid one', () => {
    assert.equal(parsePolicyFile({ id: 'acme/v3', version: 3, rules: starterRules() }).length, 2);
    assert.equal(parsePolicyFile([{ id: 'r', effect: 'ALLOW' }]).length, 1);
    assert.throws(
      () =>
        parsePolicyFile(
          [
            {
              id: 'look',
              effect: 'DENY',
              conditions: { all: [{ path: 'proposedAction', op: 'MATCHES', value: '(?=x)' }] },
            },
          ],
          'p.json',
        ),
      (e: unknown) =>
        e instanceof PolicyTestInputError &&
        /^invalid policy p\.json: rule "look": conditions\.all\[0\]\.value: /.test(e.message),
    );
    assert.throws(() => parsePolicyFile({ policy: [] }), PolicyTestInputError);
  });
});

describe('formatReport', () => {
  it('prints PASS and FAIL lines, the details of failures indented, and a summary', () => {
    const results = runPolicyCases(
      [
        { name: 'reads', request: READ, expect: { decision: 'APPROVED' } },
        { name: 'writes', request: WRITE, expect: { decision: 'DENIED' } },
        { name: 'broken', request: { ...READ, targetSystem: 'nope' }, expect: { decision: 'DENIED' } },
      ],
      starterRules(),
      {},
      0,
    );
    const lines = formatReport(results);
    assert.equal(lines[0], 'PASS reads');
    assert.equal(
      lines[1],
      'FAIL writes: expected DENIED, got ESCALATED (deciding rule starter/escalate-writes)',
    );
    assert.ok(lines.includes('    rule starter/escalate-writes matched: ESCALATE'));
    assert.ok(lines.includes('    starter/allow-reads (ALLOW): risk.operation_type EQ: got "write"'));
    assert.ok(lines.includes('FAIL broken: invalid request (1 issue)'));
    assert.ok(lines.some((line) => line.startsWith('  /targetSystem: must match pattern')));
    assert.equal(lines.at(-1), '1 passed, 2 failed');
  });
});

describe('authority policy test (process)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'authority-policy-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  function file(name: string, content: unknown): string {
    const full = path.join(dir, name);
    writeFileSync(full, typeof content === 'string' ? content : JSON.stringify(content));
    return full;
  }

  function run(...args: string[]) {
    const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'policy', 'test', ...args], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  const policy = file('policy.json', {
    rules: [
      {
        id: 'deny-deploys',
        effect: 'DENY',
        priority: 10,
        conditions: { all: [{ path: 'intent.oiCode', op: 'EQ', value: 'OI-104' }] },
      },
      {
        id: 'allow-reads',
        effect: 'ALLOW',
        conditions: { all: [{ path: 'risk.operation_type', op: 'EQ', value: 'read' }] },
      },
    ],
  });

  it('exits 0 when every case passes, against the starter policy and a --policy file', () => {
    const starter = run(
      file('starter-cases.json', {
        cases: [
          { name: 'reads', request: READ, expect: { decision: 'APPROVED' } },
          {
            name: 'writes',
            request: WRITE,
            expect: { decision: 'ESCALATED', decidingRule: 'starter/escalate-writes' },
          },
        ],
      }),
    );
    assert.equal(starter.status, 0, starter.stderr);
    assert.equal(starter.stdout, 'PASS reads\nPASS writes\n2 passed, 0 failed\n');

    const custom = run(
      file('custom-cases.json', {
        cases: [
          {
            name: 'deploys',
            request: request('deploy v2'),
            expect: { decision: 'DENIED', matchedRules: ['deny-deploys'] },
          },
        ],
      }),
      '--policy',
      policy,
    );
    assert.equal(custom.status, 0, custom.stderr);
    assert.equal(custom.stdout, 'PASS deploys\n1 passed, 0 failed\n');
  });

  it('exits 1 on a failing case and prints the explanation', () => {
    const result = run(
      file('failing-cases.json', {
        cases: [
          { name: 'reads', request: READ, expect: { decision: 'APPROVED' } },
          { name: 'deploys are approved', request: request('deploy v2'), expect: { decision: 'APPROVED' } },
        ],
      }),
      '--policy',
      policy,
    );
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stdout, /^PASS reads\n/);
    assert.match(
      result.stdout,
      /FAIL deploys are approved: expected APPROVED, got DENIED \(deciding rule deny-deploys\)\n/,
    );
    assert.match(result.stdout, / {4}rule deny-deploys matched: DENY\n/);
    assert.match(result.stdout, / {4}allow-reads \(ALLOW\): risk\.operation_type EQ: got "write"\n/);
    assert.match(result.stdout, /1 passed, 1 failed\n$/);
  });

  it('exits 2 on an invalid policy, naming the rule and the field', () => {
    const cases = file('one-case.json', {
      cases: [{ name: 'reads', request: READ, expect: { decision: 'APPROVED' } }],
    });
    const bad = file('bad-policy.json', [
      {
        id: 'lookahead',
        effect: 'DENY',
        conditions: { all: [{ path: 'proposedAction', op: 'MATCHES', value: 'foo(?!bar)' }] },
      },
    ]);
    const result = run(cases, '--policy', bad);
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      /^authority: invalid policy .*bad-policy\.json: rule "lookahead": conditions\.all\[0\]\.value: .*\n$/,
    );
  });

  it('exits 2 on a missing or unreadable file', () => {
    const missing = run(path.join(dir, 'nope.json'));
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /^authority: cannot read cases file .*nope\.json: ENOENT/);

    const notJson = run(file('not-json.json', 'cases: []'));
    assert.equal(notJson.status, 2);
    assert.match(notJson.stderr, /^authority: cases file .*not-json\.json is not JSON/);

    const cases = file('ok-cases.json', {
      cases: [{ name: 'reads', request: READ, expect: { decision: 'APPROVED' } }],
    });
    const missingPolicy = run(cases, '--policy', path.join(dir, 'no-policy.json'));
    assert.equal(missingPolicy.status, 2);
    assert.match(missingPolicy.stderr, /^authority: cannot read policy .*no-policy\.json/);

    const malformed = run(
      file('malformed.json', { cases: [{ name: 'x', request: READ, expect: { decision: 'OK' } }] }),
    );
    assert.equal(malformed.status, 2);
    assert.match(
      malformed.stderr,
      /cases\[0\]\.expect\.decision: must be one of APPROVED, ESCALATED, DENIED/,
    );
  });
});
