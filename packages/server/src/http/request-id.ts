import type { IncomingMessage } from 'node:http';
import { v7 as uuidv7 } from 'uuid';

const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `x-request-id` when it is well-formed, else a fresh UUIDv7. */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && CALLER_REQUEST_ID.test(given) ? given : uuidv7();
}

/** Strips a leading `/v1` segment so `/v1/<path>` and `/<path>` reach the same handler. */
export function stripVersionPrefix(url: string): string {
  if (!/^\/v1(?=[/?#]|$)/.test(url)) return url;
  const rest = url.slice(3);
  return rest === '' || rest.startsWith('?') || rest.startsWith('#') ? `/${rest}` : rest;
}
