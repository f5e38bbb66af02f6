import type { Permission } from './session/roles.js';

export interface NavItem {
  href: string;
  label: string;
  /** Shown when the role holds any of these. */
  anyOf: readonly Permission[];
}

/** The console's pages (contract §14), each shown only to roles whose permissions allow it. */
export const NAV: readonly NavItem[] = [
  { href: '/console/approvals', label: 'Approvals', anyOf: ['authority:approve', 'physical:approvals:read'] },
  { href: '/console/intents', label: 'Intents', anyOf: ['intent:read'] },
  { href: '/console/audit', label: 'Audit', anyOf: ['audit:read', 'audit:verify'] },
  { href: '/console/policies', label: 'Policies', anyOf: ['authority:policy:read', 'physical:policy:read'] },
  {
    href: '/console/settings',
    label: 'Settings',
    anyOf: [
      'keys:manage',
      'webhooks:manage',
      'connectors:read',
      'authority:policy:read',
      'authority:killswitch:write',
      'tenant:admin',
      'authority:floor:write',
      'physical:actors:read',
    ],
  },
];

export function visibleNav(can: (permission: Permission) => boolean): NavItem[] {
  return NAV.filter((item) => item.anyOf.some(can));
}
