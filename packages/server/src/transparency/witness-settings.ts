import {
  COSIGNATURE_V1_KEY_TYPE,
  parseVerifierKey,
  type WitnessConfig,
  type WitnessConfigRequest,
} from '@authority-runtime/sdk';
import { principalEvent } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import { type EgressClient, EgressRefusedError, withoutQuery } from '../egress/egress-client.js';
import { type ValidationIssue, validationError } from '../errors/app-error.js';
import type { Clock } from '../foundation/clock.js';
import type { Principal } from '../identity/principal.js';
import type { Storage } from '../storage/database.js';
import { witnessRepository } from './witness-repository.js';

/** Why a witness URL is refused, or undefined when the egress guard would let the pusher reach it. */
async function urlProblem(egress: EgressClient, raw: string): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return 'url must be an absolute http or https URL';
  if (url.username !== '' || url.password !== '') return 'url must not carry a user name or password';
  try {
    await egress.checkTarget(url.href);
  } catch (error) {
    return error instanceof EgressRefusedError
      ? 'url points to a private, loopback or link-local address; the operator can allow it with EGRESS_ALLOW_CIDRS or ALLOW_PRIVATE_EGRESS'
      : 'the host of url could not be resolved';
  }
  return undefined;
}

/** The witnesses of a tenant's transparency log: `PUT /audit/witnesses` (contract §15). */
export function createWitnessSettings(deps: { storage: Storage; clock: Clock; egress: EgressClient }) {
  const { storage, clock, egress } = deps;

  async function read(tenantId: string): Promise<WitnessConfig> {
    const set = await witnessRepository.get(storage.db, tenantId);
    return {
      quorum: set?.quorum ?? 0,
      witnesses: (set?.witnesses ?? []).map((w) => ({
        name: w.name,
        url: w.url,
        verifierKey: w.verifier_key,
        cosignedSize: w.cosigned_size,
        lastError: w.last_error,
      })),
    };
  }

  return {
    read,

    /**
     * Replaces the witnesses and quorum; 400 naming the field for a key that is not a cosignature
     * (0x04) key of the witness's name, a repeated name, a URL the egress guard refuses, or a
     * quorum above the number of witnesses. Audited as `audit.witnesses.changed`.
     */
    async replace(
      tenantId: string,
      principal: Principal,
      request: WitnessConfigRequest,
    ): Promise<WitnessConfig> {
      const issues: ValidationIssue[] = [];
      const seen = new Set<string>();
      for (const [i, witness] of request.witnesses.entries()) {
        try {
          const key = parseVerifierKey(witness.verifierKey);
          if (key.type !== COSIGNATURE_V1_KEY_TYPE) {
            issues.push({
              path: `/witnesses/${i}/verifierKey`,
              message: 'verifierKey must be a cosignature (0x04) key',
            });
          } else if (key.name !== witness.name) {
            issues.push({
              path: `/witnesses/${i}/name`,
              message: `name must be the key's name, ${key.name}`,
            });
          }
        } catch (error) {
          issues.push({
            path: `/witnesses/${i}/verifierKey`,
            message: `verifierKey: ${(error as Error).message}`,
          });
        }
        if (seen.has(witness.name))
          issues.push({ path: `/witnesses/${i}/name`, message: 'names must be unique' });
        seen.add(witness.name);
        const problem = await urlProblem(egress, witness.url);
        if (problem) issues.push({ path: `/witnesses/${i}/url`, message: problem });
      }
      if (request.quorum > request.witnesses.length) {
        issues.push({ path: '/quorum', message: 'quorum must not exceed the number of witnesses' });
      }
      if (issues.length > 0) throw validationError(issues);
      const now = clock();
      await storage.writeTransaction(async (trx) => {
        await witnessRepository.replace(trx, tenantId, request, now);
        const audited = request.witnesses.map((w) => ({
          name: w.name,
          url: withoutQuery(w.url),
          verifierKey: w.verifierKey,
        }));
        await chainRepository.append(
          trx,
          tenantId,
          [
            principalEvent(principal, 'audit.witnesses.changed', {
              witnesses: audited,
              quorum: request.quorum,
            }),
          ],
          now,
        );
      });
      return read(tenantId);
    },
  };
}

export type WitnessSettings = ReturnType<typeof createWitnessSettings>;
