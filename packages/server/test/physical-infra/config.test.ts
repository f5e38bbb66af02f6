import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const SERVER = {
  DATABASE_URL: 'postgres://authority@db.internal/authority',
  AUTHORITY_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
  PUBLIC_BASE_URL: 'https://authority.example.com/',
};

const refused = (env: Record<string, string>, variable: string) =>
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => error instanceof ConfigError && error.variable === variable,
  );

describe('physical configuration', () => {
  it('defaults: RSA-2048, a persisted key, approvals under the public base URL', () => {
    const config = loadConfig({ PORT: '9000' });
    assert.equal(config.physicalKeyBits, 2048);
    assert.equal(config.physicalSignerEphemeral, false);
    assert.equal(config.approvalUrl, 'http://localhost:9000/console/approvals');
    assert.equal(loadConfig(SERVER).approvalUrl, 'https://authority.example.com/console/approvals');
  });

  it('takes PHYSICAL_KEY_BITS 2048, 3072 or 4096 only', () => {
    for (const bits of [2048, 3072, 4096]) {
      assert.equal(loadConfig({ PHYSICAL_KEY_BITS: String(bits) }).physicalKeyBits, bits);
    }
    for (const bits of ['1024', '2500', '8192', 'big', '-2048'])
      refused({ PHYSICAL_KEY_BITS: bits }, 'PHYSICAL_KEY_BITS');
  });

  it('allows the ephemeral signer in embedded mode only', () => {
    assert.equal(loadConfig({ PHYSICAL_SIGNER_EPHEMERAL: '1' }).physicalSignerEphemeral, true);
    refused({ ...SERVER, PHYSICAL_SIGNER_EPHEMERAL: '1' }, 'PHYSICAL_SIGNER_EPHEMERAL');
    refused({ PHYSICAL_SIGNER_EPHEMERAL: 'yes' }, 'PHYSICAL_SIGNER_EPHEMERAL');
  });

  it('takes AUTHORITY_APPROVAL_URL as an http(s) URL without its trailing slashes', () => {
    assert.equal(
      loadConfig({ AUTHORITY_APPROVAL_URL: 'https://ops.example.com/approve//' }).approvalUrl,
      'https://ops.example.com/approve',
    );
    refused({ AUTHORITY_APPROVAL_URL: 'ftp://ops.example.com' }, 'AUTHORITY_APPROVAL_URL');
    refused({ AUTHORITY_APPROVAL_URL: 'not a url' }, 'AUTHORITY_APPROVAL_URL');
  });
});
