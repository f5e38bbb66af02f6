/**
 * Row types of the schema. Times are integer milliseconds since the epoch on both engines, JSON
 * values are stored as text, booleans as 0/1, so one code path serves SQLite and PostgreSQL.
 */
export interface TenantsTable {
  id: string;
  name: string;
  plan: string;
  rate_limit_per_minute: number | null;
  kill_switch_enabled: number;
  kill_switch_reason: string | null;
  kill_switch_changed_by: string | null;
  kill_switch_changed_at: number | null;
  ip_allowlist: string;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  tenant_id: string;
  id: string;
  name: string;
  key_hash: string;
  display_prefix: string;
  role: string;
  scopes: string | null;
  expires_at: number | null;
  created_at: number;
  created_by: string | null;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface BootstrapTable {
  name: string;
  created_at: number;
}

export interface Database {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  bootstrap: BootstrapTable;
}
