import { AppError } from '../errors/app-error.js';
import type { Principal } from '../identity/principal.js';

/** The authenticated principal of a tenant route (set by the authentication hook). */
export function principalOf(request: { principal: Principal | null }): Principal {
  if (request.principal === null) throw new AppError('UNAUTHORIZED');
  return request.principal;
}
