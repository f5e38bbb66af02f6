import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  checkAddCheckpoint,
  cosigner,
  ed25519NoteSigner,
  ed25519NoteVerifier,
  emptyTreeHash,
  formatAddCheckpointRequest,
  formatCheckpoint,
  formatSignatureLine,
  generateSignerKey,
  hashToBase64,
  MAX_CONSISTENCY_PROOF_LINES,
  parseAddCheckpointRequest,
  parseAddCheckpointResponse,
  signNote,
  TransparencyFormatError,
  type WitnessRecord,
} from '../../src/index.js';
import { entryHashes, ReferenceTree } from './rfc9162-reference.js';

const acme = ed25519NoteSigner(generateSignerKey('audit.example.com/audit/acme'));
const globex = ed25519NoteSigner(generateSignerKey('audit.example.com/audit/globex'));
const tree = new ReferenceTree(entryHashes(100));
const forged = new ReferenceTree([...entryHashes(60), ...entryHashes(40, 'forged')]);

const checkpoint = (size: number, root = tree.mth(0, size), signer = acme, origin = acme.name) =>
  signNote(formatCheckpoint({ origin, size, rootHash: root }), [signer]);
const request = (oldSize: number, note: string, proof: Uint8Array[] = []) =>
  formatAddCheckpointRequest({ oldSize, proof, checkpoint: note });

function witness(latest?: WitnessRecord) {
  const logs = new Map([[acme.name, [ed25519NoteVerifier(acme.verifierKey)]]]);
  return { logs, latest: (origin: string) => (origin === acme.name ? latest : undefined) };
}

const at = (size: number): WitnessRecord => ({ size, rootHash: tree.mth(0, size) });
const status = (body: string | Uint8Array, latest?: WitnessRecord) =>
  checkAddCheckpoint(body, witness(latest)).status;

describe('add-checkpoint request body', () => {
  it('is the old size line, one base64 hash per proof line, an empty line, then the note', () => {
    const note = checkpoint(8);
    const proof = tree.proof(5, 8);
    const text = request(5, note, proof);
    assert.equal(text, `old 5\n${proof.map((h) => `${hashToBase64(h)}\n`).join('')}\n${note}`);
    const parsed = parseAddCheckpointRequest(text);
    assert.equal(parsed.oldSize, 5);
    assert.deepEqual(parsed.proof.map(hashToBase64), proof.map(hashToBase64));
    assert.equal(parsed.checkpoint, note);
    assert.equal(request(0, note), `old 0\n\n${note}`);
  });

  it('parses the C2SP example request', () => {
    const example =
      'old 20852014\nPlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\njrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=\n5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=\n/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=\n\nexample.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n';
    const parsed = parseAddCheckpointRequest(example);
    assert.equal(parsed.oldSize, 20852014);
    assert.equal(parsed.proof.length, 4);
    assert.ok(parsed.checkpoint.startsWith('example.com/behind-the-sofa\n20852163\n'));
  });

  it('round-trips any size and proof', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: MAX_CONSISTENCY_PROOF_LINES }),
        (oldSize, proof) => {
          const parsed = parseAddCheckpointRequest(
            formatAddCheckpointRequest({ oldSize, proof, checkpoint: 'x\n' }),
          );
          assert.equal(parsed.oldSize, oldSize);
          assert.deepEqual(parsed.proof.map(hashToBase64), proof.map(hashToBase64));
        },
      ),
    );
  });

  const bad: [string, string][] = [
    ['no empty line', 'old 0\n'],
    ['no old line', `\n\n${checkpoint(1)}`],
    ['a leading zero', `old 01\n\n${checkpoint(1)}`],
    ['an old line with two spaces', `old  1\n\n${checkpoint(1)}`],
    ['a proof line of 31 bytes', `old 1\n${Buffer.alloc(31).toString('base64')}\n\n${checkpoint(1)}`],
    ['a proof line in hex', `old 1\n${'00'.repeat(32)}\n\n${checkpoint(1)}`],
    ['64 proof lines', `old 1\n${`${hashToBase64(emptyTreeHash())}\n`.repeat(64)}\n${checkpoint(1)}`],
    ['no checkpoint', 'old 0\n\n'],
  ];
  for (const [what, body] of bad) {
    it(`refuses ${what}`, () => {
      assert.throws(
        () => parseAddCheckpointRequest(body),
        (e) => e instanceof TransparencyFormatError && e.code === 'WITNESS_REQUEST_MALFORMED',
      );
      assert.equal(status(body), 400);
    });
  }
  it('refuses invalid UTF-8', () => {
    const bytes = new Uint8Array([...new TextEncoder().encode(`old 0\n\n${checkpoint(1)}`), 0xff]);
    assert.throws(() => parseAddCheckpointRequest(bytes), TransparencyFormatError);
    assert.equal(status(bytes), 400);
  });
});

describe('the witness decision', () => {
  it('cosigns a first checkpoint from old 0, a grown tree with a valid proof, and the same tree again', () => {
    const first = checkAddCheckpoint(request(0, checkpoint(60)), witness());
    assert.equal(first.status, 200);
    assert.ok(
      first.status === 200 && first.checkpoint.size === 60 && first.logSignatures[0]?.name === acme.name,
    );
    assert.equal(status(request(60, checkpoint(100), tree.proof(60, 100)), at(60)), 200);
    assert.equal(status(request(100, checkpoint(100)), at(100)), 200);
    assert.equal(status(request(0, checkpoint(0, emptyTreeHash()))), 200);
    assert.equal(
      status(request(0, checkpoint(0, emptyTreeHash())), { size: 0, rootHash: emptyTreeHash() }),
      200,
    );
  });

  it('answers 409 with its own latest size when old is wrong', () => {
    const wrong = checkAddCheckpoint(request(50, checkpoint(100), tree.proof(50, 100)), witness(at(60)));
    assert.deepEqual(wrong, {
      status: 409,
      latestSize: 60,
      message: 'old size 50 is not 60, the size last cosigned',
      signed: true,
    });
    assert.equal(checkAddCheckpoint(request(7, checkpoint(100), tree.proof(7, 100)), witness()).status, 409);
  });

  it('never cosigns a smaller tree', () => {
    assert.equal(status(request(60, checkpoint(50)), at(60)), 400);
    assert.equal(status(request(0, checkpoint(50)), at(60)), 409);
    assert.equal(status(request(50, checkpoint(50)), at(60)), 409);
  });

  it('answers 422 to an inconsistent tree, a bad proof, and a forged root', () => {
    const rewritten = checkpoint(100, forged.mth(0, 100));
    assert.equal(status(request(70, rewritten, forged.proof(70, 100)), at(70)), 422);
    assert.equal(status(request(70, rewritten, tree.proof(70, 100)), at(70)), 422);
    assert.equal(status(request(60, checkpoint(100), tree.proof(50, 100)), at(60)), 422);
    assert.equal(status(request(60, checkpoint(100), tree.proof(60, 100).slice(1)), at(60)), 422);
    assert.equal(
      status(request(60, checkpoint(60, forged.mth(0, 70))), at(60)),
      422,
      'same size, other root',
    );
    assert.equal(status(request(0, checkpoint(10), tree.proof(5, 10))), 422, 'a proof from old 0');
    assert.equal(status(request(0, checkpoint(0, tree.mth(0, 3)))), 422, 'size 0 with a non-empty root');
    const outcome = checkAddCheckpoint(request(70, rewritten, forged.proof(70, 100)), witness(at(70)));
    assert.ok(outcome.status === 422 && outcome.signed && /ROOT_MISMATCH/.test(outcome.message));
  });

  it('answers 404 to an unknown log and 403 to a wrong key or a bad signature, before anything else', () => {
    const other = checkpoint(10, tree.mth(0, 10), globex, globex.name);
    assert.equal(status(request(0, other)), 404);
    assert.equal(status(request(99, other)), 404);
    assert.equal(status(request(0, checkpoint(10, tree.mth(0, 10), globex))), 403, 'another tenant’s key');
    const impostor = ed25519NoteSigner(generateSignerKey(acme.name));
    assert.equal(status(request(0, checkpoint(10, tree.mth(0, 10), impostor))), 403, 'same name, other key');
    const edited = checkpoint(10).replace('\n10\n', '\n11\n');
    assert.equal(status(request(99, edited), at(60)), 403, 'an edited body, before old is checked');
    assert.equal(status(request(0, 'not a note')), 400);
    assert.equal(status(request(0, signNote('only one line\n', [acme]))), 400);
  });

  it('never throws on arbitrary bodies', () => {
    const body = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.uint8Array(),
      fc.string().map((s) => `old ${s}\n\n${checkpoint(10)}`),
      fc.string({ unit: 'binary' }).map((s) => `old 0\n\n${s}`),
    );
    fc.assert(
      fc.property(body, (b) => {
        assert.ok([200, 400, 403, 404, 409, 422].includes(checkAddCheckpoint(b, witness(at(5))).status));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('add-checkpoint response', () => {
  const w1 = cosigner(generateSignerKey('witness.example/w1'), Date.now);

  it('reads cosignature lines, a 409 size and refusals', () => {
    const line = formatSignatureLine({ name: w1.name, keyId: w1.keyId, signature: w1.sign('x\n') });
    const ok = parseAddCheckpointResponse(200, line + line);
    assert.ok(ok.status === 200 && 'signatures' in ok && ok.signatures.length === 2);
    assert.deepEqual(parseAddCheckpointResponse(409, '60\n', 'text/x.tlog.size'), {
      status: 409,
      latestSize: 60,
    });
    assert.deepEqual(parseAddCheckpointResponse(409, '0\n', 'text/x.tlog.size; charset=utf-8'), {
      status: 409,
      latestSize: 0,
    });
    assert.deepEqual(parseAddCheckpointResponse(422, 'inconsistent\n'), {
      status: 422,
      message: 'inconsistent',
    });
  });

  for (const [what, s, body, type] of [
    ['an empty 200', 200, '', null],
    [
      'a 200 without final newline',
      200,
      '— w x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=',
    ],
    ['a 200 that is not signature lines', 200, 'hello\n', null],
    ['a 409 of another content type', 409, '60\n', 'text/plain'],
    ['a 409 without newline', 409, '60', 'text/x.tlog.size'],
    ['a 409 that is not a size', 409, 'sixty\n', 'text/x.tlog.size'],
  ] as [string, number, string, string | null][]) {
    it(`refuses ${what}`, () => {
      assert.throws(
        () => parseAddCheckpointResponse(s, body, type),
        (e) => e instanceof TransparencyFormatError && e.code === 'WITNESS_RESPONSE_MALFORMED',
      );
    });
  }
});
