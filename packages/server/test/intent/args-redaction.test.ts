import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from '../../src/crypto/canonical-json.js';
import { clipText } from '../../src/foundation/text.js';
import { argsPreview } from '../../src/intent/domain/args-redaction.js';

describe('argsPreview: what of args reaches the permanent chain', () => {
  test('values under credential-like keys are redacted, whatever their case or place', () => {
    const keys = [
      'secret',
      'clientSecret',
      'token',
      'access_token',
      'password',
      'passwd',
      'pass',
      'PASS',
      'db_pass',
      'smtp-pass',
      'pwd',
      'passphrase',
      'apiKey',
      'private_key',
      'privateData',
      'Authorization',
      'proxy-authorization',
      'x-auth',
      'oauth',
      'Cookie',
      'set-cookie',
      'credential',
      'credentials',
      'sessionId',
      'SESSION',
      'bearer',
      'jwt',
    ];
    for (const key of keys) {
      const preview = argsPreview({ outer: { [key]: 'hunter2-value', visible: 'ok' } }) ?? '';
      assert.ok(!preview.includes('hunter2'), `${key}: ${preview}`);
      assert.ok(preview.includes('[redacted]') && preview.includes('"visible":"ok"'), preview);
    }
    // Arrays of header pairs and objects in arrays are covered too.
    const nested = argsPreview({ headers: [{ name: 'x', Authorization: 'Basic abc' }] }) ?? '';
    assert.ok(!nested.includes('abc'), nested);
  });

  test('credential-looking values are redacted under any key', () => {
    for (const value of [
      'Bearer abc.def.ghi',
      'Authorization: Basic dXNlcjpwYXNz',
      `service_live_${'A'.repeat(43)}`,
      'whsec_abcdef',
      'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIE…',
      '-----BEGIN PRIVATE KEY-----',
      'curl -H "Authorization: Bearer s3cr3t" https://x',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB',
      'github_pat_11ABCDEFG0123456789_abcdefghijklmnop',
      'aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE',
      'xoxb-1234567890-abcdefghij',
      'sk-proj-abcdefghijklmnopqrstuvwx',
      'psql postgres://admin:SECRETPW@db.internal:5432/app',
      'PASSWORD=SECRETCONTENT123 ./deploy.sh',
      'client_secret=abc123',
      'api_key: zzz',
    ]) {
      const preview = argsPreview({ command: value }) ?? '';
      assert.equal(preview, '{"command":"[redacted]"}', value);
    }
  });

  test('ordinary keys and values are kept', () => {
    const args = {
      author: 'ada',
      authority: 'x',
      authored: 'y',
      branch: 'main',
      note: 'a bearer of news',
      repo: 'https://github.com/acme/repo',
      database: 'postgres://db.internal:5432/app',
      story: 'the secret garden has 3 tokens',
      count: 3,
    };
    assert.equal(argsPreview(args), JSON.stringify(args));
    const words = { compass: 'north', passenger: 'p', bypass: 'no' };
    assert.equal(argsPreview(words), JSON.stringify(words));
    assert.equal(argsPreview(undefined), null);
  });

  test('at most 256 characters', () => {
    const preview = argsPreview({ text: 'x'.repeat(1_000) }) ?? '';
    assert.equal(preview.length, 256);
    assert.ok(preview.endsWith('…'));
  });

  test('never cut inside a surrogate pair: the preview has a canonical JSON form (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.nat(20), (text, pad) => {
        const preview = argsPreview({ t: `${'a'.repeat(pad)}${text}` }) ?? '';
        assert.ok(preview.length <= 256);
        assert.ok(preview.isWellFormed(), JSON.stringify(preview));
        assert.doesNotThrow(() => canonicalJson({ preview }));
      }),
      { numRuns: 500 },
    );
    // The case a review found: the cut fell between the halves of an emoji.
    const preview = argsPreview({ t: `${'a'.repeat(248)}😀` }) ?? '';
    assert.ok(preview.isWellFormed());
    assert.equal(preview.length, 255);
  });
});

describe('clipText', () => {
  test('the longest prefix of at most the length that does not split a surrogate pair (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.integer({ min: 1, max: 70 }),
        (text, length) => {
          const clipped = clipText(text, length);
          assert.ok(text.startsWith(clipped));
          assert.ok(clipped.length <= length);
          assert.ok(clipped.length >= Math.min(text.length, length - 1));
          const last = clipped.charCodeAt(clipped.length - 1);
          if (clipped.length < text.length)
            assert.ok(!(last >= 0xd800 && last <= 0xdbff), 'no high surrogate last');
        },
      ),
      { numRuns: 2_000 },
    );
    assert.equal(clipText('ab😀', 3), 'ab');
    assert.equal(clipText('ab😀', 4), 'ab😀');
  });
});
