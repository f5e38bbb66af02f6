import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactedArgs } from '../../server/src/intent/domain/args-redaction.js';
import { redacted } from '../src/components/redact.js';

/**
 * The intent page redacts args in the browser with the console's copy of the service's rule; the
 * approval page shows what the service redacted. Both must hide the same values.
 */
describe('the console redacts args as the service does', () => {
  const samples: unknown[] = [
    { db: { password: 'hunter2-pw', host: 'db.internal' } },
    { list: [{ apiKey: 'k-123' }, { name: 'plain' }] },
    { clientSecret: { nested: 'deep-secret' } },
    { author: 'octocat', authorization: 'Basic abc', authorizedBy: 'x', authority: 'y' },
    { header: 'Authorization: Bearer abcdefghijklmnop', note: 'bearer abcdefghij123' },
    { token: 12, session: null, cookie: ['a'], jwt: { a: 1 } },
    { pem: '-----BEGIN RSA PRIVATE KEY-----\nMII', id: 'service_live_abc', hook: 'whsec_x' },
    { jwtLike: 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.sig', count: 3, flags: [true, false] },
    [{ Password: 'x' }, 'eyJa.eyJb'],
    { command: 'psql postgres://admin:SECRETPW@db/app', env: 'PASSWORD=x', key2: 'AKIAIOSFODNN7EXAMPLE' },
    { repo: 'https://github.com/acme/repo', gh: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB' },
    'a plain string',
    42,
    null,
  ];
  for (const sample of samples) {
    it(JSON.stringify(sample).slice(0, 60), () => {
      assert.deepEqual(redacted(sample), redactedArgs(sample));
    });
  }
  it('hides what an intent page must not show', () => {
    const shown = JSON.stringify(redacted(samples[0]));
    assert.doesNotMatch(shown, /hunter2/);
    assert.match(shown, /db\.internal/);
  });
});
