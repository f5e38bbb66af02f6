import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { before, describe, it } from 'node:test';
import type { JWK } from 'jose';
import {
  type ChainExportReason,
  type ChainExportVerification,
  type Checkpoint,
  GENESIS_HASH,
  type KeySource,
  verifyChainExport,
} from '../src/index.js';
import {
  type Entry,
  flipChar,
  flipHex,
  makeCheckpoint,
  makeEntry,
  makeKey,
  rehash,
  TENANT,
  type TestKey,
  ZEROS,
} from './audit-fixtures.js';

const LENGTH = 3_500;
/** Every 1,000 entries, plus two time-based checkpoints in between. */
const CHECKPOINT_INDICES = [999, 1_234, 1_999, 2_500, 2_999];

let active: TestKey;
let previous: TestKey;
let retired: TestKey;
let forger: TestKey;
let pinned: { keys: JWK[] };
let entries: Entry[];
let checkpoints: Checkpoint[];

function chainOf(length: number, from = 0, start = ZEROS): Entry[] {
  const out: Entry[] = [];
  let previousHash = start;
  for (let index = from; index < from + length; index += 1) {
    const entry = makeEntry(index, previousHash, index % 3 === 0 ? { intentId: `intent-${index}` } : {});
    out.push(entry);
    previousHash = entry.entryHash;
  }
  return out;
}

/** NDJSON lines: each checkpoint right after the entry it names. */
function toLines(chainEntries: Entry[], chainCheckpoints: Checkpoint[]): string[] {
  const byIndex = new Map<number, Checkpoint[]>();
  for (const checkpoint of chainCheckpoints) {
    byIndex.set(checkpoint.index, [...(byIndex.get(checkpoint.index) ?? []), checkpoint]);
  }
  const lines: string[] = [];
  for (const entry of chainEntries) {
    lines.push(JSON.stringify({ entry }));
    for (const checkpoint of byIndex.get(entry.index) ?? []) lines.push(JSON.stringify({ checkpoint }));
  }
  return lines;
}

/** Rewrites history from `index` on and recomputes every later hash, as an attacker without the key would. */
function rewriteFrom(chainEntries: Entry[], index: number): Entry[] {
  const out = chainEntries.slice(0, index);
  let previousHash = out[out.length - 1]?.entryHash ?? ZEROS;
  for (const entry of chainEntries.slice(index)) {
    const changed =
      entry.index === index ? { ...entry, payload: { rewritten: true } } : { ...entry, previousHash };
    const rehashed = rehash({ ...changed, previousHash });
    out.push(rehashed);
    previousHash = rehashed.entryHash;
  }
  return out;
}

function assertValid(result: ChainExportVerification): void {
  assert.equal(
    result.valid,
    true,
    result.valid ? '' : `expected valid, got ${result.reason} at ${result.brokenAt} (${result.detail})`,
  );
}

function assertBroken(result: ChainExportVerification, reason: ChainExportReason, brokenAt: number): void {
  assert.equal(result.valid, false, `expected ${reason} at ${brokenAt}, got valid: true`);
  if (!result.valid) {
    assert.equal(result.reason, reason, `expected ${reason}, got ${result.reason} (${result.detail})`);
    assert.equal(result.brokenAt, brokenAt, `expected brokenAt ${brokenAt} (${result.detail})`);
  }
}

before(async () => {
  active = await makeKey('EdDSA', 'acme-1700000000-ABCDEFGH');
  previous = await makeKey('ES256', 'acme-1690000000-ECKEY234');
  retired = await makeKey('RS256', 'acme-1680000000-RSAKEY22');
  forger = await makeKey('EdDSA', active.kid);
  // Current JWKS (ACTIVE, PREVIOUS) merged with the archive (RETIRED).
  pinned = { keys: [active.publicJwk, previous.publicJwk, retired.publicJwk] };
  entries = chainOf(LENGTH);
  // Older checkpoints were signed by keys that have since been rotated out.
  const signers = [retired, retired, previous, previous, active];
  checkpoints = [];
  for (const [position, index] of CHECKPOINT_INDICES.entries()) {
    const entry = entries[index];
    const signer = signers[position];
    assert.ok(entry !== undefined && signer !== undefined);
    checkpoints.push(await makeCheckpoint(signer, entry));
  }
});

describe('verifyChainExport: sound exports', () => {
  it('verifies a chain of a few thousand entries with checkpoints signed by current and archived keys', async () => {
    const result = await verifyChainExport(toLines(entries, checkpoints), { jwks: pinned, tenantId: TENANT });
    assertValid(result);
    assert.equal(result.length, LENGTH);
    assert.equal(result.latestHash, entries[LENGTH - 1]?.entryHash);
    assert.equal(result.checkpointsVerified, CHECKPOINT_INDICES.length);
    assert.equal(result.checkpointsUnverified, 0);
    assert.equal(result.firstIndex, 0);
    assert.equal(result.anchorHash, GENESIS_HASH);
  });

  it('without jwks compares checkpoints with the chain but counts them as unverified', async () => {
    const result = await verifyChainExport(toLines(entries, checkpoints));
    assertValid(result);
    assert.equal(result.checkpointsVerified, 0);
    assert.equal(result.checkpointsUnverified, CHECKPOINT_INDICES.length);
  });

  it('verifies an export that starts at k > 0 from entry k’s previousHash', async () => {
    const k = 1_500;
    const slice = entries.slice(k);
    const result = await verifyChainExport(
      toLines(
        slice,
        checkpoints.filter((checkpoint) => checkpoint.index >= k),
      ),
      { jwks: pinned },
    );
    assertValid(result);
    assert.equal(result.length, LENGTH - k);
    assert.equal(result.firstIndex, k);
    assert.equal(result.anchorHash, entries[k - 1]?.entryHash);
    assert.equal(result.checkpointsVerified, 3);
  });

  it('reads lines from a stream through readline (async iterable), CRLF and blank lines included', async () => {
    const text = `${toLines(entries.slice(0, 1_200), checkpoints.slice(0, 1)).join('\r\n')}\r\n\r\n`;
    const lines = createInterface({ input: Readable.from([text]), crlfDelay: Number.POSITIVE_INFINITY });
    const result = await verifyChainExport(lines, { jwks: pinned });
    assertValid(result);
    assert.equal(result.length, 1_200);
    assert.equal(result.checkpointsVerified, 1);
  });

  it('streams a long export from a generator and reports progress every 10,000 entries', async () => {
    async function* generate(): AsyncGenerator<string> {
      let previousHash = ZEROS;
      for (let index = 0; index < 25_000; index += 1) {
        const entry = makeEntry(index, previousHash);
        previousHash = entry.entryHash;
        yield JSON.stringify({ entry });
      }
    }
    const progress: number[] = [];
    const result = await verifyChainExport(generate(), { onProgress: (count) => progress.push(count) });
    assertValid(result);
    assert.equal(result.length, 25_000);
    assert.deepEqual(progress, [10_000, 20_000]);
  });

  it('accepts a checkpoint written a little after the entry it names (within the window)', async () => {
    const lines = toLines(entries.slice(0, 1_100), []);
    const checkpoint = checkpoints[0];
    assert.ok(checkpoint !== undefined);
    lines.push(JSON.stringify({ checkpoint }));
    assertValid(await verifyChainExport(lines, { jwks: pinned }));
  });

  it('treats an empty export as valid and empty', async () => {
    const result = await verifyChainExport([]);
    assertValid(result);
    assert.equal(result.length, 0);
    assert.equal(result.latestHash, ZEROS);
    assert.equal(result.firstIndex, null);
  });
});

describe('verifyChainExport: breaks', () => {
  it('reports ENTRY_HASH_MISMATCH at an altered entry, with the sound prefix', async () => {
    const lines = toLines(entries, checkpoints);
    const at = 1_700;
    const position = lines.findIndex((line) => line.startsWith(`{"entry":{"index":${at},`));
    const altered = JSON.parse(lines[position] ?? '') as { entry: Entry };
    altered.entry.actorId = 'someone-else';
    lines[position] = JSON.stringify(altered);
    const result = await verifyChainExport(lines, { jwks: pinned });
    assertBroken(result, 'ENTRY_HASH_MISMATCH', at);
    assert.equal(result.length, at);
    assert.equal(result.latestHash, entries[at - 1]?.entryHash);
    assert.equal(result.checkpointsVerified, 2);
  });

  it('reports ENTRY_HASH_MISMATCH for a flipped entryHash, a malformed entry or another tenant', async () => {
    const cases: Array<(entry: Entry) => Record<string, unknown>> = [
      (entry) => ({ ...entry, entryHash: flipHex(entry.entryHash, 7) }),
      (entry) => rehash({ ...entry, createdAt: '2026-11-22 03:31:22' }),
      (entry) => {
        const { payload: _payload, ...rest } = entry;
        return rehash(rest);
      },
      (entry) => rehash({ ...entry, tenantId: 'globex' }),
    ];
    for (const change of cases) {
      const changed = [...entries.slice(0, 50)] as Array<Record<string, unknown>>;
      changed[20] = change(entries[20] as Entry);
      const lines = changed.map((entry) => JSON.stringify({ entry }));
      assertBroken(await verifyChainExport(lines), 'ENTRY_HASH_MISMATCH', 20);
    }
  });

  it('reports INDEX_GAP at a removed line, and at a repeated one', async () => {
    const lines = toLines(entries, checkpoints);
    const removed = lines.filter((line) => !line.startsWith('{"entry":{"index":2345,'));
    assertBroken(await verifyChainExport(removed, { jwks: pinned }), 'INDEX_GAP', 2_345);
    const repeated = toLines(entries.slice(0, 100), []);
    repeated.splice(51, 0, repeated[50] ?? '');
    assertBroken(await verifyChainExport(repeated), 'INDEX_GAP', 51);
  });

  it('reports PREVIOUS_HASH_MISMATCH for a broken link and for entry 0 not starting from zeros', async () => {
    const relinked = [...entries.slice(0, 30)];
    relinked[12] = rehash({ ...entries[12], previousHash: flipHex(entries[11]?.entryHash ?? '') });
    assertBroken(
      await verifyChainExport(relinked.map((entry) => JSON.stringify({ entry }))),
      'PREVIOUS_HASH_MISMATCH',
      12,
    );
    const badGenesis = chainOf(5, 0, flipHex(ZEROS));
    assertBroken(
      await verifyChainExport(badGenesis.map((entry) => JSON.stringify({ entry }))),
      'PREVIOUS_HASH_MISMATCH',
      0,
    );
  });

  it('reports CHECKPOINT_MISMATCH when history is rewritten before a checkpoint and every later hash recomputed', async () => {
    const rewritten = rewriteFrom(entries, 1_500);
    for (const jwks of [pinned, undefined]) {
      const result = await verifyChainExport(toLines(rewritten, checkpoints), { jwks });
      // Checkpoints at 999 and 1234 still hold; the one at 1999 names a hash the chain no longer has.
      assertBroken(result, 'CHECKPOINT_MISMATCH', 1_999);
      assert.equal(result.checkpointsVerified + result.checkpointsUnverified, 2);
    }
  });

  it('reports CHECKPOINT_MISMATCH for a forged or altered checkpoint signature when jwks is given', async () => {
    const target = checkpoints[2];
    assert.ok(target !== undefined);
    const entry = entries[target.index];
    assert.ok(entry !== undefined);
    const forged = await makeCheckpoint(forger, entry);
    const withForged = checkpoints.map((checkpoint) => (checkpoint === target ? forged : checkpoint));
    assertBroken(
      await verifyChainExport(toLines(entries, withForged), { jwks: pinned }),
      'CHECKPOINT_MISMATCH',
      1_999,
    );
    // Without pinned keys a forged signature cannot be told apart: it is counted as unverified.
    const unpinned = await verifyChainExport(toLines(entries, withForged));
    assertValid(unpinned);
    assert.equal(unpinned.checkpointsUnverified, CHECKPOINT_INDICES.length);

    for (const position of [0, 40, target.signature.length - 1]) {
      const altered = { ...target, signature: flipChar(target.signature, position) };
      const lines = toLines(
        entries,
        checkpoints.map((checkpoint) => (checkpoint === target ? altered : checkpoint)),
      );
      assertBroken(await verifyChainExport(lines, { jwks: pinned }), 'CHECKPOINT_MISMATCH', 1_999);
    }
    const otherKid = { ...target, kid: active.kid };
    const lines = toLines(
      entries,
      checkpoints.map((checkpoint) => (checkpoint === target ? otherKid : checkpoint)),
    );
    assertBroken(await verifyChainExport(lines, { jwks: pinned }), 'CHECKPOINT_MISMATCH', 1_999);
  });

  it('reports CHECKPOINT_MISMATCH for a checkpoint past a truncated tail or before every entry', async () => {
    const truncated = toLines(entries.slice(0, 2_990), checkpoints.slice(0, 4));
    truncated.push(JSON.stringify({ checkpoint: checkpoints[4] }));
    assertBroken(await verifyChainExport(truncated, { jwks: pinned }), 'CHECKPOINT_MISMATCH', 2_999);
    const first = [JSON.stringify({ checkpoint: checkpoints[0] }), ...toLines(entries.slice(0, 10), [])];
    assertBroken(await verifyChainExport(first), 'CHECKPOINT_MISMATCH', 999);
  });

  it('reports EXPORT_MALFORMED at the index expected next for an unreadable line', async () => {
    for (const bad of [
      '{"entry":',
      'null',
      '[]',
      '{"entry":{"index":"5"}}',
      '{"entries":{}}',
      '{"entry":{},"checkpoint":{}}',
    ]) {
      const lines = toLines(entries.slice(0, 10), []);
      lines.splice(5, 0, bad);
      assertBroken(await verifyChainExport(lines), 'EXPORT_MALFORMED', 5);
    }
    assertBroken(await verifyChainExport(['garbage']), 'EXPORT_MALFORMED', 0);
  });

  it('reports KEY_SOURCE_UNAVAILABLE when a pinned key source throws', async () => {
    const failing: KeySource = {
      getKey: async () => {
        throw new Error('vault down');
      },
    };
    assertBroken(
      await verifyChainExport(toLines(entries, checkpoints), { jwks: failing }),
      'KEY_SOURCE_UNAVAILABLE',
      999,
    );
  });

  it('throws a TypeError for bad options or input that is not an iterable of lines', async () => {
    await assert.rejects(verifyChainExport('{"entry":{}}' as never), TypeError);
    await assert.rejects(verifyChainExport(42 as never), TypeError);
    await assert.rejects(verifyChainExport([], { tenantId: '' }), TypeError);
    await assert.rejects(verifyChainExport([], { onProgress: 'yes' as never }), TypeError);
    await assert.rejects(verifyChainExport([], { jwks: { keys: [{ kid: 'x' }] } }), TypeError);
  });
});
