import type { ComponentType } from 'preact';
import { useRoute } from 'preact-iso';
import { Gate } from '../../components/gate.js';
import { NotFound } from '../../components/not-found.js';
import { Page } from '../../components/page.js';
import type { Permission } from '../../session/roles.js';
import { useSession } from '../../session/session-context.js';
import { ApiKeys } from './api-keys.js';
import { Connectors } from './connectors.js';
import { PhysicalActors } from './physical-actors.js';
import { TenantControls } from './tenant-controls.js';
import { Thresholds } from './thresholds.js';
import { Webhooks } from './webhooks.js';

interface SettingsSection {
  id: string;
  label: string;
  anyOf: readonly Permission[];
  component: ComponentType;
}

/** Settings (contract §14 page 5), one section per resource, each for the roles that may manage it. */
const SECTIONS: readonly SettingsSection[] = [
  { id: 'keys', label: 'API keys', anyOf: ['keys:manage'], component: ApiKeys },
  { id: 'webhooks', label: 'Webhooks', anyOf: ['webhooks:manage'], component: Webhooks },
  { id: 'connectors', label: 'Connectors', anyOf: ['connectors:read'], component: Connectors },
  { id: 'thresholds', label: 'Thresholds', anyOf: ['authority:policy:read'], component: Thresholds },
  {
    id: 'tenant',
    label: 'Kill switch, IP allowlist, floor',
    anyOf: ['authority:killswitch:write', 'tenant:admin', 'authority:floor:write'],
    component: TenantControls,
  },
  {
    id: 'physical-actors',
    label: 'Physical actors',
    anyOf: ['physical:actors:read'],
    component: PhysicalActors,
  },
];

export function Settings() {
  const { can } = useSession();
  const { params } = useRoute();
  const visible = SECTIONS.filter((section) => section.anyOf.some(can));
  const named =
    params.section === undefined ? undefined : SECTIONS.find((section) => section.id === params.section);
  if (params.section !== undefined && named === undefined) return <NotFound />;
  const current = named ?? visible[0];
  const allAnyOf = SECTIONS.flatMap((section) => section.anyOf);
  const Body = current?.component;
  return (
    <Gate anyOf={allAnyOf} title="Settings">
      <Page title={current ? `Settings: ${current.label}` : 'Settings'}>
        <nav class="tabs" aria-label="Settings sections">
          <ul>
            {visible.map((section) => (
              <li key={section.id}>
                <a
                  href={`/console/settings/${section.id}`}
                  aria-current={section.id === current?.id ? 'page' : undefined}
                >
                  {section.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {current && Body ? (
          <Gate anyOf={current.anyOf} title={current.label} inline>
            <Body />
          </Gate>
        ) : null}
      </Page>
    </Gate>
  );
}
