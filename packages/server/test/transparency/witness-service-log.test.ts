// The service's own log, end to end (contract §15): real `authority witness serve` processes pinned
// to the tenant's published log key cosign the service's checkpoints, and `GET
// /audit/:tenantId/checkpoint` serves those cosignatures after the log's signature, so an auditor
// holding the log key and the witness keys verifies a quorum from the route alone. A checkpoint the
// service signs is pushed at once, without waiting for a poll round.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseCheckpoint, parseSignedNote, verifyCheckpoint } from '@authority-runtime/sdk';
import { createEgressClient } from '../../src/egress/egress-client.js';
import { checkpointSourceOf } from '../../src/transparency/checkpoint-source.js';
import { createWitnessPusher } from '../../src/transparency/witness-push.js';
import { witnessRepository } from '../../src/transparency/witness-repository.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { appendEvents } from '../helpers/audit.js';
import { freePort } from '../helpers/free-port.js';
import { stopProcess } from '../helpers/serve-process.js';
import { ENGINES } from '../helpers/storage.js';
import { startWitness, type Witness, witnessKey } from '../helpers/witness-fixtures.js';

/** Resolves with what `probe` finds once it finds something, asking again every 20 ms (no deadline). */
async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    await sleep(20);
  }
}

for (const engine of ENGINES) {
  describe(`witnesses cosign the service's own log (${engine})`, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'authority-witness-log-'));
    const witnesses: Witness[] = [];
    const keys: { keyFile: string; verifierKey: string }[] = [];
    let t: TestApp;
    let headers: Headers;
    let logKey: string;

    const checkpoint = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/audit/acme/checkpoint', headers });
      assert.equal(res.statusCode, 200, res.body);
      return res.body;
    };
    const push = () =>
      createWitnessPusher({
        storage: t.storage,
        clock: t.clock,
        egress: createEgressClient({ allowPrivate: true, allowCidrs: [] }),
        source: checkpointSourceOf(t.services.transparency),
        retryScheduleMs: [10_000],
        timeoutMs: 5_000,
        random: () => 0.999,
        onError: (error) => assert.fail(error as Error),
      }).runOnce();

    before(async () => {
      t = await createTestApp(engine, { ALLOW_PRIVATE_EGRESS: '1' });
      headers = await t.ownerHeaders('acme');
      logKey = (
        await t.app.inject({ method: 'GET', url: '/.well-known/authority/acme/log-key' })
      ).body.trimEnd();
      const origin = logKey.split('+')[0] as string;
      for (const name of ['witness.example/w1', 'witness.example/w2']) keys.push(witnessKey(dir, name));
      witnesses.push(
        ...(await Promise.all(
          keys.map((key) => startWitness(['--key-file', key.keyFile, '--log', `${origin}=${logKey}`])),
        )),
      );
      const res = await t.app.inject({
        method: 'PUT',
        url: '/audit/witnesses',
        headers,
        payload: {
          witnesses: witnesses.map((w, i) => ({
            name: `witness.example/w${i + 1}`,
            url: w.base,
            verifierKey: keys[i]?.verifierKey,
          })),
          quorum: 2,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
    });
    after(async () => {
      for (const witness of witnesses) await stopProcess(witness.child);
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('serves the checkpoint with a quorum of cosignatures once the witnesses cosigned it, and again as the log grows', async () => {
      await appendEvents(t.storage, 'acme', 6, t.clock);
      const bare = await checkpoint();
      assert.equal(parseSignedNote(bare).signatures.length, 1, 'no cosignature before a push');
      const noQuorum = verifyCheckpoint(bare, {
        logKey,
        witnesses: keys.map((k) => k.verifierKey),
        quorum: 2,
      });
      assert.equal(noQuorum.valid, false);

      for (const round of [1, 2]) {
        if (round === 2) await appendEvents(t.storage, 'acme', 9, t.clock);
        assert.equal(await push(), 1);
        const served = await checkpoint();
        assert.equal(parseSignedNote(served).signatures.length, 3, served);
        const outcome = verifyCheckpoint(served, {
          logKey,
          witnesses: keys.map((k) => k.verifierKey),
          quorum: 2,
        });
        assert.equal(outcome.valid, true, outcome.valid ? '' : `${outcome.reason}: ${outcome.detail}`);
      }
    });
  });
}

for (const engine of ENGINES) {
  describe(`a newly signed checkpoint is pushed to the witnesses at once (${engine})`, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'authority-witness-prompt-'));
    let witness: Witness;
    let key: { keyFile: string; verifierKey: string };
    let t: TestApp;
    let headers: Headers;
    let logKey: string;
    let stopListening: () => void;

    const checkpoint = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/audit/acme/checkpoint', headers });
      assert.equal(res.statusCode, 200, res.body);
      return res.body;
    };
    const unreachable = async () =>
      (await witnessRepository.get(t.storage.db, 'acme'))?.witnesses.find(
        (w) => w.name === 'witness.example/down',
      );

    before(async () => {
      t = await createTestApp(engine, { ALLOW_PRIVATE_EGRESS: '1', WEBHOOK_RETRY_SCHEDULE_MS: '60000' });
      headers = await t.ownerHeaders('acme');
      logKey = (
        await t.app.inject({ method: 'GET', url: '/.well-known/authority/acme/log-key' })
      ).body.trimEnd();
      key = witnessKey(dir, 'witness.example/prompt');
      witness = await startWitness(['--key-file', key.keyFile, '--log', `${logKey.split('+')[0]}=${logKey}`]);
      const res = await t.app.inject({
        method: 'PUT',
        url: '/audit/witnesses',
        headers,
        payload: {
          witnesses: [
            { name: 'witness.example/prompt', url: witness.base, verifierKey: key.verifierKey },
            {
              name: 'witness.example/down',
              url: `http://127.0.0.1:${await freePort()}`,
              verifierKey: witnessKey(dir, 'witness.example/down').verifierKey,
            },
          ],
          quorum: 1,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      // Wired as the server wires it, but the pusher is never started: no poll round runs, so only
      // the push that follows a signed checkpoint can bring a cosignature.
      stopListening = t.services.transparency.onCheckpointSigned((tenantId) =>
        t.services.witnessPusher.checkpointSigned(tenantId),
      );
    });
    after(async () => {
      stopListening();
      await t.services.witnessPusher.stop();
      await stopProcess(witness.child);
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('the route answers with the note it signed, the cosignature follows without a poll; an unreachable witness fails on its own and waits out its backoff', async () => {
      let previous = 0;
      for (const count of [5, 7]) {
        await appendEvents(t.storage, 'acme', count, t.clock, previous);
        // Signs the note of the new head on demand; the unreachable witness does not fail it.
        const signed = parseCheckpoint(parseSignedNote(await checkpoint()).text);
        assert.ok(signed.size >= previous + count, `size ${signed.size} after ${previous} + ${count}`);
        previous = signed.size;
        // What the route serves, read from the service (asking the route this often would meet the
        // key's rate limit).
        const served = await until(async () => {
          const body = await t.services.transparency.checkpoint('acme');
          const down = await unreachable();
          return parseSignedNote(body).signatures.length === 2 && (down?.attempts ?? 0) > 0
            ? body
            : undefined;
        });
        const outcome = verifyCheckpoint(served, { logKey, witnesses: [key.verifierKey], quorum: 1 });
        assert.equal(outcome.valid, true, outcome.valid ? '' : `${outcome.reason}: ${outcome.detail}`);
        assert.equal(outcome.valid && outcome.checkpoint.size, signed.size);
      }
      // Waits for every push still running; the unreachable witness was tried once, for the first
      // checkpoint, then left alone for the second: its backoff has not passed on the test's clock.
      await t.services.witnessPusher.stop();
      const down = await unreachable();
      assert.equal(down?.attempts, 1);
      assert.match(down?.last_error ?? '', /\S/);
      assert.equal(down?.cosigned_size, 0);
    });
  });
}
