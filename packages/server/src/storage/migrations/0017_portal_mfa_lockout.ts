import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../migrate.js';

/**
 * Wrong second-factor codes counted per console user, across sessions, and the time until which
 * the user's second factor is locked once too many came in a row (portal/session-policy.ts): a
 * session ends after five, but a new password login would otherwise give five more without end.
 */
export async function up(db: Kysely<unknown>, { millis }: ColumnTypes): Promise<void> {
  await db.schema
    .alterTable('portal_users')
    .addColumn('mfa_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('portal_users').addColumn('mfa_locked_until', millis).execute();
}
