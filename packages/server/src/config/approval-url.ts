/**
 * The console page where a human decides an escalation or a physical ticket (contract §9, §14):
 * `AUTHORITY_APPROVAL_URL` (default `<public base URL>/console/approvals`, kept without a trailing
 * slash) + "/" + the escalation or ticket id.
 */
export function approvalUrlOf(base: string, id: string): string {
  return `${base}/${encodeURIComponent(id)}`;
}
