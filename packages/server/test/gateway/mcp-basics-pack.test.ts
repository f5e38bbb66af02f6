import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RiskContext } from '@authority-runtime/sdk/wire';
import { toolCallIntent } from '../../src/gateway/tool-call-intent.js';
import { evaluateIntent, type IntentEvaluation } from '../../src/intent/domain/evaluate-intent.js';
import { validateIntentRequest } from '../../src/intent/domain/intent-request.js';
import { DEFAULT_THRESHOLDS, type ThresholdSettings } from '../../src/intent/domain/thresholds.js';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import { getPack, packRules, starterRules } from '../../src/policy/packs.js';
import type { Rule } from '../../src/policy/rule.js';
import { validatePolicy } from '../../src/policy/validate-policy.js';

/**
 * The mcp-basics pack through the same pure decision function as `POST /intent`, on intents built
 * exactly as the gateway builds them from a `tools/call` (args = {tool, arguments}).
 */

const mcpRules = (): Rule[] => {
  const pack = getPack('mcp-basics');
  assert.ok(pack);
  return packRules(pack);
};

function decide(
  rules: Rule[],
  tool: string,
  args: Record<string, unknown> = {},
  options: { thresholds?: Partial<ThresholdSettings>; risk?: Partial<RiskContext> } = {},
): IntentEvaluation {
  const intent = toolCallIntent(
    { name: tool, arguments: args },
    { id: 'mcp:test-agent', type: 'agent' },
    { targetSystem: 'acme/mcp-tools', riskContext: { baseRiskScore: 10, ...options.risk } },
  );
  const validated = validateIntentRequest({ ...intent, tenantId: 'acme' });
  assert.ok(validated.ok, JSON.stringify(validated));
  return evaluateIntent({
    request: validated.value,
    killSwitch: { enabled: false, reason: null },
    actorBlocked: false,
    thresholds: { ...DEFAULT_THRESHOLDS, ...options.thresholds },
    floorEnabled: true,
    policy: compilePolicy(rules),
    evaluatedAt: 0,
    explain: false,
  });
}

const summary = (e: IntentEvaluation) => `${e.outcome} by ${e.decidingRule.id}`;

describe('policy pack mcp-basics', () => {
  it('validates as a policy, alone and next to starter', () => {
    // As installed (pack ids allowed), the way the pack install route and `policy test` validate.
    for (const rules of [mcpRules(), [...starterRules(), ...mcpRules()]]) {
      const result = validatePolicy({ rules }, { allowPackIds: true });
      assert.equal(result.ok, true, JSON.stringify(result));
    }
  });

  describe('alone, with lowConfidenceEscalateBelow 0.3 (the worked example of docs/mcp-gateway.md)', () => {
    const rules = mcpRules();
    const thresholds = { lowConfidenceEscalateBelow: 0.3 };
    const outcome = (tool: string, args?: Record<string, unknown>, risk?: Partial<RiskContext>) =>
      summary(decide(rules, tool, args, { thresholds, ...(risk ? { risk } : {}) }));

    it('approves read-only tools, whatever verbs the interpreter knows', () => {
      for (const tool of [
        'read_file',
        'get-env',
        'listIssues',
        'search_code',
        'echo',
        'find',
        'QUERY_ROWS',
        'statusOf',
      ]) {
        assert.equal(outcome(tool, { q: 'open bugs' }), 'APPROVED by mcp-basics/allow-read-only-tools', tool);
      }
    });

    it('escalates tools whose names say write, delete or execute, in every naming style', () => {
      for (const tool of [
        'write_file',
        'delete-issue',
        'runCommand',
        'fileDelete',
        'EXEC',
        'git_push',
        'create_pull_request',
        'kill',
      ]) {
        assert.equal(outcome(tool, { path: 'x' }), 'ESCALATED by mcp-basics/escalate-write-tools', tool);
      }
    });

    it('does not read a write verb into longer words', () => {
      for (const tool of ['get_deleted_items', 'show_rewrites', 'list_writers', 'view_runtime']) {
        assert.equal(outcome(tool), 'APPROVED by mcp-basics/allow-read-only-tools', tool);
      }
    });

    it('escalates a read whose arguments say write, delete or execute', () => {
      assert.equal(
        outcome('search_code', { mode: 'delete' }),
        'ESCALATED by mcp-basics/escalate-write-arguments',
      );
      assert.equal(
        outcome('read_file', { path: '/tmp/x', after: 'chmod 777' }),
        'ESCALATED by mcp-basics/escalate-write-arguments',
      );
      assert.equal(outcome('query', { overwrite: true }), 'ESCALATED by mcp-basics/escalate-write-arguments');
    });

    it('leaves the catastrophic floor in charge: two-person review', () => {
      const evaluation = decide(rules, 'read_file', { path: '/', cleanup: 'rm -rf /' }, { thresholds });
      assert.equal(summary(evaluation), 'ESCALATED by catastrophic-floor');
      assert.equal(evaluation.queue, 'catastrophic-review');
      assert.equal(
        summary(decide(rules, 'run_sql', { sql: 'DROP TABLE users' }, { thresholds })),
        'ESCALATED by catastrophic-floor',
      );
    });

    it('denies by default what it does not know, and reads at elevated risk', () => {
      assert.equal(outcome('frobnicate', { level: 3 }), 'DENIED by signal:default');
      assert.equal(
        outcome('read_file', { path: 'x' }, { touchesProduction: true }),
        'DENIED by signal:default',
      );
      assert.equal(
        outcome('read_file', { path: 'x', mode: 'remove' }, { containsSensitiveData: true }),
        'DENIED by signal:default',
      );
    });

    it('escalates writes at elevated risk too', () => {
      const evaluation = decide(
        rules,
        'write_file',
        { path: 'x' },
        { thresholds, risk: { touchesProduction: true } },
      );
      assert.equal(summary(evaluation), 'ESCALATED by mcp-basics/escalate-write-tools');
    });
  });

  describe('next to starter, default thresholds', () => {
    const rules = [...starterRules(), ...mcpRules()];
    const outcome = (tool: string, args?: Record<string, unknown>, risk?: Partial<RiskContext>) =>
      summary(decide(rules, tool, args, risk ? { risk } : {}));

    it('approves reads the interpreter confirms, escalates the rest of the read-only names', () => {
      assert.equal(
        outcome('read_file', { path: 'README.md' }),
        'APPROVED by mcp-basics/allow-read-only-tools',
      );
      const echo = decide(rules, 'echo', { message: 'hello' });
      assert.equal(echo.outcome, 'ESCALATED');
      // `echo` is no verb the interpreter knows: a write at confidence 0.3, below the default 0.5.
      assert.deepEqual(echo.matchedRules.map((rule) => rule.id).sort(), [
        'signal:low-confidence',
        'starter/escalate-writes',
      ]);
    });

    it('escalates what starter approves when the arguments say delete', () => {
      assert.equal(
        summary(decide(starterRules(), 'read_file', { path: 'x', after: 'remove' })),
        'APPROVED by starter/allow-reads',
      );
      assert.equal(
        outcome('read_file', { path: 'x', after: 'remove' }),
        'ESCALATED by mcp-basics/escalate-write-arguments',
      );
    });

    it('never turns a starter default-deny into an escalation or an approval', () => {
      const cases: Array<[string, Record<string, unknown>, Partial<RiskContext>]> = [
        ['read_file', { after: 'remove' }, { touchesProduction: true }],
        ['list_files', { path: '/usr/bin/sudo' }, { containsSensitiveData: true }],
        ['get_report', {}, { requiresPrivilegedAccess: true, touchesProduction: true }],
        ['show_logs', { kill: 'no' }, { policyCompliant: false }],
      ];
      for (const [tool, args, risk] of cases) {
        assert.equal(summary(decide(starterRules(), tool, args, { risk })), 'DENIED by signal:default', tool);
        assert.equal(outcome(tool, args, risk), 'DENIED by signal:default', tool);
      }
    });
  });
});
