import { randomUUID } from 'node:crypto';
import type { Answer, Call, CallOptions, Transport } from './transport.js';
import { errorFromAnswer } from './transport.js';

/**
 * The JSON types a schema allows at its top (`type`, or the types of every member of an
 * `anyOf`), or undefined when it does not say.
 */
function topTypes(schema: unknown): string[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const { type, anyOf } = schema as { type?: unknown; anyOf?: unknown };
  if (typeof type === 'string') return [type];
  if (!Array.isArray(anyOf)) return undefined;
  const types: string[] = [];
  for (const member of anyOf) {
    const memberTypes = topTypes(member);
    if (memberTypes === undefined) return undefined;
    types.push(...memberTypes);
  }
  return types;
}

/** The JSON type of a parsed body, as a schema's `type` names it. */
function jsonType(body: unknown): string {
  if (body === null) return 'null';
  if (Array.isArray(body)) return 'array';
  if (typeof body === 'number') return Number.isInteger(body) ? 'integer' : 'number';
  return typeof body;
}

/**
 * Whether a body has a JSON type its wire schema allows at the top: a proxy's or a web server's
 * page answered 200 in place of the service is never handed back as a typed result. Members are
 * not re-validated, so a newer service may add some.
 */
function hasWireType(schema: unknown, body: unknown): boolean {
  const types = topTypes(schema);
  if (types === undefined) return true;
  const type = jsonType(body);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/**
 * @internal
 * What every resource group of {@link AuthorityClient} shares: the transport, the tenant, and a
 * call that expects one of the route's success statuses and throws {@link AuthorityApiError}
 * otherwise. Answers are typed by the wire contract; at run time only their JSON type (object,
 * array or nothing) is checked, and a body of another type is `INVALID_RESPONSE`.
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
    return expectedBody<T>(call, await this.transport.send(call), ok);
  }
}

/**
 * @internal
 * The body of `answer` to `call` when its status is one of `ok` and its JSON type is the one the
 * route answers with that status; else the {@link AuthorityApiError} to throw.
 */
export function expectedBody<T>(call: Call, answer: Answer, ok: readonly number[]): T {
  if (!ok.includes(answer.status)) throw errorFromAnswer(answer);
  const json = call.route.produces === 'application/json';
  if (json && !hasWireType(call.route.schema.response[answer.status], answer.body)) {
    throw errorFromAnswer(
      answer,
      `A ${answer.status} answer whose body does not have the JSON type of ${call.route.operationId}`,
    );
  }
  return answer.body as T;
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
