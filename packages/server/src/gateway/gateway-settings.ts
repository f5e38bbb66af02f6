import { TENANT_ID_PATTERN } from '@authority-runtime/sdk/wire';
import { split } from 'shlex';
import { ConfigError } from '../config/config.js';

/** The flags of `authority gateway` as commander hands them over (contract §11). */
export interface GatewayFlags {
  upstream?: string;
  upstreamUrl?: string;
  config?: string;
  listen?: string;
  waitApproval?: boolean;
  decisionTimeoutMs?: string;
  baseUrl?: string;
  tenant?: string;
  key?: string;
}

/** The upstream MCP server: a command the gateway starts (stdio), or a Streamable HTTP URL. */
export type UpstreamTarget = { kind: 'command'; command: string; args: string[] } | { kind: 'url'; url: URL };

/** Everything `authority gateway` needs, validated. */
export interface GatewaySettings {
  service: { baseUrl: string; tenantId: string; apiKey: string };
  upstream: UpstreamTarget;
  /** The config file, when `--config` is given; otherwise `targetSystem` comes from the environment. */
  configFile: string | undefined;
  /** `AUTHORITY_TARGET_SYSTEM`, read only without `--config`. */
  targetSystem: string | undefined;
  /** Streamable HTTP towards the agent; stdio when absent. */
  listen: { host: string; port: number } | undefined;
  waitApproval: boolean;
  decisionTimeoutMs: number;
}

export const DEFAULT_DECISION_TIMEOUT_MS = 5_000;
/** The longest timer Node can arm (about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;
const TENANT_ID = new RegExp(TENANT_ID_PATTERN);
/** Contract §2: `service_live_` keys, and the legacy `svc_` prefix. The value itself is never echoed. */
const API_KEY = /^(service_live_|svc_)\S+$/;

type Env = Readonly<Record<string, string | undefined>>;

function given(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** A flag wins over its variable; the error names both. */
function required(flag: string | undefined, env: Env, variable: string, flagName: string): string {
  const value = given(flag) ?? given(env[variable]);
  if (value === undefined) throw new ConfigError(`${variable} (${flagName})`, 'is required');
  return value;
}

function httpUrl(value: string, setting: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(setting, `must be an http(s) URL (got ${JSON.stringify(value)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(setting, `must be an http(s) URL (got ${JSON.stringify(value)})`);
  }
  return url;
}

function upstreamOf(flags: GatewayFlags): UpstreamTarget {
  const command = flags.upstream;
  const url = flags.upstreamUrl;
  if (command !== undefined && url !== undefined) {
    throw new ConfigError('--upstream', 'and --upstream-url are exclusive: give one upstream');
  }
  if (url !== undefined) return { kind: 'url', url: httpUrl(url, '--upstream-url') };
  if (command === undefined) throw new ConfigError('--upstream', 'or --upstream-url is required');
  let words: string[];
  try {
    // POSIX word splitting with quotes and escapes, and no expansion: `$AUTHORITY_API_KEY` stays literal.
    words = split(command);
  } catch (error) {
    throw new ConfigError('--upstream', `is not a valid command line: ${(error as Error).message}`);
  }
  const [program, ...args] = words;
  if (program === undefined) throw new ConfigError('--upstream', 'must name a command');
  return { kind: 'command', command: program, args };
}

function listenOf(value: string | undefined): GatewaySettings['listen'] {
  if (value === undefined) return undefined;
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]\s]+):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match?.[1] || !Number.isInteger(port) || port > 65_535) {
    throw new ConfigError(
      '--listen',
      `must be HOST:PORT, e.g. 127.0.0.1:8931 (got ${JSON.stringify(value)})`,
    );
  }
  return { host: match[1].replace(/^\[(.*)\]$/, '$1'), port };
}

function timeoutOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_DECISION_TIMEOUT_MS;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > MAX_TIMER_MS) {
    throw new ConfigError(
      '--decision-timeout-ms',
      `must be a whole number of milliseconds ≥ 1 (got ${JSON.stringify(value)})`,
    );
  }
  return ms;
}

/**
 * The settings of `authority gateway` from its flags and the environment (flags win). Every
 * problem is a {@link ConfigError} naming the setting, which the CLI prints on one line and
 * answers with exit code 2. The API key's value never appears in a message.
 */
export function resolveGatewaySettings(flags: GatewayFlags, env: Env): GatewaySettings {
  const baseUrl = required(flags.baseUrl, env, 'AUTHORITY_URL', '--base-url');
  httpUrl(baseUrl, 'AUTHORITY_URL (--base-url)');
  const tenantId = required(flags.tenant, env, 'AUTHORITY_TENANT', '--tenant');
  if (!TENANT_ID.test(tenantId)) {
    throw new ConfigError('AUTHORITY_TENANT (--tenant)', `must be a tenant id matching ${TENANT_ID_PATTERN}`);
  }
  const apiKey = required(flags.key, env, 'AUTHORITY_API_KEY', '--key');
  if (!API_KEY.test(apiKey)) {
    throw new ConfigError('AUTHORITY_API_KEY (--key)', 'must be an API key starting with service_live_');
  }
  const upstream = upstreamOf(flags);
  const configFile = given(flags.config);
  const targetSystem = configFile === undefined ? given(env.AUTHORITY_TARGET_SYSTEM) : undefined;
  if (configFile === undefined && targetSystem === undefined) {
    throw new ConfigError(
      'AUTHORITY_TARGET_SYSTEM',
      'is required without --config (the owner/repo the tools act on)',
    );
  }
  return {
    service: { baseUrl, tenantId, apiKey },
    upstream,
    configFile,
    targetSystem,
    listen: listenOf(flags.listen),
    waitApproval: flags.waitApproval === true,
    decisionTimeoutMs: timeoutOf(flags.decisionTimeoutMs),
  };
}

/**
 * The environment of the upstream command: the gateway's own, without any `AUTHORITY_*` variable,
 * so the upstream never holds the gateway's credentials (contract §11). Case-insensitive, as
 * Windows treats variable names.
 */
export function upstreamEnvironment(env: Env): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !name.toUpperCase().startsWith('AUTHORITY_')) result[name] = value;
  }
  return result;
}
