import { ExportLine, WIRE_ROUTE_LIST, type WireRoute } from '@authority-runtime/sdk/wire';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

/** One answer the service gave a client call, as it came over the wire. */
export interface RecordedAnswer {
  route: WireRoute;
  status: number;
  text: string;
}

/**
 * A copy of a JSON Schema in which every object with listed `properties` refuses other members, so
 * that an answer carrying a field the contract does not describe fails the check.
 */
export function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = strict(value);
  if ('properties' in out && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

/** The wire route of a request: method and path (the `/v1` prefix ignored) against every route's pattern. */
export function routeOf(method: string, pathname: string): WireRoute | undefined {
  const path = pathname.replace(/^\/v1(?=\/)/, '');
  return WIRE_ROUTE_LIST.find((route) => {
    if (route.method !== method) return false;
    const pattern = route.path.replace(/[.]/g, '\\.').replace(/:[A-Za-z]+/g, '[^/]+');
    return new RegExp(`^${pattern}$`).test(path);
  });
}

/** A `fetch` that records every answer with its wire route, for the conformance check. */
export function recordingFetch(answers: RecordedAnswer[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const route = routeOf(init?.method ?? 'GET', url.pathname);
    if (!route) throw new Error(`no wire route for ${init?.method} ${url.pathname}`);
    answers.push({ route, status: response.status, text: await response.clone().text() });
    return response;
  };
}

const compiled = new Map<TSchema, ReturnType<typeof Compile>>();
function checker(schema: TSchema) {
  let found = compiled.get(schema);
  if (!found) {
    found = Compile(strict(JSON.parse(JSON.stringify(schema))) as TSchema);
    compiled.set(schema, found);
  }
  return found;
}

/**
 * Checks one recorded answer against the contract: its status must be one the route documents and
 * its body must match that status's schema, with no member the schema does not describe. Returns
 * what is wrong, or `undefined`.
 */
export function conformanceProblem(answer: RecordedAnswer): string | undefined {
  const { route, status, text } = answer;
  const schema = route.schema.response[status];
  const at = `${route.operationId} ${status}`;
  if (schema === undefined) return `${at}: the contract does not document this status`;
  if (status === 204) return text === '' ? undefined : `${at}: a body on 204`;
  const values =
    route.produces === 'application/x-ndjson' && status === 200
      ? text
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => ({ value: JSON.parse(line) as unknown, check: checker(ExportLine) }))
      : route.produces === 'text/plain' && status === 200
        ? [{ value: text as unknown, check: checker(schema) }]
        : [{ value: JSON.parse(text) as unknown, check: checker(schema) }];
  for (const { value, check } of values) {
    if (!check.Check(value)) {
      const errors = check.Errors(value).slice(0, 3);
      return `${at}: ${JSON.stringify(errors)} in ${JSON.stringify(value).slice(0, 600)}`;
    }
  }
  return undefined;
}
