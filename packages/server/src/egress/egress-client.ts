import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { CidrBlock } from '../foundation/ip-allowlist.js';
import { withTraceHeaders } from '../foundation/tracing.js';
import { reachedAddresses } from './special-addresses.js';

/** Resolves a host name to addresses; injectable so tests can prove refusals happen before connecting. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true })).map((a) => a.address);

export interface EgressPolicy {
  /** ALLOW_PRIVATE_EGRESS=1: private and loopback targets allowed (development and tests). */
  allowPrivate: boolean;
  /** EGRESS_ALLOW_CIDRS: private ranges opened on purpose (an on-premises Vault, GitHub Enterprise). */
  allowCidrs: CidrBlock[];
}

export class EgressRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EgressRefusedError';
  }
}

export class EgressTimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'EgressTimeoutError';
  }
}

/**
 * True when an address may be connected to under the policy: every address a connection to it
 * reaches (special-addresses.ts: an IPv6 form carrying IPv4 is judged by the IPv4 address) is
 * globally reachable or inside EGRESS_ALLOW_CIDRS.
 */
export function isAddressAllowed(address: string, policy: EgressPolicy): boolean {
  if (policy.allowPrivate) return true;
  return reachedAddresses(address).every(
    ({ address: reached, global }) =>
      global ||
      policy.allowCidrs.some(([net, bits]) => net.kind() === reached.kind() && reached.match(net, bits)),
  );
}

export interface EgressResponse {
  status: number;
  /** The answer's body, at most its first MAX_RESPONSE_BYTES. */
  body: string;
  /**
   * True when the body was not read to its end: it was longer than MAX_RESPONSE_BYTES, or it was
   * still arriving at the deadline (the status stands: the peer did answer).
   */
  truncated: boolean;
  /** Response headers, names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
}

export interface EgressRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

function responseHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * At most this much of an answer is read: the rest is left unread and the answer keeps its status
 * (a receiver that answered 200 with a large body did receive the call).
 */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface EgressClient {
  request(request: EgressRequest): Promise<EgressResponse>;
  /**
   * Resolves the URL's host now and throws EgressRefusedError when the policy allows none of its
   * addresses (or the protocol is not http/https), so a configured target can be refused when it
   * is saved. The connect-time check of `request` still applies to every call.
   */
  checkTarget(url: string): Promise<void>;
}

/**
 * The one outbound HTTP client (webhooks, connectors, the GitHub baseUrl, external signers): resolves
 * the host itself, refuses private, loopback and link-local addresses at connect time (so DNS
 * rebinding does not help), follows no redirects and enforces a timeout over the whole exchange.
 */
export function createEgressClient(policy: EgressPolicy, resolver: Resolver = systemResolver): EgressClient {
  const lookup: LookupFunction = (hostname, options, callback) => {
    // Node calls lookup only for names: IP literals are checked by checkedTarget before connecting.
    resolver(hostname).then(
      (addresses) => {
        const allowed = addresses.filter((a) => isAddressAllowed(a, policy));
        if (allowed.length === 0) {
          callback(
            new EgressRefusedError(`refusing to connect to ${hostname}: private or reserved address`),
            '',
            4,
          );
          return;
        }
        const entries = allowed.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        if (options.all) callback(null, entries);
        else {
          const first = entries[0] as { address: string; family: number };
          callback(null, first.address, first.family);
        }
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };

  const checkedTarget = (url: string) => {
    const target = new URL(url);
    if (target.protocol !== 'https:' && target.protocol !== 'http:') {
      throw new EgressRefusedError(`unsupported protocol ${target.protocol}`);
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // IP literals bypass `lookup` in Node, so check them here before any socket is opened.
    if (ipaddr.isValid(host) && !isAddressAllowed(host, policy)) {
      throw new EgressRefusedError(`refusing to connect to ${host}: private or reserved address`);
    }
    return { target, host };
  };

  return {
    async checkTarget(url) {
      const { host } = checkedTarget(url);
      if (ipaddr.isValid(host)) return;
      const addresses = await resolver(host);
      if (!addresses.some((a) => isAddressAllowed(a, policy))) {
        throw new EgressRefusedError(`refusing to connect to ${host}: private or reserved address`);
      }
    },

    async request({ method, url, headers: given = {}, body, timeoutMs }) {
      const { target } = checkedTarget(url);
      // W3C `traceparent` of the active span (webhook delivery, connector execution) when tracing is on.
      const headers = withTraceHeaders(given);
      const transport = target.protocol === 'https:' ? https : http;
      return new Promise<EgressResponse>((resolve, reject) => {
        /** The answer so far, once its status and headers arrived. */
        let partial: (() => EgressResponse) | undefined;
        let settled = false;
        const settle = (outcome: () => void) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          outcome();
        };
        const req = transport.request(
          target,
          {
            method,
            // A body's length is known: sent as Content-Length, never chunked, so that receivers
            // that do not read chunked requests (simple witnesses and webhook endpoints) get it.
            headers:
              body === undefined
                ? headers
                : {
                    'content-type': 'application/json',
                    ...headers,
                    'content-length': String(Buffer.byteLength(body)),
                  },
            lookup,
            agent: false,
          },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            const answer = (truncated: boolean): EgressResponse => ({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              truncated,
              headers: responseHeaders(res.headers),
            });
            partial = () => answer(true);
            res.on('data', (chunk: Buffer) => {
              const room = MAX_RESPONSE_BYTES - size;
              if (chunk.length <= room) {
                chunks.push(chunk);
                size += chunk.length;
                return;
              }
              chunks.push(chunk.subarray(0, room));
              size = MAX_RESPONSE_BYTES;
              settle(() => resolve(answer(true)));
              req.destroy();
            });
            res.on('end', () => settle(() => resolve(answer(false))));
            res.on('error', (error) => settle(() => reject(error)));
          },
        );
        // One deadline over the whole exchange (an idle-socket timeout could never fire first).
        // An answer whose status arrived in time keeps it, with the body read so far: a peer that
        // answered 200 and trickles its body did receive the call.
        const timer = setTimeout(() => {
          const answered = partial;
          if (answered === undefined) {
            req.destroy(new EgressTimeoutError(timeoutMs));
            return;
          }
          settle(() => resolve(answered()));
          req.destroy();
        }, timeoutMs);
        req.on('error', (error) => settle(() => reject(error)));
        req.on('close', () => clearTimeout(timer));
        req.end(body);
      });
    },
  };
}

/** Origin and path only: receivers sometimes put a credential in the query string. */
export function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
