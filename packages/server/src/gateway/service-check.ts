import { AuthorityApiError, type AuthorityClient } from '@authority-runtime/sdk';
import { ConfigError } from '../config/config.js';

/** What the start-up probe found: the service took the credentials, or could not be asked. */
export type ServiceCheck = { ok: true } | { ok: false; reason: string };

/** The setting a definite refusal of `GET /tenant` points at, and what it says about it. */
function faultOf(error: AuthorityApiError): { setting: string; problem: string } {
  if (error.code === 'TENANT_MISMATCH') {
    return { setting: 'AUTHORITY_TENANT (--tenant)', problem: "is not the API key's tenant" };
  }
  if (error.status === 401 || error.status === 403) {
    return { setting: 'AUTHORITY_API_KEY (--key)', problem: 'is not accepted by the service' };
  }
  return { setting: 'AUTHORITY_URL (--base-url)', problem: 'does not answer as the service does' };
}

/**
 * Asks the service, once, whether it takes the gateway's URL, tenant and key (`GET /tenant`, which
 * any valid credential may read, contract §2). A definite refusal is a setting at fault: a
 * {@link ConfigError} naming it (exit 2, contract §11), so a wrong key or tenant shows at start
 * rather than as `authority unavailable` on every call. A service that cannot be asked (network
 * error, timeout, 5xx, 429) is not a bad setting: the gateway starts, and each call fails closed
 * until the service answers.
 */
export async function checkService(client: AuthorityClient): Promise<ServiceCheck> {
  let tenant: unknown;
  try {
    tenant = await client.tenant.get();
  } catch (error) {
    if (!(error instanceof AuthorityApiError)) throw error;
    if (error.retryable) return { ok: false, reason: `${error.code}: ${error.message}` };
    const { setting, problem } = faultOf(error);
    throw new ConfigError(
      setting,
      `${problem}: GET /tenant answered ${error.status} ${error.code} (${error.message})`,
    );
  }
  // The service answers its tenant: any other 200 (an object of another shape, another tenant) is
  // a URL that points somewhere else.
  const id = typeof tenant === 'object' && tenant !== null ? (tenant as { id?: unknown }).id : undefined;
  if (id !== client.tenantId) {
    throw new ConfigError(
      'AUTHORITY_URL (--base-url)',
      `does not answer as the service does: GET /tenant answered 200 without the tenant ${client.tenantId}`,
    );
  }
  return { ok: true };
}
