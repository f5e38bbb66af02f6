import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TSchema, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { toAppError } from '../../src/http/error-envelope.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';

const issuesOf = (schema: TSchema, value: unknown) =>
  toAppError(
    Object.assign(new Error('invalid'), {
      validation: [...Compile(schema).Errors(value)],
      validationContext: 'body',
    }),
  ).appError.details?.issues;

describe('validation messages name the allowed values', () => {
  it('of an enum, and of a union of constants (one issue, not one per member)', () => {
    assert.deepEqual(issuesOf(Type.Object({ kind: Type.Enum(['robot', 'drone']) }), { kind: 'toaster' }), [
      { path: '/kind', message: 'must be one of "robot", "drone"' },
    ]);
    assert.deepEqual(
      issuesOf(Type.Object({ decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]) }), {
        decision: 'maybe',
      }),
      [{ path: '/decision', message: 'must be one of "approve", "deny"' }],
    );
    // A union with another kind of member keeps its own issues.
    const mixed = issuesOf(Type.Object({ v: Type.Union([Type.Literal('a'), Type.Number()]) }), {
      v: 'b',
    }) as Array<{
      message: string;
    }>;
    assert.ok(
      mixed.some((i) => i.message === 'must be equal to constant'),
      JSON.stringify(mixed),
    );
  });

  describe('over HTTP', () => {
    let t: TestApp;
    let owner: Headers;
    before(async () => {
      t = await createTestApp('sqlite');
      owner = await t.ownerHeaders('acme');
    });
    after(async () => {
      await t.close();
    });

    it('bodies and query strings of both surfaces', async () => {
      const cases: Array<[string, string, unknown, string, RegExp]> = [
        ['PUT', '/authority/actors/a1', { status: 'zzz' }, '/status', /^must be one of "active", "blocked"$/],
        [
          'POST',
          '/v1/physical/actors',
          { actorIdentity: 'devid:1', actorKind: 'toaster' },
          '/actorKind',
          /^must be one of "robot", /,
        ],
        ['GET', '/intents?status=MAYBE', undefined, 'querystring/status', /^must be one of "APPROVED", /],
        [
          'PUT',
          '/authority/keys/algorithm',
          { alg: 'HS256' },
          '/alg',
          /^must be one of "EdDSA", "RS256", "ES256"$/,
        ],
      ];
      for (const [method, url, payload, path, message] of cases) {
        const res = await t.app.inject({
          method: method as 'GET',
          url,
          headers: owner,
          ...(payload === undefined ? {} : { payload: payload as object }),
        });
        assert.equal(res.statusCode, 400, res.body);
        const [issue] = res.json().error.details.issues;
        assert.equal(issue.path, path, res.body);
        assert.match(issue.message, message, res.body);
      }
    });
  });
});
