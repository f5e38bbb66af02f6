import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { verifyPassword } from '../../src/portal/password-hash.js';
import { openStorage } from '../../src/storage/database.js';

const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

describe('authority users (CLI)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'authority-users-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  function run(args: string[], input?: string) {
    const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, '--data-dir', dataDir, ...args], {
      env: { ...process.env, DATABASE_URL: '', AUTHORITY_MASTER_KEY: '' },
      encoding: 'utf8',
      timeout: 60_000,
      ...(input === undefined ? {} : { input }),
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  async function storedHash(email: string): Promise<string> {
    const storage = openStorage({ sqliteFile: path.join(dataDir, 'authority.db') });
    try {
      const row = await storage.db
        .selectFrom('portal_users')
        .select('password_hash')
        .where('tenant_id', '=', 'acme')
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      return row.password_hash;
    } finally {
      await storage.close();
    }
  }

  it('creates users with a generated password shown once, or one read from standard input', async () => {
    assert.equal(run(['tenants', 'create', 'acme', '--plan', 'pro']).status, 0);

    const generated = run([
      'users',
      'create',
      '--tenant',
      'acme',
      '--email',
      'Ops@Acme.test',
      '--role',
      'admin',
    ]);
    assert.equal(generated.status, 0, generated.stderr);
    const user = JSON.parse(generated.stdout) as Record<string, unknown>;
    assert.equal(user.email, 'ops@acme.test');
    assert.equal(user.role, 'admin');
    assert.equal(user.tenantId, 'acme');
    assert.equal(user.mfaEnrolled, false);
    assert.match(String(user.password), /^[A-Za-z0-9_-]{24}$/);
    assert.equal(await verifyPassword(String(user.password), await storedHash('ops@acme.test')), true);

    const piped = run(
      [
        'users',
        'create',
        '--tenant',
        'acme',
        '--email',
        'audit@acme.test',
        '--role',
        'auditor',
        '--password-stdin',
      ],
      'a long enough passphrase\nignored second line\n',
    );
    assert.equal(piped.status, 0, piped.stderr);
    assert.equal((JSON.parse(piped.stdout) as Record<string, unknown>).password, undefined);
    assert.equal(await verifyPassword('a long enough passphrase', await storedHash('audit@acme.test')), true);

    const listed = run(['users', 'list', '--tenant', 'acme']);
    assert.equal(listed.status, 0, listed.stderr);
    const users = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(
      users.map((u) => [u.email, u.role]),
      [
        ['audit@acme.test', 'auditor'],
        ['ops@acme.test', 'admin'],
      ],
    );
    assert.doesNotMatch(listed.stdout, /scrypt|password/);
  });

  it('refuses duplicates and unknown tenants (exit 1), and roles, addresses and short passwords as usage errors (exit 2)', () => {
    const duplicate = run([
      'users',
      'create',
      '--tenant',
      'acme',
      '--email',
      'OPS@acme.test',
      '--role',
      'auditor',
    ]);
    assert.equal(duplicate.status, 1);
    assert.match(duplicate.stderr, /already has a user ops@acme\.test/);
    const noTenant = run(['users', 'create', '--tenant', 'nobody', '--email', 'x@y.z', '--role', 'auditor']);
    assert.equal(noTenant.status, 1);
    assert.match(noTenant.stderr, /No tenant nobody/);
    const badRole = run(['users', 'create', '--tenant', 'acme', '--email', 'x@y.z', '--role', 'king']);
    // A refused value is a usage error (README): exit 2, `error: …`, then the usage.
    assert.equal(badRole.status, 2);
    assert.match(badRole.stderr, /^error: role must be one of/);
    assert.match(badRole.stderr, /\nUsage: authority users create /);
    const short = run(
      ['users', 'create', '--tenant', 'acme', '--email', 'x@y.z', '--role', 'auditor', '--password-stdin'],
      'short\n',
    );
    assert.equal(short.status, 2);
    assert.match(short.stderr, /^error: password must be 12 to 1024 characters/);
    const badEmail = run([
      'users',
      'create',
      '--tenant',
      'acme',
      '--email',
      'not-an-email',
      '--role',
      'auditor',
    ]);
    assert.equal(badEmail.status, 2);
    assert.match(badEmail.stderr, /^error: email must be an address/);
  });
});
