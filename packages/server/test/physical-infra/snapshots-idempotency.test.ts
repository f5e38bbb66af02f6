import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors/app-error.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { chainEvents } from './fixtures.js';

const READING = {
  kind: 'boolean',
  value: false,
  asOfTimestampMs: 1_767_225_600_000,
  attestation: { channel: 'plc-7' },
};

for (const engine of ENGINES) {
  describe(`physical snapshots and idempotency (${engine})`, () => {
    let t: TestApp;
    let agent: Headers;
    let other: Headers;

    before(async () => {
      t = await createTestApp(engine, { IDEMPOTENCY_WAIT_MS: '300' });
      await t.createTenant('acme', 'enterprise');
      agent = await t.roleHeaders('acme', 'agent');
      other = await t.ownerHeaders('globex');
    });
    after(async () => {
      await t.close();
    });

    const post = (payload: unknown, headers: Headers = agent) =>
      t.app.inject({ method: 'POST', url: '/v1/physical/snapshots', headers, payload: payload as object });

    it('records a snapshot with the attestation defaults written out, in the chain', async () => {
      const physicalState = {
        'safety/emergency-stop': READING,
        'arm/payload-kg': {
          kind: 'number',
          value: 3.5,
          unit: 'kg',
          asOfTimestampMs: 5,
          attestation: { channel: 'bus', safetyRated: true, protocol: 'profisafe' },
        },
        'cell/mode': { kind: 'string', value: 'auto', asOfTimestampMs: 6, attestation: { channel: 'opc' } },
        'cell/door': { kind: 'unavailable', reason: 'offline', asOfTimestampMs: 7 },
        'cell/light-curtain': { kind: 'unavailable', reason: 'never wired' },
      };
      const res = await post({ physicalState });
      assert.equal(res.statusCode, 200, res.body);
      const { physicalStateRef, asOfTimestampMs } = res.json();
      assert.match(physicalStateRef, /^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      assert.equal(asOfTimestampMs, t.clock());
      const expected = {
        ...physicalState,
        'safety/emergency-stop': {
          ...READING,
          attestation: { channel: 'plc-7', safetyRated: false, protocol: 'untrusted' },
        },
        'cell/mode': {
          ...physicalState['cell/mode'],
          attestation: { channel: 'opc', safetyRated: false, protocol: 'untrusted' },
        },
      };
      assert.deepEqual(await t.services.physical.snapshots.get('acme', physicalStateRef), expected);
      assert.equal(await t.services.physical.snapshots.get('globex', physicalStateRef), undefined);
      const event = (await chainEvents(t, 'acme', 'physical.snapshot')).at(-1);
      assert.equal(event?.actorType, 'principal:api-key');
      assert.deepEqual(event?.payload, { physicalStateRef, asOfTimestampMs, physicalState: expected });
      const empty = await post({ physicalState: {} });
      assert.equal(empty.statusCode, 200, empty.body);
    });

    it('validates PhysicalStateValue as the document defines it', async () => {
      const bad: Record<string, unknown>[] = [
        { 'a/b': { kind: 'boolean', value: 'yes', asOfTimestampMs: 1, attestation: { channel: 'x' } } },
        { 'a/b': { kind: 'boolean', value: true, asOfTimestampMs: 1 } },
        { 'a/b': { kind: 'boolean', value: true, attestation: { channel: 'x' } } },
        { 'a/b': { kind: 'number', value: '3', asOfTimestampMs: 1, attestation: { channel: 'x' } } },
        { 'a/b': { kind: 'string', value: 3, asOfTimestampMs: 1, attestation: { channel: 'x' } } },
        { 'a/b': { kind: 'unavailable' } },
        { 'a/b': { kind: 'unavailable', reason: 'x', attestation: { channel: 'x' } } },
        { 'a/b': { kind: 'enum', value: 'x', asOfTimestampMs: 1, attestation: { channel: 'x' } } },
        {
          'a/b': {
            kind: 'boolean',
            value: true,
            asOfTimestampMs: 1,
            attestation: { channel: 'x', protocol: 'modbus' },
          },
        },
        { 'a/b': { kind: 'boolean', value: true, asOfTimestampMs: 1, attestation: { channel: '' } } },
        { 'a/b': { kind: 'boolean', value: true, asOfTimestampMs: -1, attestation: { channel: 'x' } } },
        {
          'a/b': {
            kind: 'boolean',
            value: true,
            asOfTimestampMs: 1,
            attestation: { channel: 'x' },
            extra: 1,
          },
        },
        { 'a b': READING },
        { '/leading': READING },
        { 'a//b': READING },
        { [`a/${'x'.repeat(300)}`]: READING },
      ];
      for (const physicalState of bad) {
        const res = await post({ physicalState });
        assert.equal(res.statusCode, 400, `${JSON.stringify(physicalState).slice(0, 120)}: ${res.body}`);
        assert.equal(res.json().error.code, 'validation_error');
        assert.ok(res.json().error.details.issues.length > 0);
      }
      const named = await post({ physicalState: { 'safety/e stop': READING } });
      assert.equal(named.json().error.details.issues[0].path, '/physicalState/safety~1e stop');
      for (const payload of [{}, { physicalState: [] }, { physicalState: {}, extra: 1 }]) {
        assert.equal((await post(payload)).statusCode, 400, JSON.stringify(payload));
      }
      const tooMany = Object.fromEntries(Array.from({ length: 513 }, (_, i) => [`p/${i}`, READING]));
      assert.equal((await post({ physicalState: tooMany })).statusCode, 400);
      const auditor = await t.roleHeaders('acme', 'auditor');
      const forbidden = await post({ physicalState: {} }, auditor);
      assert.equal(forbidden.json().error.details.permission, 'physical:snapshots:write');
    });

    it('replays the same Idempotency-Key and body, refuses another body with 409, and records once', async () => {
      const withKey = (key: string, payload: unknown, headers: Headers = agent) =>
        post(payload, { ...headers, 'idempotency-key': key });
      const before = (await chainEvents(t, 'acme', 'physical.snapshot')).length;
      const body = { physicalState: { 'safety/emergency-stop': READING } };
      const first = await withKey('node-1:1', body);
      assert.equal(first.statusCode, 200, first.body);
      // The same JSON in another key order is the same request.
      const reordered = {
        physicalState: {
          'safety/emergency-stop': {
            attestation: { channel: 'plc-7' },
            asOfTimestampMs: READING.asOfTimestampMs,
            value: false,
            kind: 'boolean',
          },
        },
      };
      const replay = await withKey('node-1:1', reordered);
      assert.equal(replay.statusCode, 200);
      assert.deepEqual(replay.json(), first.json());
      assert.equal((await chainEvents(t, 'acme', 'physical.snapshot')).length, before + 1);

      const conflict = await withKey('node-1:1', { physicalState: {} });
      assert.equal(conflict.statusCode, 409);
      assert.equal(conflict.json().error.code, 'conflict');

      // Keys are per tenant: the same key elsewhere is another request.
      const elsewhere = await withKey('node-1:1', body, other);
      assert.equal(elsewhere.statusCode, 200);
      assert.notEqual(elsewhere.json().physicalStateRef, first.json().physicalStateRef);

      for (const key of ['', 'x'.repeat(256), 'tab\there', 'é']) {
        const res = await withKey(key, body);
        assert.equal(res.statusCode, 400, JSON.stringify(key));
        assert.equal(res.json().error.code, 'validation_error');
      }
      assert.equal((await withKey('x'.repeat(255), body)).statusCode, 200);
    });

    it('stores a final 400 with its envelope and replays it; concurrent duplicates record once', async () => {
      const bad = { physicalState: { 'not a predicate': READING } };
      const first = await post(bad, { ...agent, 'idempotency-key': 'bad-1', 'x-request-id': 'req-first' });
      assert.equal(first.statusCode, 400);
      const replay = await post(bad, { ...agent, 'idempotency-key': 'bad-1', 'x-request-id': 'req-second' });
      assert.equal(replay.statusCode, 400);
      assert.deepEqual(replay.json(), first.json(), 'the original envelope, request id included');
      assert.equal(replay.json().error.requestId, 'req-first');

      const before = (await chainEvents(t, 'acme', 'physical.snapshot')).length;
      const body = { physicalState: { 'safety/emergency-stop': READING } };
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => post(body, { ...agent, 'idempotency-key': 'burst-1' })),
      );
      for (const res of answers) assert.equal(res.statusCode, 200, res.body);
      assert.equal(new Set(answers.map((res) => res.json().physicalStateRef)).size, 1);
      assert.equal((await chainEvents(t, 'acme', 'physical.snapshot')).length, before + 1);
    });

    /** A physical idempotent request of the test route under `key`. */
    const request = (key: string, body: unknown = { n: 1 }) => ({
      tenantId: 'acme',
      principalId: 'key-1',
      key,
      route: 'POST /physical/test',
      body,
      requestId: 'r-1',
    });
    /** A handler that counts its runs and answers a final 422. */
    const deniedCounting = (counter: { runs: number }) => async () => {
      counter.runs += 1;
      return { statusCode: 422, body: { error: { code: 'policy_denied' } } };
    };

    it('releases the key after a 500, so the retry runs', async () => {
      const { idempotency } = t.services.physical;
      let runs = 0;
      const failing = async () => {
        runs += 1;
        throw new Error('database exploded');
      };
      await assert.rejects(idempotency.run(request('k-500'), failing));
      await assert.rejects(idempotency.run(request('k-500'), failing));
      assert.equal(runs, 2, 'a 500 released the key');
    });

    it('releases the key after a 403, which is not final', async () => {
      const { idempotency } = t.services.physical;
      let runs = 0;
      const notRegistered = async () => {
        runs += 1;
        throw new AppError('ACTOR_NOT_REGISTERED');
      };
      await assert.rejects(idempotency.run(request('k-403'), notRegistered));
      await assert.rejects(idempotency.run(request('k-403'), notRegistered));
      assert.equal(runs, 2, 'a 403 is not final');
    });

    it('stores a final 422 and replays it; another body or route with the key is 409', async () => {
      const { idempotency } = t.services.physical;
      const counter = { runs: 0 };
      const denied = deniedCounting(counter);
      const stored = await idempotency.run(request('k-422'), denied);
      assert.deepEqual(stored, {
        statusCode: 422,
        body: { error: { code: 'policy_denied' } },
        replayed: false,
      });
      const replayed = await idempotency.run(request('k-422'), denied);
      assert.deepEqual(replayed, { ...stored, replayed: true });
      assert.equal(counter.runs, 1);
      await assert.rejects(
        idempotency.run(request('k-422', { n: 2 }), denied),
        (error: AppError) => error.code === 'CONFLICT',
      );
      await assert.rejects(
        idempotency.run({ ...request('k-422'), route: 'POST /physical/other' }, denied),
        (error: AppError) => error.code === 'CONFLICT',
      );
      // Another credential of the tenant with the same key and body is another request.
      await assert.rejects(
        idempotency.run({ ...request('k-422'), principalId: 'key-2' }, denied),
        (error: AppError) => error.code === 'CONFLICT',
      );
      assert.equal(counter.runs, 1);
    });

    it('keeps the answer a handler committed over the error it throws afterwards', async () => {
      const { idempotency } = t.services.physical;
      const counter = { runs: 0 };
      await assert.rejects(
        idempotency.run(request('k-committed'), async (scope) => {
          await t.storage.writeTransaction((trx) => scope.complete(trx, { statusCode: 200, body: { n: 1 } }));
          throw new AppError('VALIDATION_ERROR', 'after the commit');
        }),
      );
      assert.deepEqual(await idempotency.run(request('k-committed'), deniedCounting(counter)), {
        statusCode: 200,
        body: { n: 1 },
        replayed: true,
      });
      assert.equal(counter.runs, 0);
    });

    it('leaves no open claim behind an answer completed in a transaction that rolled back', async () => {
      const { idempotency } = t.services.physical;
      const counter = { runs: 0 };
      await assert.rejects(
        idempotency.run(request('k-rolled-back'), (scope) =>
          t.storage.writeTransaction(async (trx) => {
            await scope.complete(trx, { statusCode: 200, body: { n: 1 } });
            throw new AppError('VALIDATION_ERROR', 'inside the transaction');
          }),
        ),
      );
      const rolledBack = await idempotency.run(request('k-rolled-back'), deniedCounting(counter));
      assert.equal(rolledBack.replayed, true);
      assert.equal(rolledBack.statusCode, 400);
      assert.deepEqual(rolledBack.body, {
        error: { code: 'validation_error', message: 'inside the transaction', requestId: 'r-1' },
      });
      assert.equal(counter.runs, 0);
    });

    it('times out a duplicate while the first request holds the key, then replays its answer', async () => {
      const { idempotency } = t.services.physical;
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started: () => void = () => {};
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const slow = idempotency.run(request('k-slow'), async () => {
        started();
        await gate;
        return { statusCode: 200, body: { ok: true } };
      });
      await running; // the first request holds the key
      await assert.rejects(
        idempotency.run(request('k-slow'), async () => ({ statusCode: 200, body: { ok: false } })),
        (error: AppError) => error.code === 'CONFLICT' && /still being processed/.test(error.message),
      );
      release();
      assert.deepEqual(await slow, { statusCode: 200, body: { ok: true }, replayed: false });
      assert.deepEqual(
        await idempotency.run(request('k-slow'), async () => ({ statusCode: 200, body: { ok: false } })),
        { statusCode: 200, body: { ok: true }, replayed: true },
      );
    });
  });
}
