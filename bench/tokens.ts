// Tokens minted and verified per second on one core, per algorithm, beside a raw node:crypto
// Ed25519 sign loop (the ceiling). Run: npx tsx bench/tokens.ts [--seconds 2]
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { parseArgs } from 'node:util';
import { staticJwks, verifyAuthorityToken } from '@authority-runtime/sdk';
import { createLocalJWKSet, jwtVerify } from 'jose';
import type { JwsSigner } from '../packages/server/src/crypto/jws.js';
import { randomNonce } from '../packages/server/src/crypto/nonce.js';
import {
  generateSigningKeyPair,
  privateKeyFromPem,
  type SigningAlg,
  signJwsInput,
} from '../packages/server/src/crypto/signing-algorithms.js';
import { mintDecisionToken } from '../packages/server/src/tokens/decision-token.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '2' } } });
const seconds = Number(values.seconds);

async function rate(work: () => unknown | Promise<unknown>): Promise<number> {
  const end = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const start = process.hrtime.bigint();
  let n = 0;
  while (process.hrtime.bigint() < end) {
    await work();
    n += 1;
  }
  return n / (Number(process.hrtime.bigint() - start) / 1e9);
}

const fmt = (value: number) => Math.round(value).toLocaleString('en-US').padStart(9);
const request = {
  intentId: '01a2014e-fa12-72fe-ad37-ce9fbf547fe6',
  tenantId: 'bench',
  adapterId: 'external',
  adapterTarget: 'acme/payments',
  targetSystem: 'acme/payments',
  proposedAction: 'merge pull request 42',
};

console.log(`machine: ${machineLine()}`);
console.log(`${seconds} s per measurement, one core (single thread)`);

const raw = generateKeyPairSync('ed25519');
const payload = Buffer.from('x'.repeat(400));
console.log(
  `raw node:crypto Ed25519 sign (ceiling)   ${fmt(await rate(() => sign(null, payload, raw.privateKey)))} /s`,
);

// The token nonce: a synchronous CSPRNG call per token against the pooled draw minting uses.
console.log(
  `nonce: randomBytes(16) per token ${fmt(await rate(() => randomBytes(16).toString('base64url')))} /s   ` +
    `randomNonce (4 KiB pool) ${fmt(await rate(randomNonce))} /s`,
);

for (const alg of ['EdDSA', 'ES256', 'RS256'] as SigningAlg[]) {
  const pair = await generateSigningKeyPair(alg);
  const key = privateKeyFromPem(pair.privateKeyPem);
  const kid = 'bench-1700000000-ABCDEFGH';
  const signer: JwsSigner = { kid, alg, sign: (input) => signJwsInput(alg, key, input) };
  const minted = await mintDecisionToken(signer, request, Date.now());
  const jwks = { keys: [{ ...pair.publicJwk, kid, alg, use: 'sig' }] };
  const source = staticJwks(jwks as Parameters<typeof staticJwks>[0]);
  const local = createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]);
  const mint = await rate(() => mintDecisionToken(signer, request, Date.now()));
  const verifySdk = await rate(() =>
    verifyAuthorityToken(minted.token, {
      jwks: source,
      expected: { tenantId: 'bench', adapterId: 'external', targetSystem: 'acme/payments' },
    }),
  );
  const verifyJose = await rate(() =>
    jwtVerify(minted.token, local, { algorithms: [alg], issuer: 'service-authority', audience: 'external' }),
  );
  const label = alg === 'RS256' ? 'RS256 (RSA-4096)' : alg;
  console.log(
    `${label.padEnd(17)} mint ${fmt(mint)} /s   verify (SDK) ${fmt(verifySdk)} /s   verify (jose jwtVerify) ${fmt(verifyJose)} /s`,
  );
}
