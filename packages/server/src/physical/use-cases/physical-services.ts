/**
 * The infrastructure of the physical surface (`/v1/physical/*`): the shared RS256 signer, the actor
 * roster, escalation tickets, decision audit records and verification reports, revocations, state
 * snapshots and idempotency. The decision endpoints (classify, authority-tokens, policy) compose
 * these; the pure decision logic lives in `../physical/`.
 */

import type { Config } from '../../config/config.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Clock } from '../../foundation/clock.js';
import type { Idempotency } from '../../idempotency/idempotency.js';
import type { Storage } from '../../storage/database.js';
import { createPhysicalActors } from './physical-actors.js';
import { createPhysicalAudit } from './physical-audit.js';
import { createPhysicalIdempotency } from './physical-idempotency.js';
import { createPhysicalRevocations } from './physical-revocations.js';
import { createPhysicalSigner } from './physical-signer.js';
import { createPhysicalSnapshots } from './physical-snapshots.js';
import { createPhysicalTickets } from './physical-tickets.js';
import { createTicketRequests } from './ticket-requests.js';

export interface PhysicalServicesDeps {
  storage: Storage;
  clock: Clock;
  secretBox: SecretBox;
  idempotency: Idempotency;
  config: Pick<Config, 'physicalKeyBits' | 'physicalSignerEphemeral' | 'approvalUrl'>;
}

export function createPhysicalServices(deps: PhysicalServicesDeps) {
  const { storage, clock, config } = deps;
  return {
    signer: createPhysicalSigner({
      storage,
      clock,
      secretBox: deps.secretBox,
      bits: config.physicalKeyBits,
      ephemeral: config.physicalSignerEphemeral,
    }),
    actors: createPhysicalActors({ storage, clock }),
    tickets: createPhysicalTickets({ storage, clock, approvalUrl: config.approvalUrl }),
    ticketRequests: createTicketRequests({ storage }),
    audit: createPhysicalAudit({ storage, clock }),
    revocations: createPhysicalRevocations({ storage, clock }),
    snapshots: createPhysicalSnapshots({ storage, clock }),
    idempotency: createPhysicalIdempotency({ idempotency: deps.idempotency }),
  };
}

export type PhysicalServices = ReturnType<typeof createPhysicalServices>;
