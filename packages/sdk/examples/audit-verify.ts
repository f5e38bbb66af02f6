/**
 * Reads the tenant's audit trail through the client and verifies it offline:
 *
 *   AUTHORITY_URL=… AUTHORITY_TENANT=demo AUTHORITY_API_KEY=<a key with audit:read> \
 *     node --import tsx packages/sdk/examples/audit-verify.ts
 *
 * Every list is an async iterator over all its pages; the export is verified entry by entry
 * (hashes, links, checkpoint signatures) against the keys the tenant publishes.
 */
import { AuthorityClient, verifyChainExport } from '@authority-runtime/sdk';

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const client = new AuthorityClient({
  baseUrl: setting('AUTHORITY_URL'),
  tenantId: setting('AUTHORITY_TENANT'),
  apiKey: setting('AUTHORITY_API_KEY'),
});

const counts = new Map<string, number>();
for await (const event of client.audit.timeline({ limit: 100 })) {
  counts.set(event.eventType, (counts.get(event.eventType) ?? 0) + 1);
}
console.log(`events: ${JSON.stringify(Object.fromEntries(counts))}`);

// Pin the keys once (current and retired); verification then needs no trust in the transport.
const [current, archive] = await Promise.all([client.keys.jwks(), client.keys.jwksArchive()]);
const result = await verifyChainExport(client.audit.exportLines(), {
  jwks: { keys: [...current.keys, ...archive.keys] },
});
if (!result.valid) {
  console.log(`INVALID at ${result.brokenAt}: ${result.reason}`);
  process.exit(1);
}
console.log(`VALID: ${result.length} entries, head ${result.latestHash}`);
