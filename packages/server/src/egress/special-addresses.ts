/**
 * Which addresses an outbound call may reach without an operator's say-so (contract §7): the
 * globally reachable ones, per the IANA IPv4 and IPv6 Special-Purpose Address Registries
 * (https://www.iana.org/assignments/iana-ipv4-special-registry,
 * https://www.iana.org/assignments/iana-ipv6-special-registry), plus multicast, limited broadcast
 * and everything IPv6 outside global unicast (2000::/3), which those registries do not list.
 *
 * IPv6 forms that carry an IPv4 address are judged by the IPv4 address, since that is where a
 * packet ends up: IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96, deprecated but still
 * routed by some stacks to the IPv4 address), IPv4-translated (::ffff:0:0:0/96), the NAT64
 * well-known prefix (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32: its server and its
 * obfuscated client address; both must pass).
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Embedded = 'last32' | '6to4' | 'teredo';

interface Block {
  readonly net: Address;
  readonly bits: number;
  /** Globally reachable per the registry; ignored when `embeds` is set. */
  readonly global: boolean;
  readonly embeds?: Embedded;
}

function block(cidr: string, global: boolean, embeds?: Embedded): Block {
  const [net, bits] = ipaddr.parseCIDR(cidr);
  return embeds === undefined ? { net, bits, global } : { net, bits, global, embeds };
}

const IPV4_BLOCKS: readonly Block[] = [
  block('0.0.0.0/8', false), // "this network"
  block('10.0.0.0/8', false), // private-use
  block('100.64.0.0/10', false), // shared address space
  block('127.0.0.0/8', false), // loopback
  block('169.254.0.0/16', false), // link local
  block('172.16.0.0/12', false), // private-use
  block('192.0.0.0/24', false), // IETF protocol assignments
  block('192.0.0.9/32', true), // port control protocol anycast
  block('192.0.0.10/32', true), // traversal using relays around NAT anycast
  block('192.0.2.0/24', false), // documentation (TEST-NET-1)
  block('192.31.196.0/24', true), // AS112-v4
  block('192.52.193.0/24', true), // AMT
  block('192.88.99.0/24', false), // deprecated 6to4 relay anycast
  block('192.168.0.0/16', false), // private-use
  block('192.175.48.0/24', true), // direct delegation AS112 service
  block('198.18.0.0/15', false), // benchmarking
  block('198.51.100.0/24', false), // documentation (TEST-NET-2)
  block('203.0.113.0/24', false), // documentation (TEST-NET-3)
  block('224.0.0.0/4', false), // multicast
  block('240.0.0.0/4', false), // reserved
  block('255.255.255.255/32', false), // limited broadcast
];

const IPV6_BLOCKS: readonly Block[] = [
  block('::/128', false), // unspecified
  block('::1/128', false), // loopback
  block('::/96', false, 'last32'), // IPv4-compatible (deprecated)
  block('::ffff:0:0/96', false, 'last32'), // IPv4-mapped
  block('::ffff:0:0:0/96', false, 'last32'), // IPv4-translated
  block('64:ff9b::/96', false, 'last32'), // IPv4-IPv6 translation (NAT64)
  block('64:ff9b:1::/48', false), // local-use IPv4-IPv6 translation
  block('100::/64', false), // discard-only
  block('100:0:0:1::/64', false), // dummy IPv6 prefix
  block('2000::/3', true), // global unicast
  block('2001::/23', false), // IETF protocol assignments
  block('2001::/32', false, 'teredo'), // Teredo
  block('2001:1::1/128', true), // port control protocol anycast
  block('2001:1::2/128', true), // traversal using relays around NAT anycast
  block('2001:1::3/128', true), // DNS-SD service registration protocol anycast
  block('2001:2::/48', false), // benchmarking
  block('2001:3::/32', true), // AMT
  block('2001:4:112::/48', true), // AS112-v6
  block('2001:10::/28', false), // deprecated ORCHID
  block('2001:20::/28', true), // ORCHIDv2
  block('2001:30::/28', true), // drone remote ID protocol entity tags
  block('2001:db8::/32', false), // documentation
  block('2002::/16', false, '6to4'), // 6to4
  block('2620:4f:8000::/48', true), // direct delegation AS112 service
  block('3fff::/20', false), // documentation
  block('5f00::/16', false), // segment routing SIDs
  block('fc00::/7', false), // unique-local
  block('fe80::/10', false), // link-local unicast
];

/** The most specific block holding the address, or undefined. */
function blockOf(address: Address): Block | undefined {
  let best: Block | undefined;
  for (const candidate of address.kind() === 'ipv4' ? IPV4_BLOCKS : IPV6_BLOCKS) {
    if (candidate.net.kind() !== address.kind()) continue;
    if ((best === undefined || candidate.bits > best.bits) && address.match(candidate.net, candidate.bits)) {
      best = candidate;
    }
  }
  return best;
}

function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function embedded(address: ipaddr.IPv6, form: Embedded): ipaddr.IPv4[] {
  const p = address.parts;
  const part = (i: number) => p[i] ?? 0;
  switch (form) {
    case 'last32':
      return [ipv4Of(part(6), part(7))];
    case '6to4':
      return [ipv4Of(part(1), part(2))];
    case 'teredo':
      return [ipv4Of(part(2), part(3)), ipv4Of(part(6) ^ 0xffff, part(7) ^ 0xffff)];
  }
}

/**
 * Where a connection to `address` ends up, as the addresses to judge: the address itself, or the
 * IPv4 addresses an IPv6 form carries. Each comes with whether it is globally reachable.
 */
export function reachedAddresses(address: string): Array<{ address: Address; global: boolean }> {
  const parsed = ipaddr.parse(address);
  const found = blockOf(parsed);
  if (found?.embeds !== undefined && parsed.kind() === 'ipv6') {
    return embedded(parsed as ipaddr.IPv6, found.embeds).map((inner) => ({
      address: inner,
      global: blockOf(inner)?.global ?? true,
    }));
  }
  // IPv4 outside every special block is global; IPv6 outside every block is outside 2000::/3.
  return [{ address: parsed, global: found?.global ?? parsed.kind() === 'ipv4' }];
}
