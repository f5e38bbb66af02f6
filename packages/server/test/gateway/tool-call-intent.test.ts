import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sessionActorId } from '../../src/gateway/gateway-server.js';
import {
  argumentsTooLarge,
  cutToCodePoints,
  PROPOSED_ACTION_ARGUMENTS_CODE_POINTS,
  proposedActionFor,
  sameCallKey,
  toolCallIntent,
} from '../../src/gateway/tool-call-intent.js';
import { redactedJson } from '../../src/intent/domain/args-redaction.js';
import { validateIntentRequest } from '../../src/intent/domain/intent-request.js';
import { findBodyProblem } from '../../src/request-checks/body-shape.js';

const agent = { id: 'mcp:claude-desktop', type: 'agent' } as const;

describe('a tools/call as an intent', () => {
  it('proposes the tool name and the compact JSON of its arguments', () => {
    assert.equal(
      proposedActionFor('read_file', { path: 'README.md', lines: [1, 2] }),
      'read_file {"path":"README.md","lines":[1,2]}',
    );
    assert.equal(proposedActionFor('list_tools', undefined), 'list_tools {}');
  });

  it('redacts secrets in proposedAction, which the chain keeps, and passes them in args', () => {
    const args = {
      path: 'docs/a.md',
      apiKey: 'SUPERSECRET123',
      headers: { authorization: 'Bearer abcdefghijklmnop' },
      note: 'use service_live_abcdef to call',
    };
    const intent = toolCallIntent({ name: 'read_file', arguments: args }, agent, {
      targetSystem: 'acme/mcp-tools',
      riskContext: { baseRiskScore: 10 },
    });
    assert.equal(
      intent.proposedAction,
      'read_file {"path":"docs/a.md","apiKey":"[redacted]","headers":{"authorization":"[redacted]"},"note":"[redacted]"}',
    );
    assert.doesNotMatch(intent.proposedAction, /SUPERSECRET|abcdefghijklmnop|service_live_/);
    assert.deepEqual(intent.args, { tool: 'read_file', arguments: args }, 'the policy still reads them');
  });

  it('cuts the JSON to 200 code points, never inside a surrogate pair', () => {
    const emoji = '😀'.repeat(300);
    const action = proposedActionFor('echo', { message: emoji });
    const json = action.slice('echo '.length);
    assert.equal([...json].length, PROPOSED_ACTION_ARGUMENTS_CODE_POINTS);
    assert.ok(json.startsWith('{"message":"😀'));
    // 200 code points: 12 of `{"message":"`, then 188 whole emoji (two UTF-16 units each).
    assert.equal(json, `{"message":"${'😀'.repeat(188)}`);
  });

  it('cutToCodePoints keeps whole code points and the prefix of the text (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 400 }),
        fc.integer({ min: 0, max: 300 }),
        (text, limit) => {
          const cut = cutToCodePoints(text, limit);
          assert.ok(text.startsWith(cut));
          assert.equal([...cut].length, Math.min(limit, [...text].length));
          const last = cut.charCodeAt(cut.length - 1);
          // The cut never ends on a high surrogate whose low half was left behind.
          assert.ok(!(last >= 0xd800 && last <= 0xdbff));
        },
      ),
    );
  });

  it('maps every call to a valid IntentRequest with args = {tool, arguments} (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 64 }).filter((s) => /[A-Za-z0-9]/.test(s)),
        fc.dictionary(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
        (name, args) => {
          const intent = toolCallIntent({ name, arguments: args }, agent, {
            targetSystem: 'acme/mcp-tools',
            riskContext: { baseRiskScore: 10 },
          });
          assert.deepEqual(intent.args, { tool: name, arguments: args });
          const json = intent.proposedAction.slice(name.length + 1);
          assert.equal(intent.proposedAction.slice(0, name.length + 1), `${name} `);
          assert.ok([...json].length <= PROPOSED_ACTION_ARGUMENTS_CODE_POINTS);
          assert.ok(redactedJson(args).startsWith(json));
          const checked = validateIntentRequest({ ...intent, tenantId: 'acme' });
          assert.equal(checked.ok, true, JSON.stringify(checked));
        },
      ),
    );
  });

  it('makes any client name a session actor the service accepts: mcp:<name>, cleaned, at most 200 code points (property)', () => {
    assert.equal(sessionActorId('claude-desktop'), 'mcp:claude-desktop');
    assert.equal(sessionActorId(undefined), 'mcp:unknown');
    assert.equal(sessionActorId('x\u0000y\u0007z\ud800'), 'mcp:x\ufffdy\ufffdz\ufffd');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (name) => {
        const id = sessionActorId(name);
        assert.ok(id.startsWith('mcp:') && [...id].length <= 200);
        assert.equal(findBodyProblem({ id }), null, JSON.stringify(id));
        const intent = toolCallIntent(
          { name: 'read_file', arguments: {} },
          { id, type: 'agent' },
          {
            targetSystem: 'acme/mcp-tools',
            riskContext: { baseRiskScore: 10 },
          },
        );
        assert.equal(validateIntentRequest({ ...intent, tenantId: 'acme' }).ok, true);
      }),
    );
  });

  it('refuses arguments beyond the args limits of the service, exactly where the service does', () => {
    const underSize = { blob: 'x'.repeat(64 * 1024 - 60) };
    assert.equal(argumentsTooLarge('write_file', underSize), false);
    assert.equal(argumentsTooLarge('write_file', { blob: 'x'.repeat(64 * 1024) }), true);
    // args = {tool, arguments}: the arguments sit one level down, so 15 more levels fit and 16 do not.
    const nested = (levels: number): Record<string, unknown> => {
      let value: Record<string, unknown> = { leaf: 1 };
      for (let i = 1; i < levels; i += 1) value = { next: value };
      return value;
    };
    assert.equal(argumentsTooLarge('deep', nested(15)), false);
    assert.equal(argumentsTooLarge('deep', nested(16)), true);
    for (const [args, tooLarge] of [
      [nested(15), false],
      [nested(16), true],
      [underSize, false],
      [{ blob: 'x'.repeat(64 * 1024) }, true],
    ] as const) {
      const intent = toolCallIntent({ name: 'deep', arguments: args }, agent, {
        targetSystem: 'acme/mcp-tools',
        riskContext: { baseRiskScore: 10 },
      });
      assert.equal(validateIntentRequest({ ...intent, tenantId: 'acme' }).ok, !tooLarge);
    }
  });

  it('recognizes the same call by actor, tool and canonical arguments', () => {
    const key = sameCallKey(agent, 'write_file', { path: 'a', content: 'b' });
    assert.equal(key, sameCallKey(agent, 'write_file', { content: 'b', path: 'a' }));
    assert.equal(sameCallKey(agent, 'echo', undefined), sameCallKey(agent, 'echo', {}));
    assert.notEqual(key, sameCallKey(agent, 'write_file', { path: 'a', content: 'c' }));
    assert.notEqual(key, sameCallKey(agent, 'write_files', { path: 'a', content: 'b' }));
    assert.notEqual(
      key,
      sameCallKey({ id: 'mcp:other', type: 'agent' }, 'write_file', { path: 'a', content: 'b' }),
    );
    assert.notEqual(
      key,
      sameCallKey({ ...agent, type: 'service' }, 'write_file', { path: 'a', content: 'b' }),
    );
    // A lone surrogate has no canonical JSON form; the key is still deterministic.
    assert.equal(sameCallKey(agent, 'echo', { m: '\ud800' }), sameCallKey(agent, 'echo', { m: '\ud800' }));
    assert.match(key, /^[0-9a-f]{64}$/);
  });
});
