/**
 * `revokedAtMs` of a new revocation (contract §9): the server clock, but strictly after the
 * tenant's previous revocation, so that verifiers paging with `since` (exclusive) never skip one.
 * Assigned inside the transaction that serializes the tenant's revocations.
 */
export function nextRevokedAtMs(nowMs: number, previousRevokedAtMs: number | null): number {
  return previousRevokedAtMs === null ? nowMs : Math.max(nowMs, previousRevokedAtMs + 1);
}
