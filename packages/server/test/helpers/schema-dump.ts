import { sql } from 'kysely';
import type { Storage } from '../../src/storage/database.js';

/**
 * What a migrated database looks like, independent of where it lives: on SQLite the statements
 * in `sqlite_master` (the DDL exactly as it was run), on PostgreSQL the columns, indexes and
 * constraints of the schema, with the schema's own name taken out. Kysely's bookkeeping tables
 * are included, so two dumps are equal only if the same migrations ran under the same names.
 */
export async function dumpSchema(storage: Storage, pgSchema?: string): Promise<unknown> {
  if (storage.dialect === 'sqlite') {
    const { rows } = await sql<{ type: string; name: string; tbl_name: string; sql: string | null }>`
      select type, name, tbl_name, sql from sqlite_master
      where name not like 'sqlite_%' order by type, name`.execute(storage.db);
    return rows;
  }
  if (pgSchema === undefined) throw new Error('a PostgreSQL dump needs the schema name');
  const anonymous = (text: string) => text.replaceAll(`${pgSchema}.`, '');
  const columns = await sql<Record<string, unknown>>`
    select table_name, column_name, ordinal_position, data_type, is_nullable, column_default
    from information_schema.columns where table_schema = ${pgSchema}
    order by table_name, ordinal_position`.execute(storage.db);
  const indexes = await sql<{ tablename: string; indexname: string; indexdef: string }>`
    select tablename, indexname, indexdef from pg_indexes where schemaname = ${pgSchema}
    order by indexname`.execute(storage.db);
  const constraints = await sql<{ table: string; name: string; definition: string }>`
    select cl.relname as table, co.conname as name, pg_get_constraintdef(co.oid) as definition
    from pg_constraint co
    join pg_class cl on cl.oid = co.conrelid
    join pg_namespace n on n.oid = cl.relnamespace
    where n.nspname = ${pgSchema}
    order by cl.relname, co.conname`.execute(storage.db);
  return {
    columns: columns.rows,
    indexes: indexes.rows.map((row) => ({ ...row, indexdef: anonymous(row.indexdef) })),
    constraints: constraints.rows.map((row) => ({ ...row, definition: anonymous(row.definition) })),
  };
}

/** The migrations a database records as applied, in the order they ran. */
export async function appliedMigrations(storage: Storage): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
    storage.db,
  );
  return rows.map((row) => row.name);
}
