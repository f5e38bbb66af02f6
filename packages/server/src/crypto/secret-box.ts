import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * AES-256-GCM encryption of secrets at rest under the master key. `context` is bound as additional
 * data (e.g. `signing-key:<tenant>:<kid>`), so a ciphertext copied onto another row does not decrypt.
 */
export interface SecretBox {
  seal(plaintext: Buffer | string, context: string): string;
  open(sealed: string, context: string): Buffer;
}

export function createSecretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  return {
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join(
        ':',
      );
    },
    open(sealed, context) {
      const [version, iv, tag, body] = sealed.split(':');
      if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
        throw new Error('unrecognized sealed secret format');
      }
      const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
    },
  };
}
