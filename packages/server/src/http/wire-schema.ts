import type { WireRoute } from '@authority-runtime/sdk/wire';
import type { TSchema } from 'typebox';

/**
 * The schemas of a wire route as Fastify route options (`schema:`): the service validates
 * parameters, query, headers and body with the SDK's wire contract, and serializes each answer with
 * the wire schema of its status, so requests, answers, the OpenAPI document and the SDK's types
 * have one source. Request members keep their wire types in handlers; answers are typed only as
 * "some answer of the route" here, because several domain types are still wider than the wire
 * (strings where the wire has enums): the serializer and the answer-conformance test
 * (`test/client/answer-conformance.test.ts`) hold every answer to the wire schema at run time.
 *
 * @example
 * ```ts
 * app.get('/tenant', { config: needs('tenant:read'), schema: wireSchema(WIRE_ROUTES.getTenant) }, handler);
 * ```
 */
export function wireSchema<R extends WireRoute>(route: R): WireSchema<R> {
  return route.schema as WireSchema<R>;
}

type WireSchema<R extends WireRoute> = Omit<R['schema'], 'response'> & {
  response: Readonly<Record<number, TSchema>>;
};
