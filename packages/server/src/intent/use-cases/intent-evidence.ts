import type { AuditService } from '../../audit/audit-service.js';
import {
  buildEvidenceBundle,
  buildReceipt,
  type EvidenceBundle,
  type Receipt,
} from '../../audit/evidence.js';
import { chainRepository } from '../../chain/chain-repository.js';
import { canonicalJson, sha256Hex } from '../../crypto/canonical-json.js';
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

  /**
   * The intent and its audit entries as of one moment: the intent is read again after its entries
   * and the pair read anew if it changed in between (a token minted, a human decision), so a
   * receipt never pairs an intent row with entries of another state of it. An intent changes a
   * few times in its life, so this ends.
   */
  async function intentWithItsEntries(tenantId: string, intentId: string) {
    let intent = await intentOrNotFound(tenantId, intentId);
    for (;;) {
      const status = intentStatus(intent, clock());
      if (status === 'ESCALATED') {
        throw new AppError('CONFLICT', 'The intent is escalated and awaits a human decision; no receipt yet');
      }
      const entries = await deps.audit.entriesForIntent(tenantId, intentId);
      const again = await intentOrNotFound(tenantId, intentId);
      if (
        again.updatedAt === intent.updatedAt &&
        again.token === intent.token &&
        again.status === intent.status
      )
        return { intent, entries, status };
      intent = again;
    }
  }

  return {
    async evidenceBundle(tenantId: string, intentId: string): Promise<EvidenceBundle> {
      await intentOrNotFound(tenantId, intentId);
      const events = await deps.audit.entriesForIntent(tenantId, intentId);
      // The bundle's signature vouches for its events: an entry that no longer matches its own
      // hash (altered where it is stored) is refused, never signed anew.
      const altered = events.find(({ entryHash, ...rest }) => sha256Hex(canonicalJson(rest)) !== entryHash);
      if (altered !== undefined) {
        throw new AppError(
          'CONFLICT',
          `Audit entry ${altered.index} of this intent does not match its hash: the chain is broken there (POST /audit/verify-chain), so no evidence bundle is signed over it`,
          { reason: 'chain_broken', brokenAt: altered.index },
        );
      }
      const secret = await deps.secrets.active(tenantId, 'evidence');
      return buildEvidenceBundle(tenantId, intentId, events, secret, clock());
    },

    async receipt(tenantId: string, intentId: string): Promise<Receipt> {
      const { intent, entries, status } = await intentWithItsEntries(tenantId, intentId);
      const head = await chainRepository.head(storage.db, tenantId);
      if (!head || entries.length === 0)
        throw new AppError('CONFLICT', 'The intent has no audit entries yet');
      const treeSize = head.lastIndex + 1;
      // The keys are read after the signer, so the embedded set holds the signer's key whatever
      // rotation commits meanwhile (keys are never deleted).
      const signer = await deps.signingKeys.signer(tenantId);
      const [keys, checkpoint, inclusion] = await Promise.all([
        deps.signingKeys.allPublicKeys(tenantId),
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
        jwks: keys,
        checkpoint,
        inclusion,
        nowMs: clock(),
      });
    },
  };
}

export type IntentEvidence = ReturnType<typeof createIntentEvidence>;
