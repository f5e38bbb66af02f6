import { DEFAULT_CLOCK_SKEW_SECONDS } from '@authority-runtime/sdk';
import { decodeJwt, type JWTPayload } from 'jose';
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
import { tokenNonceRepository } from '../../tokens/token-nonce-repository.js';
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

  /**
   * A bundle's signature and a receipt's seal vouch for the entries they carry: an entry that no
   * longer matches its own hash (altered where it is stored) is refused, never signed anew.
   */
  function refuseAltered(entries: ReadonlyArray<{ index: number; entryHash: string }>, what: string): void {
    const altered = entries.find(({ entryHash, ...rest }) => sha256Hex(canonicalJson(rest)) !== entryHash);
    if (altered !== undefined) {
      throw new AppError(
        'CONFLICT',
        `Audit entry ${altered.index} of this intent does not match its hash: the chain is broken there (POST /audit/verify-chain), so no ${what} is signed over it`,
        { reason: 'chain_broken', brokenAt: altered.index },
      );
    }
  }

  /**
   * Until when the intent's token can still be consumed (its `exp` plus the verifiers' clock skew),
   * or undefined once it cannot: expired, or its nonce spent. The token is the service's own,
   * read from its record; one whose claims cannot be read counts as live.
   */
  async function liveUntil(tenantId: string, token: string): Promise<number | undefined> {
    let claims: JWTPayload = {};
    try {
      claims = decodeJwt(token);
    } catch {
      // Unreadable claims: the token is withheld like a live one.
    }
    const { exp, nonce } = claims;
    if (typeof exp !== 'number' || typeof nonce !== 'string') return Number.POSITIVE_INFINITY;
    const until = (exp + DEFAULT_CLOCK_SKEW_SECONDS) * 1000;
    if (clock() >= until) return undefined;
    return (await tokenNonceRepository.isConsumed(storage.db, tenantId, nonce)) ? undefined : until;
  }

  return {
    async evidenceBundle(tenantId: string, intentId: string): Promise<EvidenceBundle> {
      await intentOrNotFound(tenantId, intentId);
      const events = await deps.audit.entriesForIntent(tenantId, intentId);
      refuseAltered(events, 'evidence bundle');
      const secret = await deps.secrets.active(tenantId, 'evidence');
      return buildEvidenceBundle(tenantId, intentId, events, secret, clock());
    },

    /**
     * The receipt carries the intent's token. While that token can still be consumed, only the
     * principal that submitted the intent (the one `POST /intent/:id/token` serves, §4.8) gets it:
     * a read permission must not hand anyone else a single-use authorization to spend first.
     * Anyone else gets 409 until the token is consumed or has expired (at most five minutes).
     */
    async receipt(tenantId: string, intentId: string, readerId: string): Promise<Receipt> {
      const { intent, entries, status } = await intentWithItsEntries(tenantId, intentId);
      if (intent.token !== null && readerId !== intent.principalId) {
        const until = await liveUntil(tenantId, intent.token);
        if (until !== undefined) {
          const expires = Number.isFinite(until) ? new Date(until).toISOString() : undefined;
          throw new AppError(
            'CONFLICT',
            "The intent's token can still be consumed; until it is consumed or expires, only the principal that submitted the intent gets its receipt",
            { reason: 'token_live', ...(expires === undefined ? {} : { availableAt: expires }) },
          );
        }
      }
      const head = await chainRepository.head(storage.db, tenantId);
      if (!head || entries.length === 0)
        throw new AppError('CONFLICT', 'The intent has no audit entries yet');
      refuseAltered(entries, 'receipt');
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
