import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { canonicalJson, sha256Hex } from '../../src/crypto/canonical-json.js';
import { DEFAULT_PHYSICAL_POLICY } from '../../src/physical/domain/index.js';
import { bearer, createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import {
  chainEvents,
  clearState,
  DRONE,
  decisionRows,
  issue,
  pickGoal,
  post,
  registerActors,
  tokenBody,
} from './fixtures.js';

/** `POST` and `GET /v1/physical/policy` (document 02 "Policy", contract §9) and their effect on decisions. */
for (const engine of ENGINES) {
  describe(`physical policy (${engine})`, () => {
    let t: TestApp;

    before(async () => {
      t = await createTestApp(engine);
    });
    after(async () => {
      await t.close();
    });

    /** A fresh tenant with its owner headers and the robot and drone on its roster. */
    async function tenant(id: string): Promise<Headers> {
      const owner = bearer((await t.createTenant(id, 'enterprise')).ownerKey.key, id);
      await registerActors(t, owner);
      return owner;
    }
    const upload = (headers: Headers, payload: unknown) => post(t, '/v1/physical/policy', headers, payload);
    const read = (headers: Headers) => t.app.inject({ method: 'GET', url: '/v1/physical/policy', headers });
    const withoutId = (body: { id: string; version: number; active: boolean }) => ({
      version: body.version,
      active: body.active,
    });
    const allowAll = { clauses: [{ id: 'allow-all', effect: 'allow', safeDefault: 'stop' }] };

    it('serves the default policy as version 0 with activatedAt null until an upload is activated', async () => {
      const owner = await tenant('fresh');
      const res = await read(owner);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        active: JSON.parse(JSON.stringify(DEFAULT_PHYSICAL_POLICY)),
        version: 0,
        activatedAt: null,
      });
      const stored = await upload(owner, { policy: allowAll });
      assert.equal(stored.statusCode, 200, stored.body);
      assert.match(stored.json().id, /^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      assert.deepEqual(withoutId(stored.json()), { version: 1, active: false });
      assert.equal((await read(owner)).json().version, 0, 'activate defaults to false');
    });

    it('versions uploads per tenant, one active at a time, audited with the document hash', async () => {
      const owner = await tenant('versions');
      const described = { description: 'Cell 4', ...allowAll };
      assert.equal((await upload(owner, { policy: allowAll })).json().version, 1);
      t.clock.advance(1_000);
      const second = await upload(owner, { policy: described, activate: true });
      assert.deepEqual(withoutId(second.json()), { version: 2, active: true });
      assert.deepEqual((await read(owner)).json(), { active: described, version: 2, activatedAt: t.clock() });
      t.clock.advance(1_000);
      const third = await upload(owner, { policy: allowAll, activate: true });
      assert.equal(third.json().version, 3);
      const rows = await t.storage.db
        .selectFrom('physical_policies')
        .select(['version', 'active'])
        .where('tenant_id', '=', 'versions')
        .orderBy('version')
        .execute();
      assert.deepEqual(
        rows.map((row) => [row.version, Number(row.active)]),
        [
          [1, 0],
          [2, 0],
          [3, 1],
        ],
      );
      assert.deepEqual((await read(owner)).json(), { active: allowAll, version: 3, activatedAt: t.clock() });
      // Another tenant still has the default.
      assert.equal((await read(await tenant('neighbour'))).json().version, 0);

      const saved = await chainEvents(t, 'versions', 'physical.policy.saved');
      const activated = await chainEvents(t, 'versions', 'physical.policy.activated');
      assert.equal(saved.length, 3);
      assert.equal(activated.length, 2);
      assert.deepEqual(activated[1]?.payload, {
        id: third.json().id,
        version: 3,
        clauseCount: 1,
        documentSha256: sha256Hex(canonicalJson(allowAll)),
        previousVersion: 2,
      });
      assert.equal(activated[0]?.payload.previousVersion, 0, 'the default policy was active before');
      assert.equal(saved[2]?.correlationId, activated[1]?.correlationId);
      assert.equal(saved[2]?.actorType, 'principal:api-key');
    });

    it('parallel activating uploads get distinct versions and leave exactly one active', async () => {
      const owner = await tenant('race');
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => upload(owner, { policy: allowAll, activate: true })),
      );
      for (const res of answers) assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(answers.map((res) => res.json().version).sort(), [1, 2, 3, 4, 5, 6]);
      const active = await t.storage.db
        .selectFrom('physical_policies')
        .select('version')
        .where('tenant_id', '=', 'race')
        .where('active', '=', 1)
        .execute();
      assert.equal(active.length, 1);
      assert.equal((await read(owner)).json().version, active[0]?.version);
    });

    it('refuses invalid documents with 400 naming the clause path, and stores nothing', async () => {
      const owner = await tenant('invalid');
      const cases: Array<[unknown, string]> = [
        [{}, '/policy'],
        [{ policy: null }, '/policy'],
        [{ policy: { clauses: [{ id: 'x', effect: 'allow' }] } }, '/policy/clauses/0/safeDefault'],
        [
          { policy: { clauses: [{ id: 'quiet', effect: 'allow', safeDefault: 'ignore' }] } },
          '/policy/clauses/0/safeDefault',
        ],
        [
          { policy: { clauses: [{ id: 'kill-switch', effect: 'allow', safeDefault: 'stop' }] } },
          '/policy/clauses/0/id',
        ],
        [{ policy: { clauses: [], colour: 'red' } }, '/policy/colour'],
        [{ policy: allowAll, activate: 'yes' }, '/activate'],
        [{ policy: allowAll, extra: true }, '/extra'],
      ];
      for (const [body, path] of cases) {
        const res = await upload(owner, body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().error.code, 'validation_error');
        const paths = res.json().error.details.issues.map((issue: { path: string }) => issue.path);
        assert.ok(paths.includes(path), `${JSON.stringify(body)}: ${paths.join(', ')}`);
      }
      // "ignore" is fine on a clause restricted to non-safety codes.
      const quiet = {
        clauses: [
          { id: 'quiet', effect: 'allow', appliesTo: { oiCodes: ['OI-15*'] }, safeDefault: 'ignore' },
        ],
      };
      const accepted = await upload(owner, { policy: quiet });
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal(accepted.json().version, 1, 'the refused uploads took no version');
    });

    it('needs physical:policy:write to upload and physical:policy:read to read', async () => {
      await tenant('roles');
      const policyAdmin = await t.roleHeaders('roles', 'policy_admin');
      const auditor = await t.roleHeaders('roles', 'auditor');
      const agent = await t.roleHeaders('roles', 'agent');
      assert.equal((await upload(policyAdmin, { policy: allowAll, activate: true })).statusCode, 200);
      assert.equal((await read(policyAdmin)).json().version, 1);
      assert.equal((await read(auditor)).json().version, 1);
      const refused = await upload(auditor, { policy: allowAll });
      assert.deepEqual(
        [refused.statusCode, refused.json().error.code, refused.json().error.details.permission],
        [403, 'forbidden', 'physical:policy:write'],
      );
      const blind = await read(agent);
      assert.deepEqual(
        [blind.statusCode, blind.json().error.details.permission],
        [403, 'physical:policy:read'],
      );
    });

    it('the active upload decides: ALLOW without state (physicalStateRef null), default-deny, inactive uploads ignored', async () => {
      const owner = await tenant('decides');
      const droneGoal = pickGoal({
        schema: 'drone.flight',
        verb: 'takeoff',
        object: null,
        actor: { kind: 'drone', identifier: DRONE },
      });
      assert.equal((await issue(t, owner, tokenBody({ goal: droneGoal }))).statusCode, 422, 'default policy');
      assert.equal((await upload(owner, { policy: allowAll })).json().active, false);
      assert.equal((await issue(t, owner, tokenBody({ goal: droneGoal }))).statusCode, 422, 'not active yet');

      const dronesOnly = {
        clauses: [
          { id: 'drones', effect: 'allow', appliesTo: { schemas: ['drone.*'] }, safeDefault: 'stop' },
        ],
      };
      assert.equal((await upload(owner, { policy: dronesOnly, activate: true })).statusCode, 200);
      const snapshotsBefore = (await chainEvents(t, 'decides', 'physical.snapshot')).length;
      const allowed = await issue(t, owner, tokenBody({ goal: droneGoal }));
      assert.equal(allowed.statusCode, 200, allowed.body);
      assert.equal(allowed.json().decision, 'ALLOW');
      assert.equal(allowed.json().physicalStateRef, null);
      assert.equal((await chainEvents(t, 'decides', 'physical.snapshot')).length, snapshotsBefore);
      const entry = (await decisionRows(t, 'decides')).at(-1);
      assert.equal(entry?.clause_id, 'drones');

      const robot = await issue(
        t,
        owner,
        tokenBody({ safeDefault: 'abort-mission', physicalState: clearState(t.clock()) }),
      );
      assert.equal(robot.statusCode, 422, robot.body);
      assert.deepEqual(
        [
          robot.json().error.details.clauseId,
          robot.json().error.details.clauseIds,
          robot.json().error.details.safeDefault,
        ],
        ['default-deny', ['default-deny'], 'abort-mission'],
      );
    });

    it('an uploaded audit-gap clause answers 423 while its predicate is missing or stale', async () => {
      const owner = await tenant('heartbeat');
      const policy = {
        clauses: [
          {
            id: 'recorder-heartbeat',
            effect: 'audit-gap',
            when: [{ predicate: 'recorder/heartbeat', op: 'absent' }],
            maxStateAgeMs: 5_000,
            safeDefault: 'hold-position',
          },
          { id: 'allow-all', effect: 'allow', safeDefault: 'stop' },
        ],
      };
      assert.equal((await upload(owner, { policy, activate: true })).statusCode, 200);
      const heartbeat = (asOfTimestampMs: number) => ({
        'recorder/heartbeat': {
          kind: 'number',
          value: 1,
          asOfTimestampMs,
          attestation: { channel: 'recorder', safetyRated: true, protocol: 'trusted-bus' },
        },
      });
      for (const physicalState of [undefined, heartbeat(t.clock() - 5_001)]) {
        const res = await issue(t, owner, tokenBody({ physicalState }));
        assert.equal(res.statusCode, 423, res.body);
        assert.equal(res.json().error.code, 'policy_denied');
        assert.equal(res.json().error.details.clauseId, 'recorder-heartbeat');
        assert.equal(res.json().error.details.safeDefault, 'hold-position');
      }
      const fresh = await issue(t, owner, tokenBody({ physicalState: heartbeat(t.clock() - 100) }));
      assert.equal(fresh.json().decision, 'ALLOW', fresh.body);
    });
  });
}
