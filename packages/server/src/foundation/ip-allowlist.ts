import ipaddr from 'ipaddr.js';
import type { ValidationIssue } from '../errors/app-error.js';

/** A parsed CIDR block: network address and prefix length. */
export type CidrBlock = [ipaddr.IPv4 | ipaddr.IPv6, number];

export const MAX_ALLOWLIST_ENTRIES = 100;

/** Dotted-quad IPv4 only: ipaddr.js would also take "10.1" or "0x0a.0.0.1", which nobody means here. */
function parseStrictAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (text.includes(':')) {
    // Zone ids (fe80::1%eth0) name an interface of one host, not a network.
    if (text.includes('%') || !ipaddr.IPv6.isValid(text)) return undefined;
    return ipaddr.IPv6.parse(text);
  }
  return ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : undefined;
}

/**
 * One allowlist entry, `10.0.0.0/8`, `2001:db8::/32` or a bare address (a /32 or /128), as the
 * canonical network form (`10.1.2.3/8` becomes `10.0.0.0/8`); undefined when it is none of these.
 */
export function normalizeCidr(entry: string): string | undefined {
  const text = entry.trim();
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const address = parseStrictAddress(addressText);
  if (address === undefined) return undefined;
  const maxBits = address.kind() === 'ipv4' ? 32 : 128;
  let bits = maxBits;
  if (slash !== -1) {
    const bitsText = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(bitsText)) return undefined;
    bits = Number(bitsText);
    if (bits > maxBits) return undefined;
  }
  const network =
    address.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
  return `${network.toString()}/${bits}`;
}

/** Checks and normalizes a whole list: duplicates collapse, order is kept, every bad entry is named. */
export function parseAllowlist(entries: readonly string[]): { cidrs: string[]; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const cidrs: string[] = [];
  if (entries.length > MAX_ALLOWLIST_ENTRIES) {
    issues.push({ path: '/cidrs', message: `at most ${MAX_ALLOWLIST_ENTRIES} entries` });
    return { cidrs, issues };
  }
  entries.forEach((entry, index) => {
    const normalized = normalizeCidr(entry);
    if (normalized === undefined) {
      issues.push({
        path: `/cidrs/${index}`,
        message: 'must be an IPv4 or IPv6 address or CIDR block (e.g. 203.0.113.0/24, 2001:db8::/32)',
      });
    } else if (!cidrs.includes(normalized)) {
      cidrs.push(normalized);
    }
  });
  return { cidrs, issues };
}

/** Parses stored (already normalized) entries; anything unreadable is skipped, never widened. */
export function toBlocks(cidrs: readonly string[]): CidrBlock[] {
  const blocks: CidrBlock[] = [];
  for (const cidr of cidrs) {
    const normalized = normalizeCidr(cidr);
    if (normalized !== undefined) blocks.push(ipaddr.parseCIDR(normalized));
  }
  return blocks;
}

/** An address in its plain form: IPv4-mapped IPv6 (`::ffff:10.0.0.1`) becomes IPv4. */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!ipaddr.isValid(text) || text.includes('%')) return undefined;
  return ipaddr.process(text);
}

/** True when the address falls in one of the blocks. An empty list allows every address. */
export function allowlistAllows(blocks: readonly CidrBlock[], address: string): boolean {
  if (blocks.length === 0) return true;
  const parsed = parseAddress(address);
  if (parsed === undefined) return false;
  return blocks.some(([network, bits]) => {
    if (parsed instanceof ipaddr.IPv4) return network instanceof ipaddr.IPv4 && parsed.match(network, bits);
    return network instanceof ipaddr.IPv6 && parsed.match(network, bits);
  });
}
