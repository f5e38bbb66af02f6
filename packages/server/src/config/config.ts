import ipaddr from 'ipaddr.js';
import { type CidrBlock, normalizeCidr } from '../foundation/ip-allowlist.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  /** `embedded` without DATABASE_URL (SQLite in dataDir), `server` with a PostgreSQL DATABASE_URL. */
  mode: 'embedded' | 'server';
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  /** 32 bytes; undefined in embedded mode until the data directory's key file is loaded. */
  masterKey: Buffer | undefined;
  redisUrl: string | undefined;
  /** Prefix of every key the service writes to Redis (rate-limit counters), so deployments can share one. */
  redisKeyPrefix: string;
  publicBaseUrl: string;
  /** The first part of each tenant's log origin `<prefix>/audit/<tenantId>` (contract §15). */
  logOriginPrefix: string;
  logLevel: LogLevel;
  trustProxy: CidrBlock[];
  adminToken: string | undefined;
  metricsToken: string | undefined;
  rateLimitPerIp: number;
  /** The longest any one wait on the database may last (connect, acquire, statement, lock, idle transaction). */
  databaseTimeoutMs: number;
  /** SQLite durability: NORMAL survives process crashes, FULL power loss too (slower). */
  sqliteSynchronous: 'NORMAL' | 'FULL';
  egress: { allowPrivate: boolean; allowCidrs: CidrBlock[] };
  externalSignerTimeoutMs: number;
  checkpointIntervalMs: number;
  /** The catastrophic-floor agreement a tenant owner must accept to disable the floor. */
  floorAgreementVersion: string;
  /** How long a request waits for an in-flight request with the same Idempotency-Key. */
  idempotencyWaitMs: number;
  /** Upper bounds of the jittered waits between webhook attempts (contract §7); then `dead`. */
  webhookRetryScheduleMs: number[];
  /** A webhook attempt that has no 2xx answer within this is a failure. */
  webhookTimeoutMs: number;
  /** How often the delivery worker looks for due deliveries. */
  webhookPollMs: number;
  /** How often each connector gets a background health check (contract §8). */
  connectorHealthIntervalMs: number;
  /** The time a connector has for an execution or a check; then `failed` with reason TIMEOUT. */
  connectorTimeoutMs: number;
  /** RSA modulus of new physical signing keys (PHYSICAL_KEY_BITS: 2048, 3072 or 4096). */
  physicalKeyBits: number;
  /** PHYSICAL_SIGNER_EPHEMERAL=1: a per-process physical key that is never stored (development only). */
  physicalSignerEphemeral: boolean;
  /** Base of an escalation ticket's approvalUrl (AUTHORITY_APPROVAL_URL), without a trailing slash. */
  approvalUrl: string;
  /** CORS_ORIGINS: the exact origins browsers may call the API from; empty means no CORS headers. */
  corsOrigins: string[];
}

/** Values given on the command line; they win over the environment. */
export interface ConfigFlags {
  port?: string;
  host?: string;
  dataDir?: string;
  databaseUrl?: string;
  logLevel?: string;
}

/** A configuration value that cannot be used; `message` is one line naming the variable. */
export class ConfigError extends Error {
  /** The (first) setting at fault. */
  readonly variable: string;
  /** Every setting at fault, when one error reports several (the settings server mode requires). */
  readonly variables: readonly string[];
  constructor(variable: string | readonly string[], problem: string) {
    const variables = typeof variable === 'string' ? [variable] : variable;
    const names =
      variables.length > 1
        ? `${variables.slice(0, -1).join(', ')} and ${variables.at(-1)}`
        : variables.join('');
    super(`${names} ${problem}`);
    this.name = 'ConfigError';
    this.variable = variables[0] ?? '';
    this.variables = variables;
  }
}

type Env = Record<string, string | undefined>;

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function parseInteger(variable: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) {
    throw new ConfigError(variable, `must be an integer between ${min} and ${max} (got "${raw}")`);
  }
  const value = Number(raw);
  if (value < min || value > max) {
    throw new ConfigError(variable, `must be an integer between ${min} and ${max} (got "${raw}")`);
  }
  return value;
}

/** A comma-separated list of exact origins (`https://app.example.org`), no path, no wildcard. */
function parseOrigins(variable: string, raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => {
      const url = parseUrl(variable, item, ['http:', 'https:']);
      if (url.origin !== item.replace(/\/$/, '')) {
        throw new ConfigError(variable, `"${item}" is not an origin (scheme://host[:port], no path)`);
      }
      return url.origin;
    });
}

/** The values of the OTEL_* variables the SDK reads itself, which it would drop silently. */
const OTEL_CHOICES: ReadonlyArray<[variable: string, choices: readonly string[], why: string]> = [
  ['OTEL_EXPORTER_OTLP_PROTOCOL', ['http/json'], 'only OTLP over HTTP with JSON is offered'],
  ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', ['http/json'], 'only OTLP over HTTP with JSON is offered'],
  ['OTEL_TRACES_EXPORTER', ['otlp', 'none'], 'spans go to OTLP, or nowhere with none'],
  ['OTEL_EXPORTER_OTLP_COMPRESSION', ['gzip', 'none'], 'the exporter compresses with gzip or not at all'],
  [
    'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION',
    ['gzip', 'none'],
    'the exporter compresses with gzip or not at all',
  ],
  [
    'OTEL_TRACES_SAMPLER',
    [
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ],
    'the samplers of the OpenTelemetry SDK',
  ],
];
const OTEL_MILLISECONDS = [
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
  'OTEL_BSP_SCHEDULE_DELAY',
  'OTEL_BSP_EXPORT_TIMEOUT',
  'OTEL_BSP_MAX_QUEUE_SIZE',
  'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
];

/**
 * The OTEL_* settings the OpenTelemetry SDK reads on its own: it falls back to its defaults on a
 * value it does not take (a gRPC protocol, a sampler's typo) without a word, so they are checked
 * at the start like every other setting.
 */
function checkOtelSettings(env: NodeJS.ProcessEnv): void {
  for (const [variable, choices, why] of OTEL_CHOICES) {
    const value = nonEmpty(env[variable]);
    if (value !== undefined && !choices.includes(value)) {
      throw new ConfigError(variable, `must be ${choices.join(' or ')}: ${why} (got "${value}")`);
    }
  }
  for (const variable of OTEL_MILLISECONDS) {
    const value = nonEmpty(env[variable]);
    if (value !== undefined && (!/^\d+$/.test(value) || Number(value) < 1)) {
      throw new ConfigError(variable, `must be a positive integer (got "${value}")`);
    }
  }
  const ratio = nonEmpty(env.OTEL_TRACES_SAMPLER_ARG);
  if (ratio !== undefined && !/^(0(\.\d+)?|1(\.0+)?)$/.test(ratio)) {
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', `must be a ratio from 0 to 1 (got "${ratio}")`);
  }
}

function parseUrl(variable: string, raw: string, protocols: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(variable, `must be a URL (${protocols.join(' or ')})`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(variable, `must use ${protocols.join(' or ')} (got "${url.protocol}")`);
  }
  return url;
}

/** Decodes a 32-byte master key given as 64 hex characters or as base64. */
export function parseMasterKey(raw: string): Buffer {
  const variable = 'AUTHORITY_MASTER_KEY';
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(raw)) key = Buffer.from(raw, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(raw)) key = Buffer.from(raw, 'base64');
  if (key?.length !== 32) {
    throw new ConfigError(variable, 'must be 32 bytes, given as 64 hex characters or base64');
  }
  return key;
}

/**
 * Addresses and CIDR blocks, read as strictly as tenant allowlists are (dotted-quad IPv4 only:
 * `10.1` or an octal `012.0.0.1` is refused rather than read as some other address).
 */
function parseCidrList(variable: string, raw: string): CidrBlock[] {
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const block = normalizeCidr(part);
      if (block === undefined) {
        throw new ConfigError(
          variable,
          `must be a comma-separated list of addresses or CIDR blocks (got "${part}")`,
        );
      }
      return ipaddr.parseCIDR(block);
    });
}

/** Contract §7: ≈ 10 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [
  10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000,
];

function parseSchedule(variable: string, raw: string): number[] {
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length > 20) throw new ConfigError(variable, 'must list at most 20 waits');
  return parts.map((part) => parseInteger(variable, part, 1, 604_800_000));
}

/**
 * Reads and validates the configuration. Throws ConfigError for the first bad value; nothing here
 * touches the disk or the network.
 */
export function loadConfig(env: Env, flags: ConfigFlags = {}): Config {
  const portRaw = nonEmpty(flags.port) ?? nonEmpty(env.PORT);
  const port = portRaw === undefined ? 8080 : parseInteger(flags.port ? '--port' : 'PORT', portRaw, 0, 65535);

  const databaseUrl = nonEmpty(flags.databaseUrl) ?? nonEmpty(env.DATABASE_URL);
  if (databaseUrl !== undefined) parseUrl('DATABASE_URL', databaseUrl, ['postgres:', 'postgresql:']);
  const mode = databaseUrl === undefined ? 'embedded' : 'server';

  const host = nonEmpty(flags.host) ?? nonEmpty(env.HOST) ?? (mode === 'embedded' ? '127.0.0.1' : '0.0.0.0');
  // Digits and dots alone are an IPv4 address or nothing (`999.1.1.1` is no host name either).
  if (!ipaddr.isValid(host) && (!/^[A-Za-z0-9.-]{1,253}$/.test(host) || /^[\d.]+$/.test(host))) {
    throw new ConfigError(flags.host ? '--host' : 'HOST', `must be an address or host name (got "${host}")`);
  }

  const dataDir = nonEmpty(flags.dataDir) ?? nonEmpty(env.DATA_DIR) ?? './data';

  // Server mode needs these; all that are missing are named at once.
  const missing =
    mode === 'server'
      ? ['AUTHORITY_MASTER_KEY', 'PUBLIC_BASE_URL'].filter(
          (variable) => nonEmpty(env[variable]) === undefined,
        )
      : [];
  if (missing.length > 0) {
    throw new ConfigError(
      missing,
      `${missing.length > 1 ? 'are' : 'is'} required when DATABASE_URL is set` +
        (missing.includes('AUTHORITY_MASTER_KEY') ? ' (the master key: 32 bytes, hex or base64)' : ''),
    );
  }

  const masterKeyRaw = nonEmpty(env.AUTHORITY_MASTER_KEY);
  const masterKey = masterKeyRaw === undefined ? undefined : parseMasterKey(masterKeyRaw);

  // Read by the OpenTelemetry SDK itself; checked here so that a typo stops the start instead of
  // turning tracing on towards nowhere.
  for (const variable of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
    const endpoint = nonEmpty(env[variable]);
    if (endpoint !== undefined) parseUrl(variable, endpoint, ['http:', 'https:']);
  }
  checkOtelSettings(env);

  const redisUrl = nonEmpty(env.REDIS_URL);
  if (redisUrl !== undefined) parseUrl('REDIS_URL', redisUrl, ['redis:', 'rediss:']);
  const redisKeyPrefix = nonEmpty(env.REDIS_KEY_PREFIX) ?? 'authority:';
  if (!/^[A-Za-z0-9:._-]{1,64}$/.test(redisKeyPrefix)) {
    throw new ConfigError('REDIS_KEY_PREFIX', 'must be 1 to 64 letters, digits or : . _ -');
  }

  const publicBaseRaw = nonEmpty(env.PUBLIC_BASE_URL);
  const publicBaseUrl =
    publicBaseRaw === undefined
      ? `http://localhost:${port}`
      : parseUrl('PUBLIC_BASE_URL', publicBaseRaw, ['http:', 'https:']).toString().replace(/\/$/, '');

  const logOriginRaw = nonEmpty(env.LOG_ORIGIN_PREFIX);
  if (logOriginRaw !== undefined && !/^[\x21-\x2a\x2c-\x7e]{1,200}$/.test(logOriginRaw)) {
    throw new ConfigError('LOG_ORIGIN_PREFIX', 'must be 1 to 200 visible ASCII characters without "+"');
  }
  if (logOriginRaw?.includes('://')) {
    // C2SP tlog-checkpoint: an origin is a schema-less URL (`log.example.com/audit`).
    throw new ConfigError(
      'LOG_ORIGIN_PREFIX',
      `must be a schema-less URL such as log.example.com (got "${logOriginRaw}")`,
    );
  }
  const logOriginPrefix = (logOriginRaw ?? new URL(publicBaseUrl).host).replace(/\/$/, '');

  const logLevelRaw = nonEmpty(flags.logLevel) ?? nonEmpty(env.LOG_LEVEL) ?? 'info';
  if (!LOG_LEVELS.includes(logLevelRaw as LogLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got "${logLevelRaw}")`);
  }

  const trustProxyRaw = nonEmpty(env.TRUST_PROXY);
  const trustProxy = trustProxyRaw === undefined ? [] : parseCidrList('TRUST_PROXY', trustProxyRaw);

  const adminToken = nonEmpty(env.AUTHORITY_ADMIN_TOKEN);
  if (adminToken !== undefined && adminToken.length < 32) {
    throw new ConfigError('AUTHORITY_ADMIN_TOKEN', 'must be at least 32 characters long');
  }

  const metricsToken = nonEmpty(env.METRICS_TOKEN);
  if (metricsToken !== undefined && metricsToken.length < 16) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters long');
  }

  const rateLimitRaw = nonEmpty(env.RATE_LIMIT_PER_IP);
  const rateLimitPerIp =
    rateLimitRaw === undefined ? 500 : parseInteger('RATE_LIMIT_PER_IP', rateLimitRaw, 0, 10_000_000);

  const synchronous = (nonEmpty(env.SQLITE_SYNCHRONOUS) ?? 'NORMAL').toUpperCase();
  if (synchronous !== 'NORMAL' && synchronous !== 'FULL') {
    throw new ConfigError('SQLITE_SYNCHRONOUS', `must be NORMAL or FULL (got "${synchronous}")`);
  }

  const allowPrivateRaw = nonEmpty(env.ALLOW_PRIVATE_EGRESS) ?? '0';
  if (allowPrivateRaw !== '0' && allowPrivateRaw !== '1') {
    throw new ConfigError('ALLOW_PRIVATE_EGRESS', `must be 0 or 1 (got "${allowPrivateRaw}")`);
  }
  const egressCidrsRaw = nonEmpty(env.EGRESS_ALLOW_CIDRS);

  const timer = (variable: string, fallback: number, min: number, max: number): number => {
    const raw = nonEmpty(env[variable]);
    return raw === undefined ? fallback : parseInteger(variable, raw, min, max);
  };

  const scheduleRaw = nonEmpty(env.WEBHOOK_RETRY_SCHEDULE_MS);

  const physicalKeyBits = timer('PHYSICAL_KEY_BITS', 2048, 2048, 4096);
  if (![2048, 3072, 4096].includes(physicalKeyBits)) {
    throw new ConfigError('PHYSICAL_KEY_BITS', `must be 2048, 3072 or 4096 (got "${physicalKeyBits}")`);
  }
  const ephemeralRaw = nonEmpty(env.PHYSICAL_SIGNER_EPHEMERAL) ?? '0';
  if (ephemeralRaw !== '0' && ephemeralRaw !== '1') {
    throw new ConfigError('PHYSICAL_SIGNER_EPHEMERAL', `must be 0 or 1 (got "${ephemeralRaw}")`);
  }
  // Instances behind one database must share the physical key; a per-process key cannot be shared.
  if (ephemeralRaw === '1' && mode === 'server') {
    throw new ConfigError(
      'PHYSICAL_SIGNER_EPHEMERAL',
      'is for embedded development only, not with DATABASE_URL',
    );
  }
  const approvalRaw = nonEmpty(env.AUTHORITY_APPROVAL_URL);
  const approvalUrl =
    approvalRaw === undefined
      ? `${publicBaseUrl}/console/approvals`
      : parseUrl('AUTHORITY_APPROVAL_URL', approvalRaw, ['http:', 'https:']).toString().replace(/\/+$/, '');

  const corsRaw = nonEmpty(env.CORS_ORIGINS);

  return {
    mode,
    port,
    host,
    databaseUrl,
    dataDir,
    masterKey,
    redisUrl,
    redisKeyPrefix,
    publicBaseUrl,
    logOriginPrefix,
    logLevel: logLevelRaw as LogLevel,
    trustProxy,
    adminToken,
    metricsToken,
    rateLimitPerIp,
    databaseTimeoutMs: timer('DATABASE_TIMEOUT_MS', 5_000, 100, 600_000),
    sqliteSynchronous: synchronous,
    egress: {
      allowPrivate: allowPrivateRaw === '1',
      allowCidrs: egressCidrsRaw === undefined ? [] : parseCidrList('EGRESS_ALLOW_CIDRS', egressCidrsRaw),
    },
    externalSignerTimeoutMs: timer('EXTERNAL_SIGNER_TIMEOUT_MS', 2_000, 100, 60_000),
    checkpointIntervalMs: timer('CHECKPOINT_INTERVAL_MS', 60_000, 10, 86_400_000),
    floorAgreementVersion: nonEmpty(env.FLOOR_AGREEMENT_VERSION) ?? '2026-01',
    idempotencyWaitMs: timer('IDEMPOTENCY_WAIT_MS', 10_000, 0, 60_000),
    webhookRetryScheduleMs:
      scheduleRaw === undefined
        ? [...DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS]
        : parseSchedule('WEBHOOK_RETRY_SCHEDULE_MS', scheduleRaw),
    webhookTimeoutMs: timer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookPollMs: timer('WEBHOOK_POLL_MS', 1_000, 10, 60_000),
    connectorHealthIntervalMs: timer('CONNECTOR_HEALTH_INTERVAL_MS', 30_000, 10, 86_400_000),
    connectorTimeoutMs: timer('CONNECTOR_TIMEOUT_MS', 10_000, 100, 60_000),
    physicalKeyBits,
    physicalSignerEphemeral: ephemeralRaw === '1',
    approvalUrl,
    corsOrigins: corsRaw === undefined ? [] : parseOrigins('CORS_ORIGINS', corsRaw),
  };
}
