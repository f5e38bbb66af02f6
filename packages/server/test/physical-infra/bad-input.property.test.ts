import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { bearer, createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { badBody, plant } from '../helpers/bad-shapes.js';
import { ENGINES } from '../helpers/storage.js';
import { issueToken, recordRefusal } from './fixtures.js';

/**
 * Contract section 12 on the physical infrastructure routes: any JSON body answers 4xx with the
 * lower-snake envelope (never 5xx), and a refused request writes nothing: no chain entry, no row.
 */

const PARAMS = {
  numRuns: 150,
  seed: process.env.FC_SEED === undefined ? 20260109 : Number(process.env.FC_SEED),
};

const LOWER_SNAKE = /^[a-z]+(?:_[a-z]+)*$/;

for (const engine of ENGINES) {
  describe(`physical routes with any JSON body (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let routes: Array<{ url: string }>;

    before(async () => {
      t = await createTestApp(engine);
      owner = bearer((await t.createTenant('acme', 'enterprise')).ownerKey.key, 'acme');
      const issued = await issueToken(t, 'acme');
      const escalated = await recordRefusal(t, 'acme', 'ESCALATE');
      routes = [
        { url: '/v1/physical/actors' },
        { url: `/v1/physical/approvals/${escalated.ticketId}/decide` },
        { url: `/v1/physical/authority-tokens/${issued.jti}/revoke` },
        { url: '/v1/physical/snapshots' },
        { url: `/v1/physical/audit/${issued.jti}/verifications` },
        { url: '/v1/physical/verifications' },
      ];
    });
    after(async () => {
      await t.close();
    });

    async function writes(): Promise<number> {
      let total = 0;
      for (const table of [
        'audit_entries',
        'physical_actors',
        'physical_snapshots',
        'physical_verifications',
        'physical_revocations',
      ] as const) {
        const row = await t.storage.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        total += Number(row.n);
      }
      const decided = await t.storage.db
        .selectFrom('physical_tickets')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '!=', 'pending')
        .executeTakeFirstOrThrow();
      return total + Number(decided.n);
    }

    test('every body route: never 5xx; a refusal carries the envelope and changes nothing', async () => {
      for (const route of routes) {
        await fc.assert(
          fc.asyncProperty(fc.jsonValue(), async (value) => {
            const payload = JSON.stringify(value);
            const before = await writes();
            const res = await t.app.inject({
              method: 'POST',
              url: route.url,
              headers: { ...owner, 'content-type': 'application/json' },
              payload,
            });
            const context = `${route.url} ${payload.slice(0, 200)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
            assert.ok(res.statusCode < 500, context);
            if (res.statusCode < 400) return;
            const body = res.json() as { error: { code: string; message: string; requestId: string } };
            assert.deepEqual(Object.keys(body), ['error'], context);
            assert.match(body.error.code, LOWER_SNAKE, context);
            assert.equal(body.error.requestId, res.headers['x-request-id'], context);
            assert.equal(await writes(), before, context);
          }),
          PARAMS,
        );
      }
    });

    test('every body route: ill-formed Unicode (keys too) or nesting past the limit anywhere is 400 naming the path', async () => {
      const actor = { actorIdentity: 'devid:arm-1', actorKind: 'robot' };
      for (const route of routes) {
        await fc.assert(
          fc.asyncProperty(badBody, async (bad) => {
            const before = await writes();
            const res = await t.app.inject({
              method: 'POST',
              url: route.url,
              headers: { ...owner, 'content-type': 'application/json' },
              payload: JSON.stringify(bad.value),
            });
            const context = `${route.url} ${bad.kind} at ${bad.path} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
            assert.equal(res.statusCode, 400, context);
            assert.equal(res.json().error.code, 'validation_error', context);
            assert.equal(res.json().error.details.issues[0].path, bad.path, context);
            assert.equal(await writes(), before, context);
          }),
          {
            ...PARAMS,
            numRuns: 40,
            // The review's case: two identities that differ only in a lone surrogate.
            examples: [
              [
                {
                  ...plant(actor, [], 'lone surrogate in a value', '\udc01devid:q'),
                  kind: 'lone surrogate in a value',
                },
              ],
              [
                {
                  value: { ...actor, actorIdentity: '\udc02devid:q' },
                  path: '/actorIdentity',
                  kind: 'lone surrogate in a value',
                },
              ],
            ],
          },
        );
      }
    });
  });
}
