import assert from 'node:assert/strict';
import { createPortalUser } from '../../src/portal/portal-users.js';
import { totpCode } from '../../src/portal/totp.js';
import type { Headers, TestApp } from '../helpers/app.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (no padding) to bytes: what an authenticator app does with the enrolled secret. */
export function base32Decode(text: string): Buffer {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = ALPHABET.indexOf(char);
    if (value === -1) throw new Error(`not base32: ${char}`);
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((buffer >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

export const PASSWORD = 'correct horse battery staple';

export interface PortalLogin {
  userId: string;
  email: string;
  sessionId: string;
  /** x-portal-session-id and x-tenant-id. */
  headers: Headers;
  /** The enrolled TOTP secret, when the login enrolled one. */
  secret?: Buffer;
}

let loginAddress = 0;

/** A distinct address per login, so that tests are not held up by the login limit (10 a minute). */
export function nextLoginAddress(): string {
  loginAddress += 1;
  return `192.0.2.${(loginAddress % 250) + 1}`;
}

export async function createUser(t: TestApp, tenantId: string, role: string, email?: string) {
  return createPortalUser(
    t.storage,
    t.clock,
    tenantId,
    {
      email: email ?? `${role}.${Math.random().toString(36).slice(2, 8)}@${tenantId}.test`,
      role,
      password: PASSWORD,
    },
    { id: 'test', type: 'operator' },
  );
}

export async function login(t: TestApp, tenantId: string, email: string, password = PASSWORD) {
  return t.app.inject({
    method: 'POST',
    url: '/portal/login',
    remoteAddress: nextLoginAddress(),
    payload: { tenantId, email, password },
  });
}

/** Creates a user of the role, signs in and, with `mfa`, enrolls and verifies a TOTP factor. */
export async function portalLogin(
  t: TestApp,
  tenantId: string,
  role: string,
  options: { mfa?: boolean; email?: string } = {},
): Promise<PortalLogin> {
  const user = await createUser(t, tenantId, role, options.email);
  const response = await login(t, tenantId, user.email);
  assert.equal(response.statusCode, 200, response.body);
  const { sessionId } = response.json() as { sessionId: string };
  const headers = { 'x-portal-session-id': sessionId, 'x-tenant-id': tenantId };
  const result: PortalLogin = { userId: user.id, email: user.email, sessionId, headers };
  if (options.mfa) {
    const enroll = await t.app.inject({ method: 'POST', url: '/portal/mfa/enroll', headers });
    assert.equal(enroll.statusCode, 200, enroll.body);
    const secret = base32Decode((enroll.json() as { secret: string }).secret);
    const verify = await t.app.inject({
      method: 'POST',
      url: '/portal/mfa',
      headers,
      payload: { code: totpCode(secret, t.clock()) },
    });
    assert.equal(verify.statusCode, 200, verify.body);
    // The verified session has a new id; the one used so far has ended.
    result.sessionId = (verify.json() as { sessionId: string }).sessionId;
    result.headers = { ...headers, 'x-portal-session-id': result.sessionId };
    result.secret = secret;
  }
  return result;
}
