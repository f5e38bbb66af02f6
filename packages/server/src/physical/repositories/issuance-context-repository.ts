import type { Executor } from '../../storage/database.js';

/** What an issuance reads of its tenant besides the roster and the ticket. */
export interface IssuanceContext {
  killSwitchEnabled: boolean;
  /** The active uploaded policy version; null while the default policy applies. */
  policyVersion: number | null;
  unacknowledgedChainBreak: boolean;
}

/**
 * The read of `POST /physical/authority-tokens`: the kill switch, the active policy version and
 * whether a chain break awaits acknowledgement, in one query over the tenant's row.
 */
export const issuanceContextRepository = {
  /** Undefined for an unknown tenant. */
  async get(db: Executor, tenantId: string): Promise<IssuanceContext | undefined> {
    const row = await db
      .selectFrom('tenants as t')
      .select((eb) => [
        't.kill_switch_enabled',
        eb
          .selectFrom('physical_policies as p')
          .select('p.version')
          .whereRef('p.tenant_id', '=', 't.id')
          .where('p.active', '=', 1)
          .as('policy_version'),
        eb
          .selectFrom('chain_breaks as b')
          .select('b.broken_at')
          .whereRef('b.tenant_id', '=', 't.id')
          .where('b.acknowledged_at', 'is', null)
          .limit(1)
          .as('open_break'),
      ])
      .where('t.id', '=', tenantId)
      .executeTakeFirst();
    return (
      row && {
        killSwitchEnabled: Number(row.kill_switch_enabled) === 1,
        policyVersion: row.policy_version === null ? null : Number(row.policy_version),
        unacknowledgedChainBreak: row.open_break !== null,
      }
    );
  },
};
