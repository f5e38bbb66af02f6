import { type Config, ConfigError } from '../config/config.js';
import { masterKeyFile, resolveMasterKey } from '../config/master-key.js';
import { createSecretBox } from '../crypto/secret-box.js';
import { physicalKeyRepository } from '../physical/repositories/physical-key-repository.js';
import { privateContext as physicalKeyContext } from '../physical/use-cases/physical-signer.js';
import type { Storage } from '../storage/database.js';
import { signingKeyRepository } from '../tokens/signing-key-repository.js';
import { privateContext as signingKeyContext } from '../tokens/signing-keys.js';

/** A secret the database holds sealed under its master key: what it is, and its seal and context. */
interface SealedSample {
  what: string;
  sealed: string;
  context: string;
}

/** The oldest tenant signing key held locally, else the oldest physical signing key; none in a new database. */
async function sealedSample(storage: Storage): Promise<SealedSample | undefined> {
  const tenantKey = await signingKeyRepository.oldestLocal(storage.db);
  if (tenantKey?.private_key) {
    return {
      what: `the signing key ${tenantKey.kid} of tenant ${tenantKey.tenant_id}`,
      sealed: tenantKey.private_key,
      context: signingKeyContext(tenantKey.tenant_id, tenantKey.kid),
    };
  }
  const physicalKey = (await physicalKeyRepository.list(storage.db)).at(-1);
  if (physicalKey === undefined) return undefined;
  return {
    what: `the physical signing key ${physicalKey.kid}`,
    sealed: physicalKey.private_key,
    context: physicalKeyContext(physicalKey.kid),
  };
}

/**
 * The master key, checked against the database before the service starts: a key that cannot open
 * the secrets the database holds would start a service whose every decision fails (500). In the
 * embedded default a missing `master.key` is generated only for a database that holds no sealed
 * secret yet; otherwise the file was lost or the data directory copied without it, and generating
 * a new one would make the secrets unreadable for good.
 */
export async function checkedMasterKey(config: Config, storage: Storage): Promise<Buffer> {
  const sample = await sealedSample(storage);
  const setting = config.masterKey === undefined ? masterKeyFile(config) : 'AUTHORITY_MASTER_KEY';
  const key = resolveMasterKey(config, { generate: sample === undefined });
  if (sample === undefined) return key;
  try {
    createSecretBox(key).open(sample.sealed, sample.context);
  } catch {
    throw new ConfigError(
      setting,
      `does not open the secrets this database holds (${sample.what}): start with the master key the database was created with`,
    );
  }
  return key;
}
