import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { bearer, createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { BAD_KINDS, illFormedText, plant } from '../helpers/bad-shapes.js';
import { ENGINES } from '../helpers/storage.js';
import { clearState, registerActors, tokenBody } from './fixtures.js';

/**
 * Contract section 12 on the decision endpoints: any JSON body, and any valid request with one field
 * replaced by arbitrary JSON, answers without a 5xx; a 4xx other than a recorded decision (422/423)
 * carries the lower-snake envelope and writes nothing: no chain entry, decision, snapshot, ticket or
 * policy version.
 */

const PARAMS = {
  numRuns: 120,
  seed: process.env.FC_SEED === undefined ? 20261122 : Number(process.env.FC_SEED),
};
const LOWER_SNAKE = /^[a-z]+(?:_[a-z]+)*$/;

/** Paths of a token request that a mutation replaces (dotted; `physicalState` keys contain `/`). */
const TOKEN_PATHS: readonly (readonly string[])[] = [
  ['intent'],
  ['intent', 'structuredGoal'],
  ['intent', 'structuredGoal', 'schema'],
  ['intent', 'structuredGoal', 'verb'],
  ['intent', 'structuredGoal', 'object'],
  ['intent', 'structuredGoal', 'parameters'],
  ['intent', 'structuredGoal', 'actor'],
  ['intent', 'structuredGoal', 'actor', 'kind'],
  ['intent', 'structuredGoal', 'actor', 'identifier'],
  ['intent', 'structuredGoal', 'sourceTimestampMs'],
  ['intent', 'oiCode'],
  ['dagNode', 'nodeId'],
  ['dagNode', 'oiCode'],
  ['dagNode', 'deadlineMs'],
  ['dagNode', 'safeDefault'],
  ['dagNode', 'realTimeTier'],
  ['dagNode', 'streaming'],
  ['dagNode', 'streamingWindowMs'],
  ['claims', 'actorIdentity'],
  ['claims', 'deadlineMs'],
  ['claims', 'safeDefault'],
  ['claims', 'safetyBit'],
  ['claims', 'safetyCitations'],
  ['physicalState'],
  ['physicalState', 'safety/emergency-stop'],
  ['physicalState', 'safety/emergency-stop', 'asOfTimestampMs'],
  ['physicalState', 'safety/emergency-stop', 'attestation'],
  ['operatorTicketId'],
];

/** Arbitrary JSON, or a value close to a valid one, so that mutations also reach the deeper checks. */
const fieldValue = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(
    'OI-1502',
    'OI-2903',
    'stop',
    'ignore',
    'robot',
    'drone',
    'devid:drone-3',
    'esc_0000',
    'rt-hard',
    0,
    1,
    1.5,
    -1,
    300_000,
    300_001,
    Number.MAX_SAFE_INTEGER,
    true,
    false,
    null,
    [],
    {},
  ),
);

function replaced(body: unknown, path: readonly string[], value: unknown): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[path[path.length - 1] as string] = value;
  return copy;
}

for (const engine of ENGINES) {
  describe(`decision endpoints with bad input (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;

    before(async () => {
      t = await createTestApp(engine);
      owner = bearer((await t.createTenant('acme', 'enterprise')).ownerKey.key, 'acme');
      await registerActors(t, owner);
    });
    after(async () => {
      await t.close();
    });

    async function writes(): Promise<number> {
      let total = 0;
      for (const table of [
        'audit_entries',
        'physical_decisions',
        'physical_snapshots',
        'physical_tickets',
        'physical_policies',
      ] as const) {
        const row = await t.storage.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        total += Number(row.n);
      }
      return total;
    }

    async function check(url: string, value: unknown): Promise<void> {
      const payload = JSON.stringify(value);
      const before = await writes();
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { ...owner, 'content-type': 'application/json' },
        payload,
      });
      const context = `${url} ${payload.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
      assert.ok(res.statusCode < 500, context);
      if (res.statusCode < 400) return;
      const body = res.json() as { error: { code: string; requestId: string } };
      assert.deepEqual(Object.keys(body), ['error'], context);
      assert.match(body.error.code, LOWER_SNAKE, context);
      assert.equal(body.error.requestId, res.headers['x-request-id'], context);
      // A DENY (422, 423) is a decision: it is recorded. Any other refusal writes nothing.
      if (res.statusCode !== 422 && res.statusCode !== 423) assert.equal(await writes(), before, context);
      else assert.equal(body.error.code, 'policy_denied', context);
    }

    test('any JSON body: classify, authority-tokens and policy never answer 5xx', async () => {
      for (const url of ['/v1/physical/classify', '/v1/physical/authority-tokens', '/v1/physical/policy']) {
        await fc.assert(
          fc.asyncProperty(fc.jsonValue(), (value) => check(url, value)),
          PARAMS,
        );
      }
    });

    test('a valid token request with one field replaced by any JSON: never 5xx, refusals write nothing', async () => {
      const valid = tokenBody({ physicalState: clearState(t.clock()) });
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...TOKEN_PATHS), fieldValue, (path, value) =>
          check('/v1/physical/authority-tokens', replaced(valid, path, value)),
        ),
        { ...PARAMS, numRuns: 400 },
      );
    });

    test('a valid request with ill-formed Unicode (keys too) or nesting past the limit anywhere: 400 naming the path, nothing written', async () => {
      const valid = tokenBody({ physicalState: clearState(t.clock()) });
      const bodies: Record<string, unknown> = {
        '/v1/physical/authority-tokens': valid,
        '/v1/physical/classify': { goal: (valid.intent as { structuredGoal: unknown }).structuredGoal },
        '/v1/physical/policy': {
          policy: {
            clauses: [
              {
                id: 'c',
                effect: 'deny',
                when: [{ predicate: 'a/b', op: 'eq', value: true }],
                safeDefault: 'stop',
              },
            ],
          },
        },
      };
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...Object.keys(bodies)),
          fc.array(fc.nat(), { maxLength: 5 }),
          fc.constantFrom(...BAD_KINDS),
          illFormedText,
          async (url, choices, kind, text) => {
            const bad = plant(bodies[url], choices, kind, text);
            const before = await writes();
            const res = await t.app.inject({
              method: 'POST',
              url,
              headers: { ...owner, 'content-type': 'application/json' },
              payload: JSON.stringify(bad.value),
            });
            const context = `${url} ${kind} at ${bad.path} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
            assert.equal(res.statusCode, 400, context);
            assert.equal(res.json().error.code, 'validation_error', context);
            assert.equal(res.json().error.details.issues[0].path, bad.path, context);
            assert.equal(await writes(), before, context);
          },
        ),
        PARAMS,
      );
    });

    test('a goal or a policy clause with one field replaced by any JSON: never 5xx', async () => {
      const goal = (valid: unknown) => ({ goal: valid });
      const baseGoal = (tokenBody().intent as { structuredGoal: unknown }).structuredGoal;
      const clause = {
        id: 'c',
        effect: 'deny',
        when: [{ predicate: 'a/b', op: 'eq', value: true }],
        safeDefault: 'stop',
      };
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('schema', 'verb', 'object', 'parameters', 'actor', 'sourceTimestampMs'),
          fc.constantFrom('id', 'effect', 'when', 'appliesTo', 'safeDefault', 'citations', 'maxStateAgeMs'),
          fieldValue,
          async (goalKey, clauseKey, value) => {
            await check('/v1/physical/classify', goal(replaced(baseGoal, [goalKey], value)));
            await check('/v1/physical/policy', {
              policy: { clauses: [replaced(clause, [clauseKey], value)] },
            });
          },
        ),
        PARAMS,
      );
    });
  });
}
