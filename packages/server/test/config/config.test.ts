import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { resolveMasterKey } from '../../src/config/master-key.js';
import { tracingRequested } from '../../src/foundation/tracing.js';

const KEY_HEX = 'ab'.repeat(32);

function configError(env: Record<string, string>, flags = {}): ConfigError {
  try {
    loadConfig(env, flags);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the configuration to be rejected');
}

describe('configuration', () => {
  it('defaults to the embedded mode on port 8080 with ./data', () => {
    const config = loadConfig({});
    assert.equal(config.mode, 'embedded');
    assert.equal(config.port, 8080);
    assert.equal(config.dataDir, './data');
    assert.equal(config.publicBaseUrl, 'http://localhost:8080');
    assert.equal(config.logLevel, 'info');
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.rateLimitPerIp, 500);
    assert.equal(config.masterKey, undefined);
  });

  it('selects PostgreSQL with a postgres:// URL and then requires the master key and base URL', () => {
    // Every missing setting is named at once.
    const both = configError({ DATABASE_URL: 'postgres://x@localhost/db' });
    assert.deepEqual(both.variables, ['AUTHORITY_MASTER_KEY', 'PUBLIC_BASE_URL']);
    assert.match(
      both.message,
      /^AUTHORITY_MASTER_KEY and PUBLIC_BASE_URL are required when DATABASE_URL is set/,
    );
    assert.deepEqual(
      configError({ DATABASE_URL: 'postgres://x@localhost/db', AUTHORITY_MASTER_KEY: KEY_HEX }).variables,
      ['PUBLIC_BASE_URL'],
    );
    assert.deepEqual(
      configError({ DATABASE_URL: 'postgres://x@localhost/db', PUBLIC_BASE_URL: 'https://a.example' })
        .variables,
      ['AUTHORITY_MASTER_KEY'],
    );
    const config = loadConfig({
      DATABASE_URL: 'postgresql://x@localhost/db',
      AUTHORITY_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
      PUBLIC_BASE_URL: 'https://authority.example.com/',
    });
    assert.equal(config.mode, 'server');
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.publicBaseUrl, 'https://authority.example.com');
    assert.deepEqual(config.masterKey, Buffer.alloc(32, 7));
  });

  it('lets flags win over the environment', () => {
    const config = loadConfig({ PORT: '9000', DATA_DIR: '/a' }, { port: '9100', dataDir: '/b' });
    assert.equal(config.port, 9100);
    assert.equal(config.dataDir, '/b');
  });

  const bad: Array<[string, Record<string, string>]> = [
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '-1' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/db' }],
    ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
    ['AUTHORITY_MASTER_KEY', { AUTHORITY_MASTER_KEY: 'short' }],
    ['AUTHORITY_MASTER_KEY', { AUTHORITY_MASTER_KEY: 'ab'.repeat(31) }],
    ['REDIS_URL', { REDIS_URL: 'http://localhost:6379' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'ftp://example.com' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/8,not-an-ip' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/99' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.1' }],
    ['TRUST_PROXY', { TRUST_PROXY: '012.0.0.1/8' }],
    ['EGRESS_ALLOW_CIDRS', { EGRESS_ALLOW_CIDRS: '0x0a.0.0.0/8' }],
    ['AUTHORITY_ADMIN_TOKEN', { AUTHORITY_ADMIN_TOKEN: 'too-short' }],
    ['METRICS_TOKEN', { METRICS_TOKEN: 'short' }],
    ['LOG_ORIGIN_PREFIX', { LOG_ORIGIN_PREFIX: 'log+x.example.org' }],
    // C2SP tlog-checkpoint: an origin is a schema-less URL.
    ['LOG_ORIGIN_PREFIX', { LOG_ORIGIN_PREFIX: 'https://log.example.org' }],
    ['RATE_LIMIT_PER_IP', { RATE_LIMIT_PER_IP: 'many' }],
    ['HOST', { HOST: 'bad host!' }],
    ['HOST', { HOST: '999.1.1.1' }],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', { OTEL_EXPORTER_OTLP_ENDPOINT: 'notaurl' }],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://collector' }],
    // What the OpenTelemetry SDK would drop silently, falling back to its defaults.
    ['OTEL_EXPORTER_OTLP_PROTOCOL', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }],
    ['OTEL_TRACES_EXPORTER', { OTEL_TRACES_EXPORTER: 'console' }],
    ['OTEL_TRACES_SAMPLER', { OTEL_TRACES_SAMPLER: 'bogus' }],
    ['OTEL_TRACES_SAMPLER', { OTEL_TRACES_SAMPLER: 'ALWAYS_ON' }],
    ['OTEL_TRACES_SAMPLER_ARG', { OTEL_TRACES_SAMPLER_ARG: '1.5' }],
    ['OTEL_EXPORTER_OTLP_TIMEOUT', { OTEL_EXPORTER_OTLP_TIMEOUT: 'abc' }],
    ['OTEL_BSP_MAX_QUEUE_SIZE', { OTEL_BSP_MAX_QUEUE_SIZE: '-5' }],
    ['OTEL_EXPORTER_OTLP_COMPRESSION', { OTEL_EXPORTER_OTLP_COMPRESSION: 'zstd' }],
  ];
  for (const [variable, env] of bad) {
    it(`rejects a bad ${variable} (${JSON.stringify(env)}) with a message naming it`, () => {
      const error = configError(env);
      assert.equal(error.variable, variable);
      assert.ok(error.message.startsWith(variable));
      assert.ok(!error.message.includes('\n'), 'one line');
    });
  }

  it('takes the OTEL_* values the SDK honours, and OTEL_TRACES_EXPORTER=none turns tracing off', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_EXPORTER_OTLP_TIMEOUT: '5000',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    };
    loadConfig(env);
    assert.equal(tracingRequested(env), true);
    assert.equal(tracingRequested({ ...env, OTEL_TRACES_EXPORTER: 'none' }), false);
    assert.equal(tracingRequested({ ...env, OTEL_SDK_DISABLED: 'true' }), false);
  });

  it('parses TRUST_PROXY addresses and CIDR blocks of both families', () => {
    const config = loadConfig({ TRUST_PROXY: '10.0.0.0/8, ::1, 192.168.1.1' });
    assert.deepEqual(
      config.trustProxy.map(([addr, bits]) => `${addr.toString()}/${bits}`),
      ['10.0.0.0/8', '::1/128', '192.168.1.1/32'],
    );
  });

  it('generates the embedded master key once, with mode 0600, and reuses it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'authority-key-'));
    try {
      const config = loadConfig({ DATA_DIR: dir });
      const first = resolveMasterKey(config);
      assert.equal(first.length, 32);
      assert.equal(statSync(path.join(dir, 'master.key')).mode & 0o777, 0o600);
      assert.deepEqual(resolveMasterKey(config), first);
      writeFileSync(path.join(dir, 'master.key'), 'garbage');
      assert.throws(() => resolveMasterKey(config), ConfigError);
      assert.ok(
        readFileSync(path.join(dir, 'master.key'), 'utf8').includes('garbage'),
        'a bad key file is never overwritten',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops the CLI with one clear line and exit code 2, never a stack trace', () => {
    const cli = path.resolve(import.meta.dirname, '../../src/cli/main.ts');
    const result = spawnSync(process.execPath, ['--import', 'tsx', cli, 'serve'], {
      env: { ...process.env, PORT: 'eighty', DATABASE_URL: '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(result.status, 2);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /^authority: configuration error: PORT must be an integer/);
    assert.doesNotMatch(result.stderr, /at .*\.ts:\d+/);
  });
});
