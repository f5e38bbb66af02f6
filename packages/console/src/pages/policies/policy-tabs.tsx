import { useLocation } from 'preact-iso';
import type { Permission } from '../../session/roles.js';
import { useSession } from '../../session/session-context.js';

/** The policy pages; the versions table of the intent policy carries the review (contract §16). */
const TABS: ReadonlyArray<{ href: string; label: string; anyOf: readonly Permission[] }> = [
  { href: '/console/policies', label: 'Intent policy', anyOf: ['authority:policy:read'] },
  { href: '/console/policies/simulation', label: 'Simulation', anyOf: ['authority:policy:read'] },
  { href: '/console/policies/playground', label: 'Playground', anyOf: ['authority:evaluate'] },
  { href: '/console/policies/physical', label: 'Physical clause policy', anyOf: ['physical:policy:read'] },
];

export function PolicyTabs() {
  const { can } = useSession();
  const { path } = useLocation();
  return (
    <nav class="tabs" aria-label="Policy pages">
      <ul>
        {TABS.filter((tab) => tab.anyOf.some(can)).map((tab) => (
          <li key={tab.href}>
            <a href={tab.href} aria-current={path === tab.href ? 'page' : undefined}>
              {tab.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
