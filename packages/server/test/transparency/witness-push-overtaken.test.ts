// Two instances push the same tenant: instance A reads its latest checkpoint (size 5), then the log
// grows and instance B pushes size 12, which the witness cosigns; A's push of 5 is answered 409
// "cosigned 12". That is a push overtaken, not a witness ahead of the log: A records nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createEgressClient } from '../../src/egress/egress-client.js';
import { type CheckpointSource, createWitnessPusher } from '../../src/transparency/witness-push.js';
import { witnessRepository } from '../../src/transparency/witness-repository.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { stopProcess } from '../helpers/serve-process.js';
import { ENGINES } from '../helpers/storage.js';
import { Log, startWitness, type Witness, witnessKey } from '../helpers/witness-fixtures.js';

const ORIGIN = 'audit.example.com/audit/acme';

for (const engine of ENGINES) {
  describe(`witness push by two instances (${engine})`, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'witness-overtaken-'));
    const log = new Log(ORIGIN);
    let witness: Witness;
    let verifierKey: string;
    let t: TestApp;
    let headers: Record<string, string>;
    const state = { size: 5 };
    const real: CheckpointSource = {
      async latest() {
        return { note: log.note(state.size), size: state.size, rootHash: log.root(state.size) };
      },
      async consistencyProof(_tenant, from, to) {
        return log.proof(from, to);
      },
    };
    const pusher = (source: CheckpointSource) =>
      createWitnessPusher({
        storage: t.storage,
        clock: t.clock,
        egress: createEgressClient({ allowPrivate: true, allowCidrs: [] }),
        source,
        retryScheduleMs: [10_000, 60_000],
        timeoutMs: 5_000,
        random: () => 0.5,
        onError: (error) => assert.fail(error as Error),
      });

    before(async () => {
      t = await createTestApp(engine, { ALLOW_PRIVATE_EGRESS: '1' });
      headers = await t.ownerHeaders('acme');
      const { keyFile, verifierKey: key } = witnessKey(dir, 'witness.example/w1');
      verifierKey = key;
      witness = await startWitness(['--key-file', keyFile, '--log', `${ORIGIN}=${log.signer.verifierKey}`]);
      const response = await t.app.inject({
        method: 'PUT',
        url: '/audit/witnesses',
        headers,
        payload: { witnesses: [{ name: 'witness.example/w1', url: witness.base, verifierKey }], quorum: 1 },
      });
      assert.equal(response.statusCode, 200, response.body);
    });
    after(async () => {
      await stopProcess(witness.child);
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a push of an older checkpoint overtaken by another instance is not recorded as a failure', async () => {
      const b = pusher(real);
      const a = pusher({
        ...real,
        async latest(tenantId) {
          const mine = await real.latest(tenantId);
          // The log grows, and instance B pushes its later checkpoint first.
          state.size = 12;
          await b.pushTenant(tenantId);
          return mine;
        },
      });
      await a.pushTenant('acme');
      const [row] = (await witnessRepository.get(t.storage.db, 'acme'))?.witnesses ?? [];
      assert.equal(row?.cosigned_size, 12);
      assert.deepEqual(
        {
          attempts: row?.attempts,
          lastError: row?.last_error,
          backedOff: (row?.next_attempt_at ?? 0) > t.clock(),
        },
        { attempts: 0, lastError: null, backedOff: false },
      );
    });
  });
}
