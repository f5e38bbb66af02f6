// A separate process that appends audit entries to one tenant, for the cross-process serialization
// test. Usage: append-worker.ts <count> <tenant> (STORAGE_SQLITE_FILE or DATABASE_URL + PG_SCHEMA).
import { openStorage } from '../../src/storage/database.js';
import { appendEvents } from './audit.js';

const [countArg, tenantId] = process.argv.slice(2);
const storage = process.env.STORAGE_SQLITE_FILE
  ? openStorage({ sqliteFile: process.env.STORAGE_SQLITE_FILE })
  : openStorage({ databaseUrl: process.env.DATABASE_URL, pgSchema: process.env.PG_SCHEMA, poolSize: 4 });
const count = Number(countArg);
// Several concurrent appenders inside the process too, so the lock is contended from every side.
await Promise.all(
  [0, 1, 2, 3].map((lane) =>
    appendEvents(storage, tenantId ?? 'acme', count / 4, Date.now, lane * 1_000_000),
  ),
);
await storage.close();
process.stdout.write('done\n');
