import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

describe('authority CLI commands (embedded database)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'authority-cli-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  function run(...args: string[]) {
    const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, '--data-dir', dataDir, ...args], {
      env: { ...process.env, DATABASE_URL: '', AUTHORITY_MASTER_KEY: '' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('migrates, creates and lists tenants, and manages keys', () => {
    const migrated = run('migrate');
    assert.equal(migrated.status, 0, migrated.stderr);

    const created = run(
      'tenants',
      'create',
      'acme',
      '--name',
      'Acme Robotics',
      '--plan',
      'enterprise',
      '--rate-limit',
      '5000',
    );
    assert.equal(created.status, 0, created.stderr);
    const { tenant, ownerKey } = JSON.parse(created.stdout) as {
      tenant: { id: string; name: string; plan: string; rateLimitPerMinute: number };
      ownerKey: { key: string; role: string };
    };
    assert.deepEqual(
      [tenant.id, tenant.name, tenant.plan, tenant.rateLimitPerMinute],
      ['acme', 'Acme Robotics', 'enterprise', 5000],
    );
    assert.match(ownerKey.key, /^service_live_[0-9A-Za-z]{43}$/);
    assert.equal(ownerKey.role, 'owner');

    const duplicate = run('tenants', 'create', 'acme', '--plan', 'pro');
    assert.equal(duplicate.status, 1);
    assert.match(duplicate.stderr, /already exists/);

    const badPlan = run('tenants', 'create', 'other', '--plan', 'gold');
    assert.notEqual(badPlan.status, 0);

    const listed = run('tenants', 'list');
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { id: string }[]).map((t) => t.id),
      ['acme'],
    );

    const key = run(
      'keys',
      'create',
      '--tenant',
      'acme',
      '--name',
      'robot-7',
      '--role',
      'agent',
      '--scopes',
      'intent:create,intent:read',
    );
    assert.equal(key.status, 0, key.stderr);
    const issued = JSON.parse(key.stdout) as { id: string; scopes: string[] };
    assert.deepEqual(issued.scopes, ['intent:create', 'intent:read']);

    const badScope = run(
      'keys',
      'create',
      '--tenant',
      'acme',
      '--name',
      'x',
      '--role',
      'agent',
      '--scopes',
      'keys:manage',
    );
    assert.equal(badScope.status, 2, badScope.stderr);
    assert.match(badScope.stderr, /^error: --scopes must be a subset/);

    // An argument's value the service refuses is a usage error: exit 2, `error: …`, the usage.
    for (const [args, message] of [
      [['tenants', 'create', 'Bad_ID!', '--plan', 'pro'], /^error: id must match/],
      [
        ['keys', 'create', '--tenant', 'acme', '--name', 'ci', '--role', 'wizard'],
        /^error: role must be one of/,
      ],
      [
        [
          'keys',
          'create',
          '--tenant',
          'acme',
          '--name',
          'ci',
          '--role',
          'agent',
          '--expires-at',
          'yesterday',
        ],
        /^error: --expires-at must be an ISO 8601 date-time/,
      ],
      [
        ['keys', 'create', '--tenant', 'acme', '--name', 'ci', '--role', 'agent', '--scopes', ' , '],
        /^error: option '--scopes <list>' argument ' , ' is invalid\. names no permission/,
      ],
      [
        ['tenants', 'create', 'big', '--plan', 'enterprise'],
        /^error: --rate-limit is required for the enterprise plan/,
      ],
      [
        ['tenants', 'create', 'small', '--rate-limit', '5'],
        /^error: --rate-limit applies to the enterprise plan only/,
      ],
    ] as const) {
      const refused = run(...args);
      assert.equal(refused.status, 2, `${args.join(' ')}: ${refused.stderr}`);
      assert.match(refused.stderr, message, args.join(' '));
      assert.match(refused.stderr, new RegExp(`\\nUsage: authority ${args[0]} ${args[1]} `), args.join(' '));
      assert.equal(refused.stdout, '');
    }

    const keys = JSON.parse(run('keys', 'list', '--tenant', 'acme').stdout) as {
      id: string;
      revokedAt: string | null;
    }[];
    assert.equal(keys.length, 2);
    assert.ok(!JSON.stringify(keys).includes('service_live_') || keys.every((k) => !('key' in k)));

    const revoked = run('keys', 'revoke', issued.id, '--tenant', 'acme');
    assert.deepEqual([revoked.status, revoked.stdout], [0, `Revoked ${issued.id}.\n`]);
    const again = run('keys', 'revoke', issued.id, '--tenant', 'acme');
    assert.deepEqual([again.status, again.stdout], [0, `${issued.id} was already revoked.\n`]);
    const afterRevoke = JSON.parse(run('keys', 'list', '--tenant', 'acme').stdout) as {
      id: string;
      revokedAt: string | null;
    }[];
    assert.ok(afterRevoke.find((k) => k.id === issued.id)?.revokedAt);

    const unknown = run('keys', 'revoke', 'nope', '--tenant', 'acme');
    assert.equal(unknown.status, 1);

    // A tenant that does not exist is an error, not an empty list.
    for (const args of [
      ['keys', 'list', '--tenant', 'acme-typo'],
      ['users', 'list', '--tenant', 'acme-typo'],
      ['keys', 'revoke', issued.id, '--tenant', 'acme-typo'],
    ]) {
      const missing = run(...args);
      assert.equal(missing.status, 1, args.join(' '));
      assert.match(missing.stderr, /^authority: No tenant acme-typo/, args.join(' '));
      assert.equal(missing.stdout, '');
    }
  });

  it('never creates an empty database as a side effect; only migrate and tenants create start one', () => {
    const elsewhere = path.join(dataDir, 'typo');
    const runIn = (dir: string, ...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', CLI, '--data-dir', dir, ...args], {
        env: { ...process.env, DATABASE_URL: '', AUTHORITY_MASTER_KEY: '' },
        encoding: 'utf8',
        timeout: 60_000,
      });
    for (const args of [
      ['tenants', 'list'],
      ['keys', 'list', '--tenant', 'acme'],
      ['keys', 'rotate-physical'],
    ]) {
      const result = runIn(elsewhere, ...args);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /^authority: configuration error: DATA_DIR holds no database/);
      assert.equal(existsSync(path.join(elsewhere, 'authority.db')), false, args.join(' '));
    }
    const migrated = runIn(elsewhere, 'migrate');
    assert.equal(migrated.status, 0, migrated.stderr);
    assert.equal(runIn(elsewhere, 'tenants', 'list').stdout.trim(), '[]');
  });

  it('--version prints the version', () => {
    const version = run('--version');
    assert.equal(version.status, 0, version.stderr);
    const { version: expected } = JSON.parse(
      readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8'),
    ) as { version: string };
    assert.equal(version.stdout.trim(), expected);
  });
});
