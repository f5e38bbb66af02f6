export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;

export interface KillSwitch {
  enabled: boolean;
  reason: string | null;
  changedBy: string | null;
  changedAt: string | null;
}

/** A tenant as the API shows it (contract section 2). */
export interface Tenant {
  id: string;
  name: string;
  plan: Plan;
  rateLimitPerMinute: number | null;
  killSwitch: KillSwitch;
  ipAllowlist: string[];
  createdAt: string;
}

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}
