import { principalEvent } from '../../chain/audit-entry.js';
import { chainRepository } from '../../chain/chain-repository.js';
import { AppError } from '../../errors/app-error.js';
import { isUniqueViolation } from '../../errors/database-errors.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import type { Storage } from '../../storage/database.js';
import { policyRepository } from '../repositories/policy-repository.js';
import {
  type PolicyReviewSetting,
  policyReviewRepository,
} from '../repositories/policy-review-repository.js';
import type { PolicyStore, PolicyVersion } from './policy-store.js';

export interface ReviewSettingView {
  tenantId: string;
  required: boolean;
  approvals: 1 | 2;
  updatedAt: string | null;
  updatedBy: string | null;
}

function settingView(tenantId: string, setting: PolicyReviewSetting): ReviewSettingView {
  return {
    tenantId,
    required: setting.required,
    approvals: setting.approvals,
    updatedAt: setting.updatedAtMs === null ? null : new Date(setting.updatedAtMs).toISOString(),
    updatedBy: setting.updatedBy,
  };
}

/**
 * Two-person review of intent policy versions (contract §16): the tenant's setting, and the
 * reviews, each by a principal other than the version's author, once per principal. Activation
 * itself (and its `review_required` refusal) is the policy store's.
 */
export function createPolicyReviews(deps: { storage: Storage; clock: Clock; policies: PolicyStore }) {
  const { storage, clock, policies } = deps;

  return {
    /** `PUT /authority/policy-review/:tenantId` (owner). */
    async setSetting(
      principal: Principal,
      body: { required: boolean; approvals?: 1 | 2 | undefined },
    ): Promise<ReviewSettingView> {
      const tenantId = principal.tenantId;
      const now = clock();
      const setting = { required: body.required, approvals: body.approvals ?? 1, updatedAtMs: now };
      await storage.writeTransaction(async (trx) => {
        await chainRepository.lockHead(trx, tenantId, now);
        await policyReviewRepository.putSetting(trx, tenantId, { ...setting, updatedBy: principal.id });
        await chainRepository.append(
          trx,
          tenantId,
          [
            principalEvent(principal, 'policy.review.configured', {
              required: setting.required,
              approvals: setting.approvals,
            }),
          ],
          now,
        );
      });
      return settingView(tenantId, { ...setting, updatedBy: principal.id });
    },

    /** `POST /authority/policy/versions/:version/reviews`. */
    async review(
      principal: Principal,
      version: number,
      body: { decision: 'approve' | 'reject'; comment: string },
    ): Promise<PolicyVersion> {
      const tenantId = principal.tenantId;
      await policies.active(tenantId);
      const now = clock();
      try {
        await storage.writeTransaction(async (trx) => {
          await chainRepository.lockHead(trx, tenantId, now);
          const row = await policyRepository.get(trx, tenantId, version);
          if (!row) throw new AppError('NOT_FOUND', `No policy version ${version}`);
          if (row.createdBy === principal.id) {
            throw new AppError('FORBIDDEN', 'The author of a policy version cannot review it', {
              reason: 'separation_of_duties',
            });
          }
          if (row.activatedAtMs !== null) {
            throw new AppError(
              'CONFLICT',
              `Policy version ${version} has been active already; it needs no review`,
              {
                reason: 'not_reviewable',
              },
            );
          }
          await policyReviewRepository.insert(trx, tenantId, {
            version,
            principalId: principal.id,
            decision: body.decision,
            comment: body.comment,
            createdAtMs: now,
          });
          await chainRepository.append(
            trx,
            tenantId,
            [
              principalEvent(principal, 'policy.reviewed', {
                version,
                decision: body.decision,
                comment: body.comment,
              }),
            ],
            now,
          );
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        throw new AppError('CONFLICT', `You reviewed policy version ${version} already`, {
          reason: 'already_reviewed',
        });
      }
      return policies.version(tenantId, version);
    },
  };
}

export type PolicyReviews = ReturnType<typeof createPolicyReviews>;
