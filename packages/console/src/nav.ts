import type { Permission } from './session/roles.js';

export interface NavItem {
  href: string;
  label: string;
  /** Shown when the role holds any of these. */
  anyOf: readonly Permission[];
  /** Where the item leads a role that cannot use `href` itself (the first tab it may open). */
  landing?: (can: (permission: Permission) => boolean) => string;
}

/** The console's pages (contract §14), each shown only to roles whose permissions allow it. */
export const NAV: readonly NavItem[] = [
  { href: '/console/approvals', label: 'Approvals', anyOf: ['authority:approve', 'physical:approvals:read'] },
  { href: '/console/intents', label: 'Intents', anyOf: ['intent:read'] },
  { href: '/console/audit', label: 'Audit', anyOf: ['audit:read', 'audit:verify'] },
  {
    href: '/console/policies',
    label: 'Policies',
    anyOf: ['authority:policy:read', 'physical:policy:read', 'authority:evaluate'],
    landing: (can) =>
      can('authority:policy:read')
        ? '/console/policies'
        : can('physical:policy:read')
          ? '/console/policies/physical'
          : '/console/policies/playground',
  },
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
  return NAV.filter((item) => item.anyOf.some(can)).map((item) =>
    item.landing ? { ...item, href: item.landing(can) } : item,
  );
}
