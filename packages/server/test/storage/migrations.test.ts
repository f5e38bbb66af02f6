import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { type Kysely, sql } from 'kysely';
import { loadMigrations, migrateToLatest } from '../../src/storage/migrate.js';
import { appliedMigrations, dumpSchema } from '../helpers/schema-dump.js';
import { createTestStorage, ENGINES } from '../helpers/storage.js';

/** The migrations a database migrated by the single-function migrations records, in the order they ran. */
const LEGACY_MIGRATIONS = [
  '0001_tenants_and_keys',
  '0002_trust_primitives',
  '0003_tenant_controls',
  '0004_decision_loop',
  '0005_portal_users_sessions',
  '0006_webhooks',
  '0007_approvals',
  '0008_connectors',
  '0009_physical',
  '0010_physical_policy',
  '0011_console_lookups',
];

const LAST_LEGACY = LEGACY_MIGRATIONS[LEGACY_MIGRATIONS.length - 1] as string;
const MIGRATIONS = new URL('../../src/storage/migrations/', import.meta.url);

/** The schema the single-function migrations (storage/migrations.ts up to 0011) produced, dumped per engine. */
function legacySchema(engine: string): unknown {
  const file = path.join(import.meta.dirname, 'fixtures', `schema-${engine}.json`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

for (const engine of ENGINES) {
  describe(`migrations, one per file (${engine})`, () => {
    it('keep the names and order of the single-function migrations, new ones after them', async () => {
      const names = Object.keys(await loadMigrations(MIGRATIONS, engine));
      assert.deepEqual(names.slice(0, LEGACY_MIGRATIONS.length), LEGACY_MIGRATIONS);
      assert.deepEqual(names, [...names].sort());
    });

    it('build exactly the schema the single-function migrations built, under the same names', async () => {
      const t = await createTestStorage(engine, { migrate: false });
      try {
        // Up to the last single-function migration: later ones add to the schema of the fixture.
        await migrateToLatest(t.storage.db as Kysely<unknown>, engine, t.location.pgSchema, LAST_LEGACY);
        assert.deepEqual(await appliedMigrations(t.storage), LEGACY_MIGRATIONS);
        assert.deepEqual(await dumpSchema(t.storage, t.location.pgSchema), legacySchema(engine));
      } finally {
        await t.dispose();
      }
    });

    it('upgrade a database the single-function migrations migrated without re-running any', async () => {
      const names = Object.keys(await loadMigrations(MIGRATIONS, engine));
      const fresh = await createTestStorage(engine);
      const t = await createTestStorage(engine, { migrate: false });
      try {
        // The database an earlier version left: its tables, and its record of the ten migrations.
        if (engine === 'sqlite') {
          const statements = (legacySchema(engine) as { type: string; sql: string | null }[])
            .filter((entry) => entry.sql !== null)
            .sort((a, b) => (a.type === 'table' ? 0 : 1) - (b.type === 'table' ? 0 : 1));
          for (const entry of statements) await sql.raw(entry.sql as string).execute(t.storage.db);
          for (const name of LEGACY_MIGRATIONS) {
            await sql`insert into kysely_migration (name, timestamp) values (${name}, ${'2026-01-01T00:00:00.000Z'})`.execute(
              t.storage.db,
            );
          }
        } else {
          // pg_dump of a schema migrated by an earlier version, with its record of the migrations.
          const dump = readFileSync(
            path.join(import.meta.dirname, 'fixtures', 'legacy-postgres.sql'),
            'utf8',
          );
          await sql.raw(dump.replaceAll('{{schema}}', t.location.pgSchema as string)).execute(t.storage.db);
        }
        await sql`insert into tenants (id, name, plan, rate_limit_per_minute, kill_switch_enabled, ip_allowlist, created_at, updated_at)
          values ('acme', 'Acme', 'pro', null, 0, '[]', 1, 1)`.execute(t.storage.db);
        // Only the migrations written after the single-function ones run (none yet today).
        assert.deepEqual(await t.storage.migrate(), names.slice(LEGACY_MIGRATIONS.length));
        assert.deepEqual(await appliedMigrations(t.storage), names);
        assert.deepEqual(
          await dumpSchema(t.storage, t.location.pgSchema),
          await dumpSchema(fresh.storage, fresh.location.pgSchema),
        );
        const tenant = await t.storage.db.selectFrom('tenants').select('name').executeTakeFirst();
        assert.equal(tenant?.name, 'Acme');
      } finally {
        await t.dispose();
        await fresh.dispose();
      }
    });
  });
}

describe('migration files', () => {
  it('are taken in name order, per engine where a migration has one file per engine', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'authority-migrations-'));
    try {
      const module = (label: string) =>
        `export async function up(_db, types) { globalThis.ranMigrations.push(['${label}', types.millis]); }\n`;
      writeFileSync(path.join(dir, '0002_both.ts'), module('0002 both'));
      writeFileSync(path.join(dir, '0001_split.sqlite.ts'), module('0001 sqlite'));
      writeFileSync(path.join(dir, '0001_split.postgres.ts'), module('0001 postgres'));
      writeFileSync(path.join(dir, '0003_only.postgres.ts'), module('0003 postgres'));
      writeFileSync(path.join(dir, 'README.md'), 'not a migration\n');
      const ran: [string, string][] = [];
      (globalThis as { ranMigrations?: unknown }).ranMigrations = ran;
      const directory = pathToFileURL(`${dir}/`);

      const sqlite = await loadMigrations(directory, 'sqlite');
      assert.deepEqual(Object.keys(sqlite), ['0001_split', '0002_both']);
      for (const migration of Object.values(sqlite)) await migration.up(null as never);
      const postgres = await loadMigrations(directory, 'postgres');
      assert.deepEqual(Object.keys(postgres), ['0001_split', '0002_both', '0003_only']);
      for (const migration of Object.values(postgres)) await migration.up(null as never);
      assert.deepEqual(ran, [
        ['0001 sqlite', 'integer'],
        ['0002 both', 'integer'],
        ['0001 postgres', 'bigint'],
        ['0002 both', 'bigint'],
        ['0003 postgres', 'bigint'],
      ]);

      writeFileSync(path.join(dir, '0002_both.sqlite.ts'), module('0002 again'));
      await assert.rejects(loadMigrations(directory, 'sqlite'), /0002_both is defined twice/);
      rmSync(path.join(dir, '0002_both.sqlite.ts'));
      writeFileSync(path.join(dir, '0004_empty.ts'), 'export const down = 1;\n');
      await assert.rejects(loadMigrations(directory, 'postgres'), /0004_empty.ts exports no up/);
    } finally {
      delete (globalThis as { ranMigrations?: unknown }).ranMigrations;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
