import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  COSIGNATURE_V1_KEY_TYPE,
  ED25519_KEY_TYPE,
  ed25519NoteSigner,
  ed25519NoteVerifier,
  formatSignedNote,
  formatSignerKey,
  formatVerifierKey,
  generateSignerKey,
  isValidKeyName,
  MAX_NOTE_SIGNATURES,
  NOTE_VERIFICATION_REASONS,
  parseSignedNote,
  parseSignerKey,
  parseVerifierKey,
  signNote,
  TransparencyFormatError,
  verifySignedNote,
} from '../../src/index.js';

// Vectors of Go's golang.org/x/mod/sumdb/note (Debian golang-golang-x-mod-dev, note_test.go).
const PETER_SKEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const PETER_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const ENOCH_VKEY = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop';
const TEXT =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIG =
  '— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';
const ENOCH_SIG =
  '— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n';
// The example of C2SP signed-note.
const C2SP_VKEY = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
const C2SP_NOTE =
  'This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';

const peter = ed25519NoteVerifier(PETER_VKEY);
const enoch = ed25519NoteVerifier(ENOCH_VKEY);

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof TransparencyFormatError, `untyped ${String(error)}`);
    return error.code;
  }
  return 'accepted';
}

describe('published signed-note vectors', () => {
  it('signs exactly as Go does with the same key', () => {
    assert.equal(signNote(TEXT, [ed25519NoteSigner(PETER_SKEY)]), `${TEXT}\n${PETER_SIG}`);
    assert.equal(ed25519NoteSigner(PETER_SKEY).verifierKey, PETER_VKEY);
    assert.equal(formatSignerKey('PeterNeumann', parseSignerKey(PETER_SKEY).seed), PETER_SKEY);
  });

  it('verifies Go’s and C2SP’s notes, ignoring unknown keys', () => {
    const both = verifySignedNote(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`, [peter]);
    assert.ok(both.valid);
    assert.equal(both.note.text, TEXT);
    assert.deepEqual(
      both.verified.map((s) => s.name),
      ['PeterNeumann'],
    );
    assert.deepEqual(
      both.unverified.map((s) => [s.name, s.keyId]),
      [['EnochRoot', 0xaf0cfe78]],
    );
    const all = verifySignedNote(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`, [peter, enoch]);
    assert.ok(all.valid);
    assert.deepEqual(
      all.verified.map((s) => s.name),
      ['PeterNeumann', 'EnochRoot'],
    );
    assert.ok(verifySignedNote(C2SP_NOTE, [ed25519NoteVerifier(C2SP_VKEY)]).valid);
  });

  it('parses the keys of the vectors, including one whose base64 holds a plus', () => {
    assert.deepEqual(
      { ...parseVerifierKey(PETER_VKEY), publicKey: undefined },
      { name: 'PeterNeumann', keyId: 0xc74f20a3, type: ED25519_KEY_TYPE, publicKey: undefined },
    );
    // transparency-dev/formats note_cosigv1_test.go: an Ed25519 key and a cosignature v1 key.
    assert.equal(
      parseVerifierKey('TEST+7997405c+AQcC+FTVKf0jlTdHDY3rbevmnKxxPjigCXlVtGe6RIr6').keyId,
      0x7997405c,
    );
    const remora = parseVerifierKey('remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2');
    assert.equal(remora.type, COSIGNATURE_V1_KEY_TYPE);
  });

  it('refuses every mangling of a verifier key, as Go’s tests do', () => {
    for (let i = 0; i <= PETER_VKEY.length; i++) {
      for (let j = i + 1; j <= PETER_VKEY.length; j++) {
        if (i === 0 && j === PETER_VKEY.length) continue;
        assert.equal(
          code(() => parseVerifierKey(PETER_VKEY.slice(i, j))),
          'KEY_MALFORMED',
          PETER_VKEY.slice(i, j),
        );
      }
    }
    for (let i = 0; i < PETER_VKEY.length; i++) {
      const mangled =
        PETER_VKEY.slice(0, i) + String.fromCharCode(PETER_VKEY.charCodeAt(i) + 1) + PETER_VKEY.slice(i + 1);
      assert.equal(
        code(() => parseVerifierKey(mangled)),
        'KEY_MALFORMED',
        mangled,
      );
    }
    // Go's: wrong key length and unknown algorithm, each with an adjusted key hash.
    assert.equal(
      code(() =>
        parseVerifierKey('PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY=='),
      ),
      'KEY_MALFORMED',
    );
    assert.equal(
      code(() => parseVerifierKey('PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')),
      'KEY_MALFORMED',
    );
    assert.equal(
      code(() => parseVerifierKey(PETER_VKEY.replace('c74f20a3', 'C74F20A3'))),
      'KEY_MALFORMED',
    );
  });

  it('refuses every mangling of a signer key', () => {
    for (let i = 0; i < PETER_SKEY.length; i++) {
      const mangled =
        PETER_SKEY.slice(0, i) + String.fromCharCode(PETER_SKEY.charCodeAt(i) + 1) + PETER_SKEY.slice(i + 1);
      assert.equal(
        code(() => parseSignerKey(mangled)),
        'KEY_MALFORMED',
        `position ${i}`,
      );
      assert.equal(
        code(() => parseSignerKey(PETER_SKEY.slice(0, i))),
        'KEY_MALFORMED',
      );
    }
    try {
      parseSignerKey(PETER_SKEY.replace('c74f20a3', '00000000'));
    } catch (error) {
      assert.doesNotMatch((error as Error).message, /AYEKFALV/, 'the message never quotes the key');
    }
  });
});

describe('signed-note strictness', () => {
  const good = `${TEXT}\n${PETER_SIG}`;
  const bad: [string, string | Uint8Array][] = [
    ['the text alone', TEXT],
    ['no signature after the empty line', `${TEXT}\n`],
    ['no final newline', good.slice(0, -1)],
    ['a control character', `\u0001${good}`],
    ['a carriage return', good.replace('\n\n', '\r\n\r\n')],
    ['a tab', good.replace('If you', 'If\tyou')],
    ['invalid UTF-8', new Uint8Array([0xff, ...new TextEncoder().encode(good)])],
    ['a lone surrogate', `\ud800${good}`],
    [
      'a name with a space',
      `${TEXT}\n— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
    ],
    ['a name with a plus', good.replace('PeterNeumann', 'Peter+Neumann')],
    ['a line after the signatures', `${good}Unexpected line.\n`],
    ['a hyphen for the em dash', good.replace('—', '-')],
    ['an en dash for the em dash', good.replace('—', '–')],
    ['no space after the dash', good.replace('— ', '—')],
    ['two spaces before the signature', good.replace('PeterNeumann ', 'PeterNeumann  ')],
    ['a signature of four bytes', `${TEXT}\n— PeterNeumann x08go/w==\n`],
    ['non-canonical base64', `${TEXT}\n— PeterNeumann x08go/Z=\n`],
    ['base64 without padding', good.replace('AM=\n', 'AM\n')],
    ['a name alone', `${TEXT}\n— PeterNeumann\n`],
    ['too many signatures', `${TEXT}\n${PETER_SIG.repeat(MAX_NOTE_SIGNATURES + 1)}`],
  ];
  for (const [what, note] of bad) {
    it(`refuses ${what}`, () => {
      assert.equal(
        code(() => parseSignedNote(note)),
        'NOTE_MALFORMED',
      );
      const outcome = verifySignedNote(note, [peter]);
      assert.equal(outcome.valid ? 'valid' : outcome.reason, 'NOTE_MALFORMED');
    });
  }

  it('accepts UTF-8 bytes, empty lines inside the text, and up to the signature limit', () => {
    assert.ok(verifySignedNote(new TextEncoder().encode(good), [peter]).valid);
    assert.equal(parseSignedNote(`${TEXT}\n${PETER_SIG.repeat(MAX_NOTE_SIGNATURES)}`).signatures.length, 100);
    const signer = ed25519NoteSigner(PETER_SKEY);
    const spaced = signNote('line one\n\nline three\n', [signer]);
    const outcome = verifySignedNote(spaced, [peter]);
    assert.ok(outcome.valid);
    assert.equal(outcome.note.text, 'line one\n\nline three\n');
  });

  it('rejects the whole note when a trusted key’s signature fails, and a note no trusted key signed', () => {
    const tampered = `${TEXT}\n${PETER_SIG.slice(0, 60)}ABCD${PETER_SIG.slice(60)}`;
    assert.deepEqual(verifySignedNote(tampered, [peter]), {
      valid: false,
      reason: 'SIGNATURE_INVALID',
      detail: 'the signature of PeterNeumann+c74f20a3 does not verify',
    });
    assert.equal(
      (verifySignedNote(`${TEXT}\n${PETER_SIG}${tampered.split('\n\n')[1]}`, [peter]) as { reason: string })
        .reason,
      'SIGNATURE_INVALID',
    );
    const edited = `${TEXT.replace('answer', 'question')}\n${PETER_SIG}`;
    assert.equal((verifySignedNote(edited, [peter]) as { reason: string }).reason, 'SIGNATURE_INVALID');
    assert.equal((verifySignedNote(good, [enoch]) as { reason: string }).reason, 'NO_TRUSTED_SIGNATURE');
    assert.equal((verifySignedNote(good, []) as { reason: string }).reason, 'NO_TRUSTED_SIGNATURE');
  });

  it('ignores a signature whose name or key ID differs from a trusted key', () => {
    const otherName = good.replace('— PeterNeumann', '— PeterNeumannX');
    assert.equal((verifySignedNote(otherName, [peter]) as { reason: string }).reason, 'NO_TRUSTED_SIGNATURE');
    const otherId = good.replace('x08go', 'xxxxx');
    assert.equal((verifySignedNote(otherId, [peter]) as { reason: string }).reason, 'NO_TRUSTED_SIGNATURE');
    assert.ok(verifySignedNote(`${TEXT}\n${otherId.split('\n\n')[1]}${PETER_SIG}`, [peter]).valid);
  });

  it('signs and formats only texts that a note can carry', () => {
    const signer = ed25519NoteSigner(PETER_SKEY);
    assert.equal(
      code(() => signNote('no newline', [signer])),
      'NOTE_MALFORMED',
    );
    assert.equal(
      code(() => signNote('a\rb\n', [signer])),
      'NOTE_MALFORMED',
    );
    assert.equal(
      code(() =>
        formatSignedNote({
          text: 'x\n',
          signatures: [{ name: 'a b', keyId: 1, signature: new Uint8Array(4) }],
        }),
      ),
      'NOTE_MALFORMED',
    );
  });

  it('round-trips any text and any number of generated keys', () => {
    const line = fc.string({ unit: 'grapheme', maxLength: 30 }).filter((s) => ![...s].some((c) => c < ' '));
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 4 }),
        (lines, count) => {
          const text = `${lines.join('\n')}\n`;
          const signers = Array.from({ length: count }, (_, i) =>
            ed25519NoteSigner(generateSignerKey(`log${i}.example/x`)),
          );
          const note = signNote(text, signers);
          const outcome = verifySignedNote(
            note,
            signers.map((s) => ed25519NoteVerifier(s.verifierKey)),
          );
          assert.ok(outcome.valid);
          assert.equal(outcome.note.text, text);
          assert.equal(outcome.verified.length, count);
          assert.equal(formatSignedNote(parseSignedNote(note)), note);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('never throws anything but a TransparencyFormatError on arbitrary input', () => {
    const input = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.uint8Array(),
      fc.string({ unit: 'grapheme' }).map((s) => `${TEXT}\n— ${s}\n`),
      fc.string({ unit: 'grapheme' }).map((s) => `${s}\n\n${PETER_SIG}`),
    );
    fc.assert(
      fc.property(input, (note) => {
        const result = code(() => parseSignedNote(note));
        assert.ok(result === 'accepted' || result === 'NOTE_MALFORMED');
        const outcome = verifySignedNote(note, [peter]);
        if (!outcome.valid) assert.ok(NOTE_VERIFICATION_REASONS.includes(outcome.reason));
        for (const parse of [parseVerifierKey, parseSignerKey]) {
          const keyResult = code(() => parse(typeof note === 'string' ? note : PETER_VKEY));
          assert.ok(['accepted', 'KEY_MALFORMED'].includes(keyResult));
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('key names and verifier keys', () => {
  it('follows the note rules for names', () => {
    for (const name of ['a', 'example.com/log', 'audit.example.com/audit/tenant-1', 'ünïcode/ok']) {
      assert.ok(isValidKeyName(name), name);
    }
    for (const name of [
      '',
      'two words',
      'plus+sign',
      'tab\there',
      'nbsp\u00a0x',
      'line\u2028sep',
      'nel\u0085x',
      'bell\u0007',
      '\ud800',
    ]) {
      assert.equal(isValidKeyName(name), false, JSON.stringify(name));
    }
  });

  it('formats what it parses, and computes key IDs per type', () => {
    const { publicKey } = parseSignerKey(PETER_SKEY);
    assert.equal(formatVerifierKey('PeterNeumann', ED25519_KEY_TYPE, publicKey), PETER_VKEY);
    const cosigning = formatVerifierKey('PeterNeumann', COSIGNATURE_V1_KEY_TYPE, publicKey);
    assert.notEqual(parseVerifierKey(cosigning).keyId, 0xc74f20a3, 'another type, another key ID');
    assert.equal(
      code(() => ed25519NoteVerifier(cosigning)),
      'KEY_MALFORMED',
    );
    assert.equal(
      code(() => formatVerifierKey('bad name', ED25519_KEY_TYPE, publicKey)),
      'KEY_MALFORMED',
    );
  });
});
