import type { KeyObject } from 'node:crypto';
import { type SigningAlg, toLowS, verifyJwsInput } from '../crypto/signing-algorithms.js';
import type { EgressClient } from '../egress/egress-client.js';

export class ExternalSignerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExternalSignerError';
  }
}

export interface ExternalSignerTarget {
  signUrl: string;
  headers: Record<string, string>;
  alg: SigningAlg;
  publicKey: KeyObject;
}

/**
 * Signs through a customer-managed key service speaking the HashiCorp Vault transit `sign` shape
 * (contract §5), and refuses any signature that does not verify under the registered public key.
 */
export async function signExternally(
  egress: EgressClient,
  target: ExternalSignerTarget,
  input: Buffer,
  timeoutMs: number,
): Promise<Buffer> {
  let response: { status: number; body: string };
  try {
    response = await egress.request({
      method: 'POST',
      url: target.signUrl,
      headers: target.headers,
      body: JSON.stringify({
        input: input.toString('base64'),
        hash_algorithm: 'sha2-256',
        signature_algorithm: 'pkcs1v15',
        marshaling_algorithm: 'jws',
      }),
      timeoutMs,
    });
  } catch (error) {
    throw new ExternalSignerError(`external signer unreachable: ${(error as Error).message}`);
  }
  if (response.status < 200 || response.status >= 300) {
    throw new ExternalSignerError(`external signer answered ${response.status}`);
  }
  let encoded: unknown;
  try {
    encoded = (JSON.parse(response.body) as { data?: { signature?: unknown } }).data?.signature;
  } catch {
    throw new ExternalSignerError('external signer answered something other than JSON');
  }
  if (typeof encoded !== 'string' || encoded === '')
    throw new ExternalSignerError('external signer returned no signature');
  // Node's base64 decoder reads both alphabets; Vault's jws marshaling uses base64url. Vault's
  // ECDSA signatures may have a high S: the low-S twin is the one the service writes.
  const signature = toLowS(target.alg, Buffer.from(encoded.replace(/^vault:v\d+:/, ''), 'base64'));
  if (!verifyJwsInput(target.alg, target.publicKey, input, signature)) {
    throw new ExternalSignerError('external signer returned a signature that does not verify');
  }
  return signature;
}
