/**
 * Two-person review of intent policy versions (contract §16), as pure rules: a version's status,
 * and whether it may be activated now.
 */

export type PolicyVersionStatus = 'draft' | 'approved' | 'rejected' | 'active' | 'inactive';

export interface ReviewedVersion {
  version: number;
  /** Null when the version was never active. */
  activatedAtMs: number | null;
  /** Approvals it needs when it was created under review; null when it was created without. */
  reviewApprovals: number | null;
}

export interface Review {
  principalId: string;
  decision: 'approve' | 'reject';
}

/** The distinct principals that approved. */
export function approvalsOf(reviews: readonly Review[]): number {
  return new Set(reviews.filter((r) => r.decision === 'approve').map((r) => r.principalId)).size;
}

/**
 * active (the tenant's active version) > inactive (was active before, or needs no review: created
 * without review while none is required) > rejected (any reviewer rejected it) > approved (the
 * distinct approvals activation needs now) > draft. A version saved before review was required
 * needs the setting's approvals like a new one (`activationRefusal`).
 */
export function versionStatus(
  version: ReviewedVersion,
  activeVersion: number | null,
  reviews: readonly Review[],
  setting: { required: boolean; approvals: number },
): PolicyVersionStatus {
  if (version.version === activeVersion) return 'active';
  if (version.activatedAtMs !== null) return 'inactive';
  if (reviews.some((r) => r.decision === 'reject')) return 'rejected';
  const needed = setting.required
    ? Math.max(setting.approvals, version.reviewApprovals ?? 0)
    : version.reviewApprovals;
  if (needed === null) return 'inactive';
  return approvalsOf(reviews) >= needed ? 'approved' : 'draft';
}

/**
 * Why activating the version now is refused, or undefined when it may be. Without a review
 * requirement anything may be activated; a version that was active before is a rollback and needs
 * no new review; otherwise it needs no rejection and as many distinct approvals as the larger of
 * the tenant's setting and what the version was created with.
 */
export function activationRefusal(
  version: ReviewedVersion,
  reviews: readonly Review[],
  setting: { required: boolean; approvals: number },
): string | undefined {
  if (!setting.required || version.activatedAtMs !== null) return undefined;
  if (reviews.some((r) => r.decision === 'reject')) {
    return `Policy version ${version.version} was rejected in review`;
  }
  const needed = Math.max(setting.approvals, version.reviewApprovals ?? 0);
  const got = approvalsOf(reviews);
  if (got < needed) {
    return `Policy version ${version.version} needs ${needed} approval${needed === 1 ? '' : 's'} before activation (has ${got})`;
  }
  return undefined;
}
