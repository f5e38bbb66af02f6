import type { AuditService } from '../../audit/audit-service.js';
import {
  buildEvidenceBundle,
  buildReceipt,
  type EvidenceBundle,
  type Receipt,
} from '../../audit/evidence.js';
import { chainRepository } from '../../chain/chain-repository.js';
import { AppError } from '../../errors/app-error.js';
import type { Clock } from '../../foundation/clock.js';
import type { Storage } from '../../storage/database.js';
import type { SigningKeyService } from '../../tokens/signing-keys.js';
import type { TenantSecrets } from '../../tokens/tenant-secrets.js';
import type { TransparencyService } from '../../transparency/transparency-service.js';
import { intentStatus } from '../domain/escalation-views.js';
import { intentRepository } from '../repositories/intent-repository.js';

/** Evidence bundles and offline-verifiable receipts of one intent (contract §6). */
export function createIntentEvidence(deps: {
  storage: Storage;
  clock: Clock;
  audit: AuditService;
  signingKeys: SigningKeyService;
  secrets: TenantSecrets;
  transparency: TransparencyService;
}) {
  const { storage, clock } = deps;

  async function intentOrNotFound(tenantId: string, intentId: string) {
    const intent = await intentRepository.get(storage.db, tenantId, intentId);
    if (!intent) throw new AppError('NOT_FOUND', 'No such intent');
    return intent;
  }

  return {
    async evidenceBundle(tenantId: string, intentId: string): Promise<EvidenceBundle> {
      await intentOrNotFound(tenantId, intentId);
      const events = await deps.audit.entriesForIntent(tenantId, intentId);
      const secret = await deps.secrets.active(tenantId, 'evidence');
      return buildEvidenceBundle(tenantId, intentId, events, secret, clock());
    },

    async receipt(tenantId: string, intentId: string): Promise<Receipt> {
      const intent = await intentOrNotFound(tenantId, intentId);
      const status = intentStatus(intent, clock());
      if (status === 'ESCALATED') {
        throw new AppError('CONFLICT', 'The intent is escalated and awaits a human decision; no receipt yet');
      }
      const entries = await deps.audit.entriesForIntent(tenantId, intentId);
      const head = await chainRepository.head(storage.db, tenantId);
      if (!head || entries.length === 0)
        throw new AppError('CONFLICT', 'The intent has no audit entries yet');
      const treeSize = head.lastIndex + 1;
      const [signer, current, archive, checkpoint, inclusion] = await Promise.all([
        deps.signingKeys.signer(tenantId),
        deps.signingKeys.jwks(tenantId),
        deps.signingKeys.archive(tenantId),
        deps.transparency.checkpointAt(tenantId, treeSize),
        Promise.all(
          entries.map(async (entry) => {
            const { proof } = await deps.transparency.inclusionProof(tenantId, entry.index, treeSize);
            return { index: entry.index, proof };
          }),
        ),
      ]);
      return buildReceipt({
        tenantId,
        intentId,
        // An approved escalation's receipt says APPROVED once its token exists; before that, and
        // for refused or lapsed ones, it carries the reviewed status.
        decision: intent.token !== null ? 'APPROVED' : status,
        token: intent.token,
        entries,
        head: { index: head.lastIndex, hash: head.lastHash },
        signer,
        jwks: { keys: [...current.keys, ...archive.keys] },
        checkpoint,
        inclusion,
        nowMs: clock(),
      });
    },
  };
}

export type IntentEvidence = ReturnType<typeof createIntentEvidence>;
