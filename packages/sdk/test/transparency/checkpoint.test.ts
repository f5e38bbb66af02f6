import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  CHECKPOINT_VERIFICATION_REASONS,
  cosignatureMessage,
  cosignatureTime,
  cosignatureVerifier,
  cosigner,
  ed25519NoteSigner,
  emptyTreeHash,
  formatCheckpoint,
  formatSignatureLine,
  generateSignerKey,
  hashToBase64,
  type NoteSignature,
  parseCheckpoint,
  parseSignedNote,
  parseVerifierKey,
  signNote,
  TransparencyFormatError,
  verifyCheckpoint,
  verifySignedNote,
} from '../../src/index.js';

const ROOT = new Uint8Array(createHash('sha256').update('root').digest());
const NOW = Date.parse('2026-05-01T12:00:00.000Z');
const acme = ed25519NoteSigner(generateSignerKey('audit.example.com/audit/acme'));
const globex = ed25519NoteSigner(generateSignerKey('audit.example.com/audit/globex'));
const w1 = cosigner(generateSignerKey('witness.example/w1'), () => NOW);
const w2 = cosigner(generateSignerKey('witness.example/w2'), () => NOW + 5000);

const body = (size: number, origin = acme.name, root: Uint8Array = ROOT) =>
  formatCheckpoint({ origin, size, rootHash: root });

function reason(outcome: ReturnType<typeof verifyCheckpoint>): string {
  return outcome.valid ? 'valid' : outcome.reason;
}

function firstSignature(note: string): NoteSignature {
  const [signature] = parseSignedNote(note).signatures;
  assert.ok(signature);
  return signature;
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof TransparencyFormatError, `untyped ${String(error)}`);
    return error.code;
  }
  return 'accepted';
}

describe('checkpoint body', () => {
  it('writes three lines, each ending in a newline, and reads them back', () => {
    const text = body(20852163);
    assert.equal(text, `audit.example.com/audit/acme\n20852163\n${hashToBase64(ROOT)}\n`);
    const parsed = parseCheckpoint(text);
    assert.deepEqual(
      { ...parsed, rootHash: hashToBase64(parsed.rootHash) },
      {
        origin: 'audit.example.com/audit/acme',
        size: 20852163,
        rootHash: hashToBase64(ROOT),
        extensions: [],
      },
    );
    assert.equal(
      body(0, acme.name, emptyTreeHash()).split('\n')[2],
      '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
    );
  });

  it('reads the published examples of C2SP and Go', () => {
    const c2sp = parseCheckpoint(
      'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
    );
    assert.equal(c2sp.size, 20852163);
    const go = parseCheckpoint(
      'go.sum database tree\n123456789012\nTszzRgjTG6xce+z2AG31kAXYKBgQVtCSCE40HmuwBb0=\n',
    );
    const helloWorld = createHash('sha256')
      .update(Buffer.from([0]))
      .update('hello world')
      .digest('base64');
    assert.deepEqual(
      [go.origin, go.size, hashToBase64(go.rootHash)],
      ['go.sum database tree', 123456789012, helloWorld],
    );
    assert.deepEqual(parseCheckpoint(`${body(1)}JOE\n`).extensions, ['JOE']);
  });

  const bad: [string, string][] = [
    ['a size with a leading zero', body(12).replace('\n12\n', '\n012\n')],
    [
      'a hexadecimal size (Go’s vector)',
      'go.sum database tree\n0xabcdef\nTszzRgjTG6xce+z2AG31kAXYKBgQVtCSCE40HmuwBb0=\n',
    ],
    [
      'a root hash too long (Go’s vector)',
      'go.sum database tree\n123456789012\nTszzRgjTG6xce+z2AG31kAXYKBgQVtCSCE40HmuwBTOOBIG=\n',
    ],
    ['a negative size', body(1).replace('\n1\n', '\n-1\n')],
    ['a signed size', body(1).replace('\n1\n', '\n+1\n')],
    ['a size beyond 2^53 - 1', body(1).replace('\n1\n', '\n9007199254740992\n')],
    ['an empty origin', body(1).replace(acme.name, '')],
    ['no root hash', `${acme.name}\n1\n`],
    ['a root hash of 31 bytes', `${acme.name}\n1\n${Buffer.alloc(31).toString('base64')}\n`],
    ['a root hash in hex', `${acme.name}\n1\n${Buffer.from(ROOT).toString('hex')}\n`],
    ['an empty extension line', `${body(1)}\nlate\n`],
    ['no final newline', body(1).slice(0, -1)],
  ];
  for (const [what, text] of bad) {
    it(`refuses ${what}`, () =>
      assert.equal(
        code(() => parseCheckpoint(text)),
        'CHECKPOINT_MALFORMED',
      ));
  }

  it('never throws anything else on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        assert.ok(['accepted', 'CHECKPOINT_MALFORMED'].includes(code(() => parseCheckpoint(text))));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('cosignatures v1', () => {
  it('sign exactly `cosignature/v1\\ntime <t>\\n` and the body, as node:crypto checks independently', () => {
    const text = body(7);
    const signature = w1.sign(text);
    assert.equal(signature.length, 72);
    const time = Number(Buffer.from(signature.subarray(0, 8)).readBigUInt64BE());
    assert.equal(time, NOW / 1000);
    const message = `cosignature/v1\ntime ${time}\n${text}`;
    assert.equal(cosignatureMessage(text, time), message);
    const { publicKey } = parseVerifierKey(w1.verifierKey);
    const key = createPublicKey({
      key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]),
      format: 'der',
      type: 'spki',
    });
    assert.ok(verify(null, Buffer.from(message), key, signature.subarray(8)));
    assert.equal(parseVerifierKey(w1.verifierKey).keyId, w1.keyId);
    assert.equal(
      w1.keyId,
      createHash('sha256')
        .update(w1.name)
        .update(Buffer.from([0x0a, 0x04]))
        .update(publicKey)
        .digest()
        .readUInt32BE(0),
    );
  });

  it('read the times of published cosignatures', () => {
    // C2SP tlog-cosignature's example line and transparency-dev/formats' test vector.
    const c2sp = parseSignedNote(
      'x\n\n— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n',
    );
    assert.equal(cosignatureTime(c2sp.signatures[0] as NoteSignature), 1679315147);
    const formats = Buffer.from(
      'ZGhGuQAAAABm/qTPeyKXD+R2rzyQsxPiP8mXum7qq/iF0u4vanlqJyocWODBt97w9uL+8qT7S5gxEHWWOworDcFiEBYJXORmnFBOBA==',
      'base64',
    );
    assert.equal(cosignatureTime(new Uint8Array(formats.subarray(4))), 1727964367);
    assert.equal(
      code(() => cosignatureTime(new Uint8Array(71))),
      'COSIGNATURE_MALFORMED',
    );
  });

  it('refuse a time of zero or beyond 2^53 - 1', () => {
    assert.throws(() => cosigner(generateSignerKey('w/0'), () => 999).sign(body(1)), RangeError);
    const signature = w1.sign(body(1));
    new DataView(signature.buffer).setBigUint64(0, 2n ** 63n - 1n);
    assert.equal(cosignatureVerifier(w1.verifierKey).verify(body(1), signature), false);
    assert.equal(
      code(() => cosignatureTime(signature)),
      'COSIGNATURE_MALFORMED',
    );
  });
});

describe('verifyCheckpoint', () => {
  const logKey = acme.verifierKey;
  const signed = (text: string, ...signers: { sign(t: string): Uint8Array; name: string; keyId: number }[]) =>
    signNote(text, signers);

  it('accepts the log’s own checkpoint and reports the witnesses that cosigned', () => {
    const note = signed(body(42), acme, w1, w2);
    const outcome = verifyCheckpoint(note, {
      logKey,
      witnesses: [w1.verifierKey, w2.verifierKey],
      quorum: 2,
    });
    assert.ok(outcome.valid);
    assert.equal(outcome.checkpoint.size, 42);
    assert.deepEqual(
      outcome.cosignatures.map((c) => [c.name, c.time]),
      [
        ['witness.example/w1', NOW / 1000],
        ['witness.example/w2', NOW / 1000 + 5],
      ],
    );
    assert.ok(
      verifyCheckpoint(note, { logKey: `${logKey}\n` }).valid,
      'the served key text ends in a newline',
    );
  });

  it('refuses a checkpoint signed by another tenant’s key, or by a key that only shares the name', () => {
    assert.equal(
      reason(verifyCheckpoint(signed(body(42, globex.name), globex), { logKey })),
      'NO_TRUSTED_SIGNATURE',
    );
    assert.equal(reason(verifyCheckpoint(signed(body(42), globex), { logKey })), 'NO_TRUSTED_SIGNATURE');
    const impostor = ed25519NoteSigner(generateSignerKey(acme.name));
    assert.equal(reason(verifyCheckpoint(signed(body(42), impostor), { logKey })), 'NO_TRUSTED_SIGNATURE');
    const forgedId = { ...impostor, keyId: acme.keyId };
    assert.equal(reason(verifyCheckpoint(signed(body(42), forgedId), { logKey })), 'SIGNATURE_INVALID');
  });

  it('refuses a wrong key ID, an edited body and another log’s origin under this key', () => {
    const note = signed(body(42), acme);
    const wrongId = { ...firstSignature(note), keyId: (acme.keyId + 1) >>> 0 };
    assert.equal(
      reason(verifyCheckpoint(`${body(42)}\n${formatSignatureLine(wrongId)}`, { logKey })),
      'NO_TRUSTED_SIGNATURE',
    );
    assert.equal(reason(verifyCheckpoint(note.replace('\n42\n', '\n43\n'), { logKey })), 'SIGNATURE_INVALID');
    assert.equal(
      reason(verifyCheckpoint(signed(body(42, globex.name), acme), { logKey })),
      'ORIGIN_MISMATCH',
    );
    assert.equal(
      reason(verifyCheckpoint(signed('not a checkpoint\n', acme), { logKey })),
      'CHECKPOINT_MALFORMED',
    );
    assert.equal(reason(verifyCheckpoint('garbage', { logKey })), 'NOTE_MALFORMED');
  });

  it('refuses a cosignature over another body, and counts the quorum on verified witnesses only', () => {
    const moved = `${signed(body(42), acme)}${formatSignatureLine(firstSignature(signed(body(41), w1)))}`;
    assert.equal(
      reason(verifyCheckpoint(moved, { logKey, witnesses: [w1.verifierKey] })),
      'SIGNATURE_INVALID',
    );
    assert.equal(reason(verifyCheckpoint(moved, { logKey })), 'valid', 'an unknown witness is ignored');
    const one = signed(body(42), acme, w1);
    assert.equal(
      reason(verifyCheckpoint(one, { logKey, witnesses: [w1.verifierKey, w2.verifierKey], quorum: 2 })),
      'QUORUM_NOT_MET',
    );
    const doubled = `${one}${parseSignedNote(one).signatures.slice(1).map(formatSignatureLine).join('')}`;
    assert.equal(
      reason(verifyCheckpoint(doubled, { logKey, witnesses: [w1.verifierKey], quorum: 2 })),
      'QUORUM_NOT_MET',
    );
    assert.equal(
      reason(verifyCheckpoint(signed(body(42), w1), { logKey, witnesses: [w1.verifierKey] })),
      'LOG_SIGNATURE_MISSING',
    );
  });

  it('keeps a log key and a witness key apart even on the same Ed25519 key', () => {
    const key = generateSignerKey('shared.example/k');
    const log = ed25519NoteSigner(key);
    const witness = cosigner(key, () => NOW);
    assert.notEqual(log.keyId, witness.keyId);
    const note = signed(body(1, 'shared.example/k'), log);
    assert.equal(verifySignedNote(note, [cosignatureVerifier(witness.verifierKey)]).valid, false);
    assert.equal(
      code(() => cosignatureVerifier(log.verifierKey)),
      'KEY_MALFORMED',
    );
    assert.equal(
      code(() => verifyCheckpoint(note, { logKey: witness.verifierKey })),
      'KEY_MALFORMED',
    );
  });

  it('never throws on arbitrary notes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array()), (note) => {
        const outcome = verifyCheckpoint(note, { logKey, witnesses: [w1.verifierKey] });
        assert.ok(!outcome.valid && CHECKPOINT_VERIFICATION_REASONS.includes(outcome.reason));
      }),
      { numRuns: 1000 },
    );
  });
});
