import type { FastifyRequest } from 'fastify';
import { allowlistAllows, type CidrBlock, parseAddress } from '../foundation/ip-allowlist.js';

/** Longest hop text kept when a forwarded hop cannot be parsed (it then matches no allowlist). */
const MAX_RAW_HOP_LENGTH = 64;

/** Membership in a non-empty list of blocks (an empty list would allow everything). */
function inBlocks(blocks: readonly CidrBlock[], address: string): boolean {
  return blocks.length > 0 && allowlistAllows(blocks, address);
}

/** `198.51.100.7:5123` → `198.51.100.7`; `[2001:db8::1]:443` → `2001:db8::1`; anything else unchanged. */
function withoutPort(hop: string): string {
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(hop);
  if (v4?.[1]) return v4[1];
  const v6 = /^\[([0-9A-Fa-f:.]+)\](?::\d{1,5})?$/.exec(hop);
  return v6?.[1] ?? hop;
}

function normalized(address: string): string {
  return parseAddress(address)?.toString() ?? address.slice(0, MAX_RAW_HOP_LENGTH);
}

/**
 * The client address of a request (contract section 2): the socket address, or, when the socket
 * peer is one of the trusted proxies (`TRUST_PROXY`), the rightmost `x-forwarded-for` hop outside
 * that list. A peer that is not a trusted proxy cannot speak for anyone else, so its header is
 * ignored. IPv4-mapped IPv6 addresses are given in IPv4 form. Pure.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustProxy: readonly CidrBlock[],
): string {
  const peer = normalized(socketAddress ?? '');
  if (trustProxy.length === 0 || forwardedFor === undefined || !inBlocks(trustProxy, peer)) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((hop) => withoutPort(hop.trim()))
    .filter((hop) => hop !== '');
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const hop = hops[index] ?? '';
    if (!inBlocks(trustProxy, hop)) return normalized(hop);
  }
  // Every hop is a trusted proxy: the leftmost is the farthest address known.
  return hops[0] === undefined ? peer : normalized(hops[0]);
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The client address, worked out once on first use (null until then). */
    clientAddress: string | null;
  }
}

/** The client address of a request, computed on first use and kept on the request. */
export function requestAddress(request: FastifyRequest, trustProxy: readonly CidrBlock[]): string {
  request.clientAddress ??= clientAddress(
    request.raw.socket?.remoteAddress,
    request.headers['x-forwarded-for'],
    trustProxy,
  );
  return request.clientAddress;
}
