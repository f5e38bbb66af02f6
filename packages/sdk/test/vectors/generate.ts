// Writes the shared test vectors of the TypeScript, Python and Go SDKs to sdks/test-vectors/:
// tokens.json, webhooks.json, receipts.json, canonical-json.json and transparency.json. Run from the repository root with
// `npm run vectors -w packages/sdk`; commit the result. The keys come from keys.json beside this
// file (created on the first run), so only ES256 signatures change when the vectors are regenerated.
import { mkdirSync, writeFileSync } from 'node:fs';
import { canonicalVectors } from './canonical-vectors.js';
import { receiptVectors } from './receipt-vectors.js';
import { tokenVectors } from './token-vectors.js';
import { transparencyVectors } from './transparency-vectors.js';
import { loadVectorKeys } from './vector-keys.js';
import { webhookVectors } from './webhook-vectors.js';

const out = new URL('../../../../sdks/test-vectors/', import.meta.url);
const keys = loadVectorKeys(new URL('./keys.json', import.meta.url));
mkdirSync(out, { recursive: true });
const files: Record<string, unknown> = {
  'tokens.json': tokenVectors(keys),
  'webhooks.json': webhookVectors(),
  'receipts.json': receiptVectors(keys),
  'canonical-json.json': canonicalVectors(),
  'transparency.json': transparencyVectors(),
};
for (const [name, content] of Object.entries(files)) {
  writeFileSync(new URL(name, out), `${JSON.stringify(content, null, 2)}\n`);
  process.stdout.write(`wrote sdks/test-vectors/${name}\n`);
}
