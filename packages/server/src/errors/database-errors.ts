/** Network and server-state codes from pg and Node sockets that mean "the database cannot be reached". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '53000',
  '53300',
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
]);

const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'The database connection is not open',
  'driver has already been destroyed',
  'Client has encountered a connection error',
  'Query read timeout',
  // 55000 on connecting: a database closed to connections (maintenance, a failover under way).
  'is not currently accepting connections',
];

/**
 * True when an error says the database is unreachable (as opposed to a bug or a constraint), so the
 * caller answers 503 SERVICE_UNAVAILABLE instead of 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('SQLITE_IOERR')))
    return true;
  return UNAVAILABLE_MESSAGES.some((m) => error.message.includes(m));
}

/**
 * True when PostgreSQL aborted a transaction to resolve a conflict between transactions (a
 * deadlock, or a serialization failure): nothing of it was written, so running it again is safe.
 */
export function isTransactionConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/** True when an error is a violated uniqueness constraint on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** PostgreSQL refuses NUL and invalid byte sequences in text (SQLite stores them); a client error. */
export function isUnstorableText(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '22021' || code === '22P05';
}
