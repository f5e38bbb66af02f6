import { randomUUID } from 'node:crypto';
import type { Call, CallOptions, Transport } from './transport.js';
import { errorFromAnswer } from './transport.js';

/**
 * @internal
 * What every resource group of {@link AuthorityClient} shares: the transport, the tenant, and a
 * call that expects one of the route's success statuses and throws {@link AuthorityApiError}
 * otherwise. Answers are typed by the wire contract and not re-validated at run time.
 */
export abstract class Resource {
  protected readonly transport: Transport;
  protected readonly tenantId: string;

  constructor(transport: Transport, tenantId: string) {
    this.transport = transport;
    this.tenantId = tenantId;
  }

  /** Sends `call` and resolves its body when the status is one of `ok`. */
  protected async expect<T>(call: Call, ok: readonly number[] = [200]): Promise<T> {
    const answer = await this.transport.send(call);
    if (!ok.includes(answer.status)) throw errorFromAnswer(answer);
    return answer.body as T;
  }
}

/**
 * A fresh `Idempotency-Key`: a random UUID, so that two logical requests never share one.
 *
 * @example
 * ```ts
 * import { newIdempotencyKey } from '@authority-runtime/sdk';
 *
 * const key = newIdempotencyKey(); // keep it to retry the same submission later
 * await client.submitIntent(request, { idempotencyKey: key });
 * ```
 */
export function newIdempotencyKey(): string {
  return randomUUID();
}

/** {@link CallOptions} of a call that takes an `Idempotency-Key`. */
export interface IdempotentCallOptions extends CallOptions {
  /** Reuse it to repeat the same logical request (the service replays its answer); one is generated when absent. */
  idempotencyKey?: string;
}
