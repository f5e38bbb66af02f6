import type { Permission, Role } from './permissions.js';

/** Who makes a request: an API key (or, later, a portal user) of exactly one tenant. */
export interface Principal {
  type: 'api_key';
  id: string;
  tenantId: string;
  role: Role;
  scopes: readonly Permission[] | null;
  permissions: ReadonlySet<Permission>;
}
