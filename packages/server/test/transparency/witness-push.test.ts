// The witness push of contract §15 against the real `authority witness serve` (child processes on
// 127.0.0.1): cosignatures are kept only when they verify, a witness refuses an inconsistent or
// smaller tree, a 409 is followed, failures back off, and the egress guard refuses private witnesses.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hashToHex, verifyCheckpoint } from '@authority-runtime/sdk';
import { createEgressClient } from '../../src/egress/egress-client.js';
import { type CheckpointSource, createWitnessPusher } from '../../src/transparency/witness-push.js';
import { witnessRepository } from '../../src/transparency/witness-repository.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { stopProcess } from '../helpers/serve-process.js';
import { ENGINES } from '../helpers/storage.js';
import { Log, startWitness, type Witness, witnessKey } from '../helpers/witness-fixtures.js';

const ORIGIN = 'audit.example.com/audit/acme';
const [FIRST_STEP, SECOND_STEP] = [10_000, 60_000];
const SCHEDULE = [FIRST_STEP, SECOND_STEP];

for (const engine of ENGINES) {
  describe(`witness push (${engine})`, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'authority-witness-push-'));
    const log = new Log(ORIGIN);
    const forked = new Log(ORIGIN, 'forked');
    const running: Witness[] = [];
    const witness = (i: number) => running[i] as Witness;
    const key = (i: number) => keys[i]?.verifierKey as string;
    const keys: { keyFile: string; verifierKey: string }[] = [];
    let t: TestApp;
    let headers: Record<string, string>;
    // What the log serves now: its size, and whether it serves the forked history (same key).
    const state = { size: 5, fork: false };
    const source: CheckpointSource = {
      async latest() {
        const tree = state.fork ? forked : log;
        return { note: tree.note(state.size, log.signer), size: state.size, rootHash: tree.root(state.size) };
      },
      async consistencyProof(_tenant, from, to) {
        return (state.fork ? forked : log).proof(from, to);
      },
    };
    const pusher = (allowPrivate = true) =>
      createWitnessPusher({
        storage: t.storage,
        clock: t.clock,
        egress: createEgressClient({ allowPrivate, allowCidrs: [] }),
        source,
        retryScheduleMs: SCHEDULE,
        timeoutMs: 5_000,
        random: () => 0.999,
        onError: (error) => assert.fail(error as Error),
      });
    const witnessesOf = async () => (await witnessRepository.get(t.storage.db, 'acme'))?.witnesses ?? [];
    const configure = async (count: number, quorum: number) => {
      const response = await t.app.inject({
        method: 'PUT',
        url: '/audit/witnesses',
        headers,
        payload: {
          witnesses: running.slice(0, count).map((w, i) => ({
            name: `witness.example/w${i + 1}`,
            url: w.base,
            verifierKey: keys[i]?.verifierKey,
          })),
          quorum,
        },
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };

    before(async () => {
      t = await createTestApp(engine, { ALLOW_PRIVATE_EGRESS: '1' });
      headers = await t.ownerHeaders('acme');
      for (const name of ['witness.example/w1', 'witness.example/w2', 'witness.example/w3']) {
        keys.push(witnessKey(dir, name));
      }
      running.push(
        ...(await Promise.all(
          keys.map((key) =>
            startWitness(['--key-file', key.keyFile, '--log', `${ORIGIN}=${log.signer.verifierKey}`]),
          ),
        )),
      );
    });
    after(async () => {
      for (const witness of running) await stopProcess(witness.child);
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('pushes the checkpoint to every witness and keeps cosignatures that verify under their keys', async () => {
      const config = await configure(2, 2);
      assert.deepEqual(
        config.witnesses.map((w: { cosignedSize: number }) => w.cosignedSize),
        [0, 0],
      );
      assert.equal(await pusher().runOnce(), 1);
      assert.deepEqual(
        (await witnessesOf()).map((w) => [w.cosigned_size, w.last_error]),
        [
          [5, null],
          [5, null],
        ],
      );
      state.size = 12;
      await pusher().runOnce();
      const lines = await witnessRepository.cosignatureLines(
        t.storage.db,
        'acme',
        12,
        hashToHex(log.root(12)),
      );
      assert.equal(lines.length, 2);
      const note = `${log.note(12)}${lines.join('')}`;
      const outcome = verifyCheckpoint(note, {
        logKey: log.signer.verifierKey,
        witnesses: keys.slice(0, 2).map((k) => k.verifierKey),
        quorum: 2,
      });
      assert.equal(outcome.valid, true, outcome.valid ? '' : outcome.detail);
    });

    it('a witness refuses a forked tree signed with the log key; the failure backs off and nothing is kept', async () => {
      state.size = 15;
      state.fork = true;
      await pusher().runOnce();
      const refused = await witnessesOf();
      // What an operator reads: GET /audit/witnesses gives each witness's last push error.
      const read = await t.app.inject({ method: 'GET', url: '/audit/witnesses', headers });
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(
        read
          .json()
          .witnesses.map((w: { cosignedSize: number; lastError: string | null }) => [
            w.cosignedSize,
            w.lastError?.startsWith('HTTP 422: not consistent with size 12'),
          ]),
        refused.map(() => [12, true]),
      );
      for (const w of refused) {
        assert.equal(w.cosigned_size, 12, 'the cosigned size stays');
        assert.match(w.last_error ?? '', /^HTTP 422: not consistent with size 12/);
        assert.equal(w.attempts, 1);
        const wait = w.next_attempt_at - t.clock();
        assert.ok(wait >= FIRST_STEP / 2 && wait <= FIRST_STEP, `backs off ${wait} ms`);
      }
      assert.deepEqual(
        await witnessRepository.cosignatureLines(t.storage.db, 'acme', 15, hashToHex(forked.root(15))),
        [],
      );
      await witness(0).stderrMatching(/refused a checkpoint signed by a trusted log key/);

      // Not retried before the backoff ends; retried after it, once the log is honest again.
      state.fork = false;
      assert.equal(await pusher().runOnce(), 0);
      t.clock.advance(FIRST_STEP);
      await pusher().runOnce();
      assert.deepEqual(
        (await witnessesOf()).map((w) => [w.cosigned_size, w.attempts, w.last_error]),
        [
          [15, 0, null],
          [15, 0, null],
        ],
      );
    });

    it('a witness never cosigns a smaller tree: the shrink is reported, not pushed', async () => {
      state.size = 9;
      await pusher().runOnce();
      for (const w of await witnessesOf()) {
        assert.equal(w.cosigned_size, 15);
        assert.equal(w.last_error, "the witness has cosigned size 15, larger than this log's 9");
      }
      t.clock.advance(SECOND_STEP);
      state.size = 15;
    });

    it("follows a witness's 409 to the size it last cosigned", async () => {
      // w3 cosigned size 15 before it was configured here: its first push with old 0 answers 409 15.
      const direct = await fetch(`${witness(2).base}/add-checkpoint`, {
        method: 'POST',
        body: log.request(0, 15),
      });
      assert.equal(direct.status, 200);
      state.size = 20;
      await configure(3, 2);
      await pusher().runOnce();
      assert.deepEqual(
        (await witnessesOf()).map((w) => [w.name, w.cosigned_size, w.last_error]),
        [
          ['witness.example/w1', 20, null],
          ['witness.example/w2', 20, null],
          ['witness.example/w3', 20, null],
        ],
      );
    });

    it('refuses a private witness address unless the operator allows private egress', async () => {
      const guarded = await createTestApp(engine);
      try {
        const response = await guarded.app.inject({
          method: 'PUT',
          url: '/audit/witnesses',
          headers: await guarded.ownerHeaders('acme'),
          payload: {
            witnesses: [{ name: 'witness.example/w1', url: witness(0).base, verifierKey: key(0) }],
            quorum: 1,
          },
        });
        assert.equal(response.statusCode, 400);
        assert.equal(response.json().error.details.issues[0].path, '/witnesses/0/url');
      } finally {
        await guarded.close();
      }
      // A witness saved while allowed is still refused at connect time by a guarded pusher.
      state.size = 21;
      await pusher(false).runOnce();
      for (const w of await witnessesOf()) {
        assert.equal(w.cosigned_size, 20);
        assert.match(w.last_error ?? '', /^egress refused: refusing to connect to 127\.0\.0\.1/);
      }
    });

    it('posts to <url>/add-checkpoint with the query string of the configured URL after the path', async () => {
      const name = 'witness.example/query';
      const own = witnessKey(dir, name);
      const queried = await startWitness([
        '--key-file',
        own.keyFile,
        '--log',
        `${ORIGIN}=${log.signer.verifierKey}`,
      ]);
      try {
        const response = await t.app.inject({
          method: 'PUT',
          url: '/audit/witnesses',
          headers,
          payload: {
            witnesses: [
              {
                name,
                url: `${queried.base.replace(/\/+$/, '')}/?tenant=acme#ignored`,
                verifierKey: own.verifierKey,
              },
            ],
            quorum: 1,
          },
        });
        assert.equal(response.statusCode, 200, response.body);
        await pusher().runOnce();
        assert.deepEqual(
          (await witnessesOf()).map((w) => [w.name, w.cosigned_size, w.last_error]),
          [[name, state.size, null]],
        );
      } finally {
        await stopProcess(queried.child);
      }
    });

    it('refuses bad witness settings with 400 naming the field', async () => {
      const put = (payload: Record<string, unknown>) =>
        t.app.inject({ method: 'PUT', url: '/audit/witnesses', headers, payload });
      const w1 = { name: 'witness.example/w1', url: witness(0).base, verifierKey: key(0) };
      const cases: [Record<string, unknown>, string][] = [
        [{ witnesses: [w1], quorum: 2 }, '/quorum'],
        [{ witnesses: [{ ...w1, name: 'witness.example/other' }], quorum: 1 }, '/witnesses/0/name'],
        [{ witnesses: [w1, w1], quorum: 1 }, '/witnesses/1/name'],
        [
          { witnesses: [{ ...w1, verifierKey: log.signer.verifierKey }], quorum: 1 },
          '/witnesses/0/verifierKey',
        ],
        [{ witnesses: [{ ...w1, verifierKey: 'garbage' }], quorum: 1 }, '/witnesses/0/verifierKey'],
        [{ witnesses: [{ ...w1, url: 'ftp://witness.example/' }], quorum: 1 }, '/witnesses/0/url'],
      ];
      for (const [payload, field] of cases) {
        const response = await put(payload);
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(response.json().error.details.issues[0].path, field, response.body);
      }
    });
  });
}
