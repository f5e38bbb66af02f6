import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import ipaddr from 'ipaddr.js';
import {
  createEgressClient,
  type EgressPolicy,
  EgressRefusedError,
  isAddressAllowed,
} from '../../src/egress/egress-client.js';
import { reachedAddresses } from '../../src/egress/special-addresses.js';
import type { CidrBlock } from '../../src/foundation/ip-allowlist.js';

const closed: EgressPolicy = { allowPrivate: false, allowCidrs: [] };

describe('egress: every IPv6 form that carries IPv4 is judged by the IPv4 address', () => {
  test('IPv4-compatible, -mapped, -translated, NAT64, 6to4 and Teredo carrying private IPv4 are refused', () => {
    for (const address of [
      '::127.0.0.1',
      '::7f00:1',
      '::a00:1',
      '::a9fe:a9fe',
      '::c0a8:101',
      '::0.0.0.2',
      '::ffff:7f00:1',
      '::ffff:0:7f00:1',
      '::ffff:0:a00:1',
      '64:ff9b::7f00:1',
      '64:ff9b::10.0.0.1',
      '64:ff9b::169.254.169.254',
      '2002:7f00:1::1',
      '2002:a00:1:5::1',
      '2002:a9fe:a9fe::',
      // Teredo: server 127.0.0.1; client 8.8.8.8 obfuscated.
      '2001:0:7f00:1:0:0:f7f7:f7f7',
      // Teredo: server 8.8.8.8; client 10.0.0.1 obfuscated.
      '2001:0:808:808:0:0:f5ff:fffe',
    ]) {
      assert.equal(isAddressAllowed(address, closed), false, address);
    }
  });

  test('the same forms carrying a public IPv4 address are allowed, and name it', () => {
    for (const [address, inner] of [
      ['::8.8.8.8', ['8.8.8.8']],
      ['::ffff:0:808:808', ['8.8.8.8']],
      ['64:ff9b::808:808', ['8.8.8.8']],
      ['2002:808:808::1', ['8.8.8.8']],
      ['2001:0:808:808:0:0:f7f7:f7f7', ['8.8.8.8', '8.8.8.8']],
    ] as const) {
      assert.equal(isAddressAllowed(address, closed), true, address);
      assert.deepEqual(
        reachedAddresses(address).map((r) => r.address.toString()),
        inner,
        address,
      );
    }
  });

  test('EGRESS_ALLOW_CIDRS opens an IPv4 range in every IPv6 form that carries it', () => {
    const policy: EgressPolicy = {
      allowPrivate: false,
      allowCidrs: [ipaddr.parseCIDR('10.0.0.0/8') as CidrBlock],
    };
    for (const address of [
      '10.1.2.3',
      '::a01:203',
      '::ffff:10.1.2.3',
      '64:ff9b::a01:203',
      '2002:a01:203::1',
    ]) {
      assert.equal(isAddressAllowed(address, policy), true, address);
    }
    for (const address of ['::7f00:1', '2002:7f00:1::1', '192.168.0.1']) {
      assert.equal(isAddressAllowed(address, policy), false, address);
    }
  });
});

describe('egress: the IANA special-purpose registries', () => {
  test('blocks that are not globally reachable are refused', () => {
    for (const address of [
      '0.1.2.3',
      '100.127.255.254',
      '192.0.0.1',
      '192.0.0.170',
      '192.0.2.1',
      '192.88.99.1',
      '198.18.0.1',
      '198.19.255.255',
      '198.51.100.1',
      '203.0.113.1',
      '240.0.0.1',
      '239.255.255.250',
      '64:ff9b:1::1',
      '100::1',
      '100:0:0:1::1',
      '2001:2::1',
      '2001:10::1',
      '2001:db8::1',
      '2001:1::4',
      '3fff::1',
      '5f00::1',
      'fec0::1',
      '4000::1',
      '1::1',
    ]) {
      assert.equal(isAddressAllowed(address, closed), false, address);
    }
  });

  test('globally reachable blocks, special or not, are allowed', () => {
    for (const address of [
      '192.0.0.9',
      '192.0.0.10',
      '192.31.196.1',
      '192.52.193.1',
      '192.175.48.1',
      '2001:1::1',
      '2001:1::2',
      '2001:3::1',
      '2001:4:112::1',
      '2620:4f:8000::1',
      '2001:200::1',
      '2a00:1450:4001::1',
      '3ffe::1',
    ]) {
      assert.equal(isAddressAllowed(address, closed), true, address);
    }
  });
});

describe('egress: a refused literal never opens a socket', () => {
  test('http://[::127.0.0.1]/ and friends are refused before connecting to 127.0.0.1', async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const client = createEgressClient(closed, async () => ['127.0.0.1']);
      for (const host of ['[::127.0.0.1]', '[::7f00:1]', '[::ffff:0:7f00:1]', '[2002:7f00:1::1]']) {
        await assert.rejects(
          client.request({
            method: 'POST',
            url: `http://${host}:${port}/hook`,
            body: '{}',
            timeoutMs: 2_000,
          }),
          EgressRefusedError,
          host,
        );
        await assert.rejects(client.checkTarget(`http://${host}:${port}/hook`), EgressRefusedError, host);
      }
      assert.equal(connections, 0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
