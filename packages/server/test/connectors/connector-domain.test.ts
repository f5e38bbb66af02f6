import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  answerBody,
  DeadlineError,
  transportFailure,
} from '../../src/connectors/adapters/adapter-outcome.js';
import {
  DEFAULT_GITHUB_BASE_URL,
  parseConnectorConfig,
} from '../../src/connectors/adapters/connector-config.js';
import {
  GITHUB_OPERATIONS,
  isRefName,
  parseGithubArgs,
} from '../../src/connectors/adapters/github-operation.js';
import { type Connector, EXTERNAL_ADAPTER_ID, tokenBinding } from '../../src/connectors/connector.js';
import { healthOf } from '../../src/connectors/connector-views.js';
import { EgressRefusedError, EgressTimeoutError } from '../../src/egress/egress-client.js';

const base = {
  tenantId: 'acme',
  name: 'n',
  targetSystem: 'acme/api',
  autoExecute: true,
  sealedSecrets: null,
  createdAt: 0,
};

describe('connector config', () => {
  it('splits an http config into shown settings and sealed headers, lower-casing header names', () => {
    const parsed = parseConnectorConfig('http', {
      url: 'https://deploy.example.com/hooks/authority?x=1',
      headers: { 'X-Api-Key': 'k-123' },
    });
    assert.deepEqual(parsed, {
      ok: true,
      config: {
        type: 'http',
        settings: { url: 'https://deploy.example.com/hooks/authority?x=1', healthUrl: null },
        secrets: { headers: { 'x-api-key': 'k-123' } },
      },
    });
  });

  it('refuses bad http configs with one issue per problem, at its path', () => {
    const cases: Array<[unknown, string[]]> = [
      [{}, ['/config/url']],
      [{ url: 'ftp://x.example.com' }, ['/config/url']],
      [{ url: 'https://user:pw@x.example.com' }, ['/config/url']],
      [{ url: 'not a url' }, ['/config/url']],
      [{ url: `https://x.example.com/${'a'.repeat(2048)}` }, ['/config/url']],
      [{ url: 'https://x.example.com', healthUrl: 7 }, ['/config/healthUrl']],
      [{ url: 'https://x.example.com', headers: [] }, ['/config/headers']],
      [{ url: 'https://x.example.com', headers: { Authorization: 'x' } }, ['/config/headers/Authorization']],
      // Set by the adapter on every call: configured, they would be dropped or clash.
      [{ url: 'https://x.example.com', headers: { 'User-Agent': 'mine/1' } }, ['/config/headers/User-Agent']],
      [{ url: 'https://x.example.com', headers: { traceparent: 'x' } }, ['/config/headers/traceparent']],
      [{ url: 'https://x.example.com', headers: { 'bad name': 'x' } }, ['/config/headers/bad name']],
      [
        { url: 'https://x.example.com', headers: { 'x-a': 'line\r\nx-b: smuggled' } },
        ['/config/headers/x-a'],
      ],
      [{ url: 'https://x.example.com', headers: { 'x-a': 5 } }, ['/config/headers/x-a']],
    ];
    for (const [config, paths] of cases) {
      const parsed = parseConnectorConfig('http', config);
      assert.equal(parsed.ok, false, JSON.stringify(config));
      if (!parsed.ok)
        assert.deepEqual(
          parsed.issues.map((i) => i.path),
          paths,
          JSON.stringify(config),
        );
    }
  });

  it('requires a github token, defaults baseUrl to api.github.com and trims a trailing slash', () => {
    assert.deepEqual(parseConnectorConfig('github', { token: 'ghp_abc' }), {
      ok: true,
      config: {
        type: 'github',
        settings: { baseUrl: DEFAULT_GITHUB_BASE_URL },
        secrets: { token: 'ghp_abc' },
      },
    });
    assert.deepEqual(
      parseConnectorConfig('github', { token: 't', baseUrl: 'https://ghe.example.com/api/v3/' }),
      {
        ok: true,
        config: {
          type: 'github',
          settings: { baseUrl: 'https://ghe.example.com/api/v3' },
          secrets: { token: 't' },
        },
      },
    );
    for (const config of [
      {},
      { token: '' },
      { token: 'has space' },
      { token: 5 },
      { token: 't', baseUrl: 'x' },
    ]) {
      assert.equal(parseConnectorConfig('github', config).ok, false, JSON.stringify(config));
    }
  });

  it('takes an empty noop config; unknown members are ignored, never stored (contract §4.1)', () => {
    const empty = { ok: true, config: { type: 'noop', settings: {}, secrets: null } };
    assert.deepEqual(parseConnectorConfig('noop', {}), empty);
    assert.deepEqual(parseConnectorConfig('noop', { url: 'https://x.example.com' }), empty);
    const http = parseConnectorConfig('http', { url: 'https://x.example.com', extra: true });
    assert.equal(http.ok, true);
    assert.ok(http.ok && !JSON.stringify(http.config).includes('extra'));
    assert.equal(parseConnectorConfig('noop', null).ok, false);
  });

  it('never throws and never accepts a non-object config (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom('http', 'github', 'noop' as const), fc.jsonValue(), (type, value) => {
        const parsed = parseConnectorConfig(type, value);
        if (typeof value !== 'object' || value === null || Array.isArray(value))
          assert.equal(parsed.ok, false);
        if (!parsed.ok) assert.ok(parsed.issues.length > 0);
      }),
    );
  });
});

describe('token binding (contract §5)', () => {
  it('is external with adapterTarget = targetSystem when no connector serves the target', () => {
    assert.deepEqual(tokenBinding(undefined, 'acme/api'), {
      adapterId: EXTERNAL_ADAPTER_ID,
      adapterTarget: 'acme/api',
    });
  });

  it("is the connector's id, with what the connector acts on as adapterTarget", () => {
    const http: Connector = {
      ...base,
      id: 'c-1',
      type: 'http',
      settings: { url: 'https://deploy.example.com/run?key=secret', healthUrl: null },
    };
    assert.deepEqual(tokenBinding(http, 'acme/api'), {
      adapterId: 'c-1',
      adapterTarget: 'https://deploy.example.com/run',
    });
    const github: Connector = {
      ...base,
      id: 'c-2',
      type: 'github',
      settings: { baseUrl: 'https://api.github.com' },
    };
    assert.deepEqual(tokenBinding(github, 'acme/api'), {
      adapterId: 'c-2',
      adapterTarget: 'https://api.github.com/repos/acme/api',
    });
    const noop: Connector = { ...base, id: 'c-3', type: 'noop', settings: {}, autoExecute: false };
    assert.deepEqual(tokenBinding(noop, 'acme/api'), { adapterId: 'c-3', adapterTarget: 'noop:acme/api' });
  });
});

describe('github args', () => {
  it('accepts each operation with its own members', () => {
    assert.deepEqual(parseGithubArgs({ operation: 'merge_pr', pullNumber: 42, body: 'ship it' }), {
      ok: true,
      operation: { operation: 'merge_pr', pullNumber: 42, commitMessage: 'ship it' },
    });
    assert.deepEqual(parseGithubArgs({ operation: 'comment', pullNumber: 42, body: 'LGTM' }), {
      ok: true,
      operation: { operation: 'comment', issueNumber: 42, body: 'LGTM' },
    });
    assert.deepEqual(
      parseGithubArgs({ operation: 'create_branch', branch: 'release/1.2', fromRef: 'main' }),
      {
        ok: true,
        operation: { operation: 'create_branch', branch: 'release/1.2', fromRef: 'main' },
      },
    );
    assert.deepEqual(parseGithubArgs({ operation: 'delete_branch', branch: 'old' }), {
      ok: true,
      operation: { operation: 'delete_branch', branch: 'old' },
    });
    assert.deepEqual(
      parseGithubArgs({
        operation: 'dispatch_workflow',
        workflow: 'deploy.yml',
        ref: 'main',
        inputs: { env: 'prod', n: 2 },
      }),
      {
        ok: true,
        operation: {
          operation: 'dispatch_workflow',
          workflow: 'deploy.yml',
          ref: 'main',
          inputs: { env: 'prod', n: 2 },
        },
      },
    );
    assert.deepEqual(parseGithubArgs({ operation: 'dispatch_workflow', workflow: 161335 }), {
      ok: true,
      operation: { operation: 'dispatch_workflow', workflow: 161335, ref: null, inputs: {} },
    });
  });

  it('refuses what would run something other than what was asked', () => {
    const refused: unknown[] = [
      null,
      [],
      'merge_pr',
      {},
      { operation: 'force_push' },
      { operation: 'merge_pr' },
      { operation: 'merge_pr', pullNumber: 0 },
      { operation: 'merge_pr', pullNumber: 1.5 },
      { operation: 'merge_pr', pullNumber: '42' },
      { operation: 'merge_pr', pullNumber: 42, branch: 'main' },
      { operation: 'comment', issueNumber: 1 },
      { operation: 'comment', issueNumber: 1, pullNumber: 2, body: 'x' },
      { operation: 'comment', issueNumber: 1, body: '' },
      { operation: 'create_branch' },
      { operation: 'create_branch', branch: 'a..b' },
      { operation: 'create_branch', branch: 'x', fromRef: 'bad ref' },
      { operation: 'delete_branch', branch: '/lead' },
      { operation: 'delete_branch', branch: 'x.lock' },
      { operation: 'dispatch_workflow', workflow: '../x.yml' },
      { operation: 'dispatch_workflow', workflow: 'ci.yml', inputs: [] },
      { operation: 'dispatch_workflow', workflow: 'ci.yml', inputs: { 'bad name': 'x' } },
      { operation: 'dispatch_workflow', workflow: 'ci.yml', inputs: { a: { nested: true } } },
    ];
    for (const args of refused) assert.equal(parseGithubArgs(args).ok, false, JSON.stringify(args));
  });

  it('never throws, and anything accepted names a known operation (property)', () => {
    const member = fc.constantFrom(
      'operation',
      'pullNumber',
      'issueNumber',
      'body',
      'branch',
      'fromRef',
      'workflow',
      'ref',
      'inputs',
      'other',
    );
    const value = fc.oneof(
      fc.constantFrom(...GITHUB_OPERATIONS),
      fc.integer({ min: -3, max: 100 }),
      fc.string(),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(fc.dictionary(member, value), (args) => {
        const parsed = parseGithubArgs(args);
        if (parsed.ok)
          assert.ok((GITHUB_OPERATIONS as readonly string[]).includes(parsed.operation.operation));
        else assert.equal(typeof parsed.message, 'string');
      }),
    );
  });

  it('accepts only ref names git would accept (property: no refused character survives)', () => {
    assert.ok(isRefName('feature/x-1.2'));
    assert.ok(!isRefName('@'));
    assert.ok(!isRefName('a@{b'));
    assert.ok(!isRefName('trailing.'));
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (name) => {
        if (isRefName(name)) {
          assert.ok(!/[\s~^:?*[\\]/.test(name) && !name.includes('..'), name);
          assert.ok(!name.startsWith('/') && !name.endsWith('/') && !name.includes('//'), name);
        }
      }),
    );
  });
});

describe('execution outcomes', () => {
  it('classifies transport failures through wrapped causes', () => {
    const wrapped = (cause: unknown) => Object.assign(new Error('request failed'), { cause });
    assert.equal(transportFailure(new EgressTimeoutError(10)), 'TIMEOUT');
    assert.equal(transportFailure(wrapped(new DeadlineError())), 'TIMEOUT');
    assert.equal(transportFailure(wrapped(new EgressRefusedError('private'))), 'EGRESS_REFUSED');
    assert.equal(
      transportFailure(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })),
      'UNREACHABLE',
    );
    assert.equal(transportFailure('weird'), 'UNREACHABLE');
  });

  it('keeps JSON answers and cuts long text', () => {
    assert.equal(answerBody(''), null);
    assert.deepEqual(answerBody('{"ok":true}'), { ok: true });
    assert.equal(answerBody('plain'), 'plain');
    assert.equal((answerBody('x'.repeat(5_000)) as string).length, 1_000);
    assert.equal(typeof answerBody(`[${'1,'.repeat(10_000)}1]`), 'string', 'JSON over 16 KiB is cut as text');
  });

  it('maps a probe to a health status', () => {
    assert.equal(healthOf({ answered: true, ok: true }), 'healthy');
    assert.equal(healthOf({ answered: true, ok: false }), 'degraded');
    assert.equal(healthOf({ answered: false, ok: false }), 'down');
  });
});
