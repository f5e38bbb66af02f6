import type { Conformance } from './context.js';

let tenants = 0;

/** A new tenant for one test, so that tests never see each other's rows. */
export async function newTenant(c: Conformance, prefix = 'conformance'): Promise<string> {
  tenants += 1;
  const id = `${prefix}-${tenants}`;
  await c.repos.tenantRepository.insert(
    c.storage.db,
    { id, name: id, plan: 'pro', rateLimitPerMinute: null },
    1,
  );
  return id;
}
