import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Compile } from 'typebox/compile';
import {
  ALTERNATIVE_SHAPE_MESSAGE,
  checkArgs,
  checkIntentRequest,
  IntentRequestSchema,
  isAlternativeShape,
  MAX_ARGS_BYTES,
  riskFlags,
  validateIntentRequest,
} from '../../src/intent/domain/intent-request.js';
import { checkIdempotencyKey } from '../../src/request-checks/idempotency-key.js';
import { exceedsDepth, jsonByteLength } from '../../src/request-checks/json-shape.js';

const validator = Compile(IntentRequestSchema);

function body(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    tenantId: 'acme',
    actor: { id: 'agent-7', type: 'agent' },
    targetSystem: 'octo-org/widgets',
    proposedAction: 'merge pull request 12',
    riskContext: { baseRiskScore: 20 },
    ...overrides,
  };
}

function riskContext(overrides: Record<string, unknown>): Record<string, unknown> {
  return body({ riskContext: { baseRiskScore: 20, ...overrides } });
}

/** Nested objects so that the leaf lies `depth` steps below the root. */
function nested(depth: number, leaf: unknown = 'x', arrays = false): unknown {
  let value = leaf;
  for (let index = 0; index < depth; index += 1) value = arrays ? [value] : { k: value };
  return value;
}

describe('intent request: schema', () => {
  it('accepts a minimal body', () => {
    assert.ok(validator.Check(body()));
  });

  it('accepts a complete body, with free content inside args', () => {
    const complete = body({
      args: { sql: 'select 1', nested: { anything: [1, 'two', { three: null }] }, 'odd key': true },
      riskContext: {
        baseRiskScore: 55.5,
        policyCompliant: false,
        requiresPrivilegedAccess: true,
        touchesProduction: true,
        containsSensitiveData: false,
        github: {
          owner: 'octo-org',
          repo: 'widgets',
          ref: 'refs/heads/main',
          pullRequest: 12,
          path: 'src/a.ts',
        },
      },
    });
    assert.ok(validator.Check(complete), JSON.stringify(validator.Errors(complete)));
    assert.ok(validator.Check(body({ args: {} })));
  });

  it('accepts every actor type and refuses others', () => {
    for (const type of ['service', 'agent', 'human', 'workflow']) {
      assert.ok(validator.Check(body({ actor: { id: 'a', type } })), type);
    }
    for (const type of ['robot', 'Agent', '', 5]) {
      assert.ok(!validator.Check(body({ actor: { id: 'a', type } })), String(type));
    }
  });

  it('requires every required field', () => {
    for (const field of ['tenantId', 'actor', 'targetSystem', 'proposedAction', 'riskContext']) {
      const incomplete = body();
      delete incomplete[field];
      assert.ok(!validator.Check(incomplete), field);
    }
    assert.ok(!validator.Check(body({ actor: { id: 'a' } })));
    assert.ok(!validator.Check(body({ actor: { type: 'agent' } })));
    assert.ok(!validator.Check(body({ riskContext: {} })));
    assert.ok(!validator.Check(riskContext({ github: { owner: 'octo-org' } })));
  });

  it('refuses unknown fields at every level except inside args', () => {
    assert.ok(!validator.Check(body({ metadata: {} })));
    assert.ok(!validator.Check(body({ actor: { id: 'a', type: 'agent', name: 'x' } })));
    assert.ok(!validator.Check(riskContext({ score: 5 })));
    assert.ok(
      !validator.Check(riskContext({ github: { owner: 'octo-org', repo: 'widgets', branch: 'main' } })),
    );
    assert.ok(validator.Check(body({ args: { anything: { deeper: { unknown: 1 } } } })));
  });

  it('bounds actor.id to 1..200 and proposedAction to 1..4000 characters', () => {
    assert.ok(validator.Check(body({ actor: { id: 'a'.repeat(200), type: 'human' } })));
    assert.ok(!validator.Check(body({ actor: { id: 'a'.repeat(201), type: 'human' } })));
    assert.ok(!validator.Check(body({ actor: { id: '', type: 'human' } })));
    assert.ok(validator.Check(body({ proposedAction: 'x'.repeat(4000) })));
    assert.ok(!validator.Check(body({ proposedAction: 'x'.repeat(4001) })));
    assert.ok(!validator.Check(body({ proposedAction: '' })));
    assert.ok(!validator.Check(body({ proposedAction: 5 })));
  });

  it('takes targetSystem in GitHub owner/repo form', () => {
    const good = [
      'a/b',
      'octo-org/widgets',
      'A1/x.y_z-w',
      `${'a'.repeat(39)}/r`,
      `o/${'r'.repeat(100)}`,
      'o/.github',
    ];
    for (const targetSystem of good) assert.ok(validator.Check(body({ targetSystem })), targetSystem);
    const bad = [
      '',
      'a',
      'a/',
      '/b',
      '-a/b',
      'a_b/c',
      'a/b/c',
      'a b/c',
      `${'a'.repeat(40)}/r`,
      `o/${'r'.repeat(101)}`,
      'https://github.com/a/b',
      'a/b\n',
    ];
    for (const targetSystem of bad)
      assert.ok(!validator.Check(body({ targetSystem })), JSON.stringify(targetSystem));
  });

  it('takes baseRiskScore as a number 0..100 and the flags as booleans', () => {
    for (const baseRiskScore of [0, 0.5, 100]) assert.ok(validator.Check(riskContext({ baseRiskScore })));
    for (const baseRiskScore of [-1, -0.01, 100.01, '50', null, true]) {
      assert.ok(!validator.Check(riskContext({ baseRiskScore })), String(baseRiskScore));
    }
    for (const flag of [
      'policyCompliant',
      'requiresPrivilegedAccess',
      'touchesProduction',
      'containsSensitiveData',
    ]) {
      assert.ok(validator.Check(riskContext({ [flag]: true })));
      assert.ok(!validator.Check(riskContext({ [flag]: 'true' })), flag);
      assert.ok(!validator.Check(riskContext({ [flag]: 1 })), flag);
    }
  });

  it('takes args only as an object', () => {
    for (const args of [[], 'x', 5, null, true])
      assert.ok(!validator.Check(body({ args })), JSON.stringify(args));
  });

  it('checks the GitHub context fields', () => {
    const github = (extra: Record<string, unknown>) =>
      riskContext({ github: { owner: 'octo-org', repo: 'widgets', ...extra } });
    assert.ok(validator.Check(github({})));
    assert.ok(!validator.Check(github({ owner: '-bad' })));
    assert.ok(!validator.Check(github({ repo: 'a/b' })));
    assert.ok(!validator.Check(github({ pullRequest: 0 })));
    assert.ok(!validator.Check(github({ pullRequest: 1.5 })));
    assert.ok(!validator.Check(github({ pullRequest: '12' })));
    assert.ok(!validator.Check(github({ ref: '' })));
    assert.ok(!validator.Check(github({ path: '' })));
  });
});

describe('intent request: the alternative shape', () => {
  const alternative = { action: 'merge PR', actor: 'agent-7', system: 'github', metadata: { pr: 12 } };

  it('is recognized', () => {
    assert.ok(isAlternativeShape(alternative));
    assert.ok(isAlternativeShape({ action: 'merge' }));
    assert.ok(isAlternativeShape({ system: 'github' }));
    assert.ok(isAlternativeShape(body({ actor: 'agent-7' })));
    assert.ok(!isAlternativeShape(body()));
    assert.ok(!isAlternativeShape(body({ metadata: {} })));
    assert.ok(
      !isAlternativeShape(body({ action: 'x' })),
      'action next to proposedAction is an unknown field',
    );
    assert.ok(!isAlternativeShape(null));
    assert.ok(!isAlternativeShape([alternative]));
  });

  it('is answered with a message naming the expected fields', () => {
    const issues = checkIntentRequest(alternative);
    assert.deepEqual(issues, [{ path: '/', message: ALTERNATIVE_SHAPE_MESSAGE }]);
    for (const expected of [
      'tenantId',
      'actor {id, type}',
      'targetSystem',
      'proposedAction',
      'riskContext {baseRiskScore',
    ]) {
      assert.ok(ALTERNATIVE_SHAPE_MESSAGE.includes(expected), expected);
    }
    const result = validateIntentRequest(alternative);
    assert.ok(!result.ok);
    assert.deepEqual(result.issues, issues);
  });
});

describe('intent request: checks beyond the schema', () => {
  it('passes a proper body', () => {
    assert.deepEqual(checkIntentRequest(body()), []);
    assert.deepEqual(checkIntentRequest(body({ args: { a: [1, { b: 'c' }] } })), []);
  });

  it('requires riskContext.github owner/repo to equal targetSystem, exactly', () => {
    const matching = riskContext({ github: { owner: 'octo-org', repo: 'widgets' } });
    assert.deepEqual(checkIntentRequest(matching), []);
    const other = riskContext({ github: { owner: 'octo-org', repo: 'gadgets' } });
    assert.deepEqual(checkIntentRequest(other), [
      {
        path: '/riskContext/github',
        message: 'owner/repo (octo-org/gadgets) must equal targetSystem (octo-org/widgets)',
      },
    ]);
    const cased = riskContext({ github: { owner: 'Octo-Org', repo: 'widgets' } });
    assert.equal(checkIntentRequest(cased).length, 1);
  });

  it('leaves wrong types to the schema', () => {
    assert.deepEqual(checkIntentRequest(riskContext({ github: { owner: 5, repo: 'x' } })), []);
    assert.deepEqual(checkIntentRequest(body({ riskContext: 'x' })), []);
    assert.deepEqual(checkIntentRequest(null), []);
    assert.deepEqual(checkIntentRequest('x'), []);
  });

  it('limits args to depth 16', () => {
    assert.equal(exceedsDepth(nested(16), 16), false);
    assert.equal(exceedsDepth(nested(17), 16), true);
    assert.equal(exceedsDepth(nested(16, 'x', true), 16), false);
    assert.equal(exceedsDepth(nested(17, 'x', true), 16), true);
    assert.equal(exceedsDepth(nested(16, {}), 16), false, 'an empty container holds nothing deeper');
    assert.equal(exceedsDepth(nested(16, []), 16), false);
    assert.equal(exceedsDepth(nested(16, [1]), 16), true);
    assert.equal(exceedsDepth({ a: 1, b: { c: nested(15) } }, 16), true);
    assert.equal(exceedsDepth({ a: 1, b: { c: nested(14) } }, 16), false);
    assert.deepEqual(checkIntentRequest(body({ args: nested(16) })), []);
    assert.deepEqual(checkIntentRequest(body({ args: nested(17) })), [
      { path: '/args', message: 'must be nested at most 16 levels deep' },
    ]);
  });

  it('survives a pathologically deep args without using the stack', () => {
    const deep = nested(200_000);
    assert.equal(exceedsDepth(deep, 16), true);
    assert.equal(checkArgs(deep)[0]?.path, '/args');
  });

  it('limits args to 64 KiB of UTF-8 JSON', () => {
    // {"s":"…"} is 8 bytes plus the string.
    const fits = { s: 'x'.repeat(MAX_ARGS_BYTES - 8) };
    assert.equal(jsonByteLength(fits), 65_536);
    assert.deepEqual(checkIntentRequest(body({ args: fits })), []);
    const over = { s: 'x'.repeat(MAX_ARGS_BYTES - 7) };
    assert.deepEqual(checkIntentRequest(body({ args: over })), [
      { path: '/args', message: 'must be at most 65536 bytes as UTF-8 JSON (is 65537)' },
    ]);
  });

  it('measures bytes, not characters', () => {
    // 'é' is two bytes in UTF-8: 32,765 of them make 65,530 bytes of string, 65,538 in all.
    const accented = { s: 'é'.repeat(32_765) };
    assert.equal(JSON.stringify(accented).length, 32_773);
    assert.equal(jsonByteLength(accented), 65_538);
    assert.equal(checkArgs(accented).length, 1);
    assert.equal(checkArgs({ s: 'é'.repeat(32_764) }).length, 0);
  });

  it('reports args and GitHub issues together', () => {
    const both = body({
      args: nested(20),
      riskContext: { baseRiskScore: 1, github: { owner: 'x', repo: 'y' } },
    });
    assert.deepEqual(
      checkIntentRequest(both).map((issue) => issue.path),
      ['/args', '/riskContext/github'],
    );
  });
});

describe('intent request: validateIntentRequest', () => {
  it('returns the body when everything holds', () => {
    const request = body({ args: { a: 1 } });
    const result = validateIntentRequest(request);
    assert.ok(result.ok);
    assert.equal(result.value, request);
  });

  it('names missing and unknown fields by path', () => {
    const missing = body();
    delete missing.proposedAction;
    const result = validateIntentRequest({ ...missing, extra: 1, actor: { id: 'a', type: 'agent', x: 1 } });
    assert.ok(!result.ok);
    const byPath = new Map(result.issues.map((issue) => [issue.path, issue.message]));
    assert.equal(byPath.get('/proposedAction'), 'is required');
    assert.equal(byPath.get('/extra'), 'is not a known field');
    assert.equal(byPath.get('/actor/x'), 'is not a known field');
  });

  it('reports type errors at their path', () => {
    const result = validateIntentRequest(riskContext({ baseRiskScore: 101 }));
    assert.ok(!result.ok);
    assert.deepEqual(
      result.issues.map((issue) => issue.path),
      ['/riskContext/baseRiskScore'],
    );
    const root = validateIntentRequest('x');
    assert.ok(!root.ok);
    assert.equal(root.issues[0]?.path, '/');
  });

  it('runs the extra checks after the schema', () => {
    const result = validateIntentRequest(riskContext({ github: { owner: 'a', repo: 'b' } }));
    assert.ok(!result.ok);
    assert.deepEqual(
      result.issues.map((issue) => issue.path),
      ['/riskContext/github'],
    );
  });
});

describe('intent request: riskFlags', () => {
  it('defaults policyCompliant to true and the others to false', () => {
    assert.deepEqual(riskFlags({ baseRiskScore: 1 }), {
      policyCompliant: true,
      privileged: false,
      production: false,
      sensitive: false,
    });
    assert.deepEqual(
      riskFlags({
        baseRiskScore: 1,
        policyCompliant: false,
        requiresPrivilegedAccess: true,
        touchesProduction: true,
        containsSensitiveData: true,
      }),
      { policyCompliant: false, privileged: true, production: true, sensitive: true },
    );
  });
});

describe('intent request: Idempotency-Key', () => {
  it('is optional', () => {
    assert.deepEqual(checkIdempotencyKey(undefined), []);
  });

  it('takes 1..255 visible ASCII characters', () => {
    for (const key of ['a', '~', '!', 'k'.repeat(255), 'order-42:retry#1', '0123456789abcdef']) {
      assert.deepEqual(checkIdempotencyKey(key), [], key);
    }
  });

  it('refuses empty, long, spaced, control and non-ASCII keys, and repeated headers', () => {
    for (const key of ['', 'k'.repeat(256), 'a b', ' a', 'a\t', 'a\u0000', 'a\u007f', 'é', 'ключ', '🙂']) {
      const issues = checkIdempotencyKey(key);
      assert.equal(issues.length, 1, JSON.stringify(key));
      assert.equal(issues[0]?.path, 'headers/idempotency-key');
    }
    assert.equal(checkIdempotencyKey(['a', 'b']).length, 1);
  });
});
