import type { ValidationIssue } from '../../errors/app-error.js';

/** The adapters of contract §8. */
export const CONNECTOR_TYPES = ['http', 'github', 'noop'] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number];

export const DEFAULT_GITHUB_BASE_URL = 'https://api.github.com';

/** What the API shows of an http connector: where it posts and where it checks health. */
export interface HttpSettings {
  url: string;
  healthUrl: string | null;
}
/** Extra request headers (an API key of the receiver, say): sealed at rest, never returned. */
export interface HttpSecrets {
  headers: Record<string, string>;
}
export interface GithubSettings {
  /** The REST API root: `https://api.github.com`, or a GitHub Enterprise `https://host/api/v3`. */
  baseUrl: string;
}
/** The GitHub token the adapter authenticates with: sealed at rest, never returned. */
export interface GithubSecrets {
  token: string;
}
export type NoopSettings = Record<string, never>;

/** A validated `config`, split into what may be shown and what is sealed. */
export type ConnectorConfig =
  | { type: 'http'; settings: HttpSettings; secrets: HttpSecrets }
  | { type: 'github'; settings: GithubSettings; secrets: GithubSecrets }
  | { type: 'noop'; settings: NoopSettings; secrets: null };

const MAX_URL_LENGTH = 2048;
const MAX_HEADERS = 20;
const MAX_HEADER_VALUE = 4096;
const MAX_TOKEN_LENGTH = 1024;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
// Visible ASCII, space and tab: no CR or LF, so a value cannot smuggle another header.
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
const TOKEN = /^[\x21-\x7e]+$/;
/** Headers the adapter sets itself, or that would change how the request travels. */
const RESERVED_HEADERS = new Set([
  // Set on every call by the adapter or the egress client (trace context when tracing is on).
  'user-agent',
  'traceparent',
  'tracestate',
  'authorization',
  'content-type',
  'content-length',
  'host',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An absolute http(s) URL without user name or password, or an issue at `path`. */
export function checkUrlSyntax(raw: unknown, path: string, issues: ValidationIssue[]): string | undefined {
  const problem = `${path.split('/').pop()} must be an absolute http or https URL of at most ${MAX_URL_LENGTH} characters`;
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL_LENGTH) {
    issues.push({ path, message: problem });
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    issues.push({ path, message: problem });
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    issues.push({ path, message: problem });
    return undefined;
  }
  if (url.username !== '' || url.password !== '') {
    issues.push({
      path,
      message: `${path.split('/').pop()} must not carry a user name or password (use config.headers)`,
    });
    return undefined;
  }
  return url.href;
}

function parseHttp(config: Record<string, unknown>, issues: ValidationIssue[]): ConnectorConfig | undefined {
  const url = checkUrlSyntax(config.url, '/config/url', issues);
  const healthUrl =
    config.healthUrl === undefined ? null : checkUrlSyntax(config.healthUrl, '/config/healthUrl', issues);
  const headers: Record<string, string> = {};
  if (config.headers !== undefined) {
    if (!isRecord(config.headers)) {
      issues.push({
        path: '/config/headers',
        message: 'headers must be an object of header names to values',
      });
    } else {
      const entries = Object.entries(config.headers);
      if (entries.length > MAX_HEADERS) {
        issues.push({ path: '/config/headers', message: `at most ${MAX_HEADERS} headers` });
      }
      for (const [name, value] of entries) {
        const path = `/config/headers/${name}`;
        if (!HEADER_NAME.test(name)) {
          issues.push({ path, message: 'not a valid header name' });
        } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
          issues.push({ path, message: `${name} is set by the adapter and cannot be configured` });
        } else if (
          typeof value !== 'string' ||
          value.length > MAX_HEADER_VALUE ||
          !HEADER_VALUE.test(value)
        ) {
          issues.push({
            path,
            message: `a header value is a string of at most ${MAX_HEADER_VALUE} printable ASCII characters`,
          });
        } else {
          headers[name.toLowerCase()] = value;
        }
      }
    }
  }
  if (url === undefined || healthUrl === undefined) return undefined;
  return { type: 'http', settings: { url, healthUrl }, secrets: { headers } };
}

function parseGithub(
  config: Record<string, unknown>,
  issues: ValidationIssue[],
): ConnectorConfig | undefined {
  const baseUrl =
    config.baseUrl === undefined
      ? DEFAULT_GITHUB_BASE_URL
      : checkUrlSyntax(config.baseUrl, '/config/baseUrl', issues)?.replace(/\/+$/, '');
  const token = config.token;
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !TOKEN.test(token)) {
    issues.push({
      path: '/config/token',
      message: `token is required: the GitHub token, 1 to ${MAX_TOKEN_LENGTH} visible ASCII characters`,
    });
    return undefined;
  }
  if (baseUrl === undefined) return undefined;
  return { type: 'github', settings: { baseUrl }, secrets: { token } };
}

/**
 * Validates the `config` of a connector of `type` (contract §8) and splits it into the settings
 * the API shows and the secrets it seals. Pure; reachability is checked by the caller.
 */
export function parseConnectorConfig(
  type: ConnectorType,
  config: unknown,
): { ok: true; config: ConnectorConfig } | { ok: false; issues: ValidationIssue[] } {
  if (!isRecord(config))
    return { ok: false, issues: [{ path: '/config', message: 'config must be an object' }] };
  const issues: ValidationIssue[] = [];
  let parsed: ConnectorConfig | undefined;
  if (type === 'http') parsed = parseHttp(config, issues);
  else if (type === 'github') parsed = parseGithub(config, issues);
  else parsed = { type: 'noop', settings: {}, secrets: null };
  if (issues.length > 0 || parsed === undefined) return { ok: false, issues };
  return { ok: true, config: parsed };
}

/** The URLs the adapter will call, for the egress check at save time. */
export function outboundUrls(config: ConnectorConfig): Array<{ path: string; url: string }> {
  if (config.type === 'http') {
    const urls = [{ path: '/config/url', url: config.settings.url }];
    if (config.settings.healthUrl !== null)
      urls.push({ path: '/config/healthUrl', url: config.settings.healthUrl });
    return urls;
  }
  if (config.type === 'github') return [{ path: '/config/baseUrl', url: config.settings.baseUrl }];
  return [];
}
