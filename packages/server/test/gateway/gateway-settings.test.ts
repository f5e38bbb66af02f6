import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/config/config.js';
import {
  configFromTargetSystem,
  DEFAULT_ADAPTER_ID,
  DEFAULT_RISK_CONTEXT,
  parseGatewayConfig,
} from '../../src/gateway/gateway-config.js';
import {
  DEFAULT_DECISION_TIMEOUT_MS,
  type GatewayFlags,
  resolveGatewaySettings,
  upstreamEnvironment,
} from '../../src/gateway/gateway-settings.js';

const KEY = `service_live_${'a'.repeat(43)}`;
const ENV = {
  AUTHORITY_URL: 'http://127.0.0.1:8080',
  AUTHORITY_TENANT: 'acme',
  AUTHORITY_API_KEY: KEY,
  AUTHORITY_TARGET_SYSTEM: 'acme/tools',
};

function problem(flags: GatewayFlags, env: Record<string, string | undefined>): string {
  try {
    resolveGatewaySettings(flags, env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail('expected a ConfigError');
}

function configProblem(text: string): string {
  try {
    parseGatewayConfig(text, 'gw.json');
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail('expected a ConfigError');
}

describe('gateway settings', () => {
  it('reads the service from the environment, and flags win', () => {
    const settings = resolveGatewaySettings({ upstream: 'node server.js --stdio' }, ENV);
    assert.deepEqual(settings.service, { baseUrl: 'http://127.0.0.1:8080', tenantId: 'acme', apiKey: KEY });
    assert.deepEqual(settings.upstream, { kind: 'command', command: 'node', args: ['server.js', '--stdio'] });
    assert.equal(settings.targetSystem, 'acme/tools');
    assert.equal(settings.listen, undefined);
    assert.equal(settings.waitApproval, false);
    assert.equal(settings.decisionTimeoutMs, DEFAULT_DECISION_TIMEOUT_MS);
    const flagged = resolveGatewaySettings(
      {
        upstreamUrl: 'http://127.0.0.1:9000/mcp',
        baseUrl: 'https://authority.example',
        tenant: 'other',
        key: `svc_${'b'.repeat(20)}`,
        listen: '[::1]:0',
        waitApproval: true,
        decisionTimeoutMs: '250',
      },
      ENV,
    );
    assert.deepEqual(flagged.service, {
      baseUrl: 'https://authority.example',
      tenantId: 'other',
      apiKey: `svc_${'b'.repeat(20)}`,
    });
    assert.equal(flagged.upstream.kind === 'url' && flagged.upstream.url.href, 'http://127.0.0.1:9000/mcp');
    assert.deepEqual(flagged.listen, { host: '::1', port: 0 });
    assert.equal(flagged.waitApproval, true);
    assert.equal(flagged.decisionTimeoutMs, 250);
  });

  it('splits the upstream command line like a shell, without expanding anything', () => {
    const settings = resolveGatewaySettings(
      { upstream: `npx -y "@scope/server x" --token=$AUTHORITY_API_KEY 'a b'` },
      ENV,
    );
    assert.deepEqual(settings.upstream, {
      kind: 'command',
      command: 'npx',
      args: ['-y', '@scope/server x', '--token=$AUTHORITY_API_KEY', 'a b'],
    });
  });

  it('names the setting of every missing or invalid value, and never echoes the key', () => {
    const cases: Array<[GatewayFlags, Record<string, string | undefined>, string]> = [
      [{ upstream: 'x' }, { ...ENV, AUTHORITY_URL: undefined }, 'AUTHORITY_URL (--base-url) is required'],
      [
        { upstream: 'x' },
        { ...ENV, AUTHORITY_URL: 'ftp://host' },
        'AUTHORITY_URL (--base-url) must be an http(s) URL',
      ],
      [{ upstream: 'x', baseUrl: 'not a url' }, ENV, 'AUTHORITY_URL (--base-url) must be an http(s) URL'],
      [{ upstream: 'x' }, { ...ENV, AUTHORITY_TENANT: ' ' }, 'AUTHORITY_TENANT (--tenant) is required'],
      [
        { upstream: 'x' },
        { ...ENV, AUTHORITY_TENANT: 'Acme!' },
        'AUTHORITY_TENANT (--tenant) must be a tenant id',
      ],
      [{ upstream: 'x' }, { ...ENV, AUTHORITY_API_KEY: undefined }, 'AUTHORITY_API_KEY (--key) is required'],
      [{ upstream: 'x', key: 'sk_live_secretvalue' }, ENV, 'AUTHORITY_API_KEY (--key) must be an API key'],
      [{}, ENV, '--upstream or --upstream-url is required'],
      [{ upstream: 'x', upstreamUrl: 'http://h/mcp' }, ENV, '--upstream and --upstream-url are exclusive'],
      [{ upstream: '   ' }, ENV, '--upstream must name a command'],
      [{ upstream: '"unterminated' }, ENV, '--upstream is not a valid command line'],
      [{ upstreamUrl: 'stdio://x' }, ENV, '--upstream-url must be an http(s) URL'],
      [
        { upstream: 'x' },
        { ...ENV, AUTHORITY_TARGET_SYSTEM: undefined },
        'AUTHORITY_TARGET_SYSTEM is required without --config',
      ],
      [{ upstream: 'x', listen: '8931' }, ENV, '--listen must be HOST:PORT'],
      [{ upstream: 'x', listen: '127.0.0.1:70000' }, ENV, '--listen must be HOST:PORT'],
      [{ upstream: 'x', decisionTimeoutMs: '0' }, ENV, '--decision-timeout-ms must be a whole number'],
      [{ upstream: 'x', decisionTimeoutMs: '1.5' }, ENV, '--decision-timeout-ms must be a whole number'],
      [{ upstream: 'x', decisionTimeoutMs: 'soon' }, ENV, '--decision-timeout-ms must be a whole number'],
    ];
    for (const [flags, env, expected] of cases) {
      const message = problem(flags, env);
      assert.ok(message.startsWith(expected), `${message} (expected ${expected})`);
      assert.ok(!message.includes('secretvalue') && !message.includes(KEY), message);
      assert.ok(!message.includes('\n'));
    }
  });

  it('does not need AUTHORITY_TARGET_SYSTEM with --config', () => {
    const settings = resolveGatewaySettings(
      { upstream: 'x', config: 'gw.json' },
      { ...ENV, AUTHORITY_TARGET_SYSTEM: undefined },
    );
    assert.equal(settings.configFile, 'gw.json');
    assert.equal(settings.targetSystem, undefined);
  });

  it('passes the upstream every variable but the AUTHORITY_* ones', () => {
    const env = upstreamEnvironment({
      ...ENV,
      PATH: '/usr/bin',
      GITHUB_TOKEN: 'ghp_x',
      authority_url: 'y',
      AUTHORITYX: 'kept',
      UNSET: undefined,
    });
    assert.deepEqual(env, { PATH: '/usr/bin', GITHUB_TOKEN: 'ghp_x', AUTHORITYX: 'kept' });
  });
});

describe('gateway config file', () => {
  it('applies the defaults of contract §11', () => {
    const config = parseGatewayConfig('{"targetSystem": "acme/tools"}', 'gw.json');
    assert.equal(config.targetSystem, 'acme/tools');
    assert.equal(config.adapterId, DEFAULT_ADAPTER_ID);
    assert.equal(config.actor, undefined);
    assert.deepEqual(config.toolSettings('anything'), {
      targetSystem: 'acme/tools',
      riskContext: DEFAULT_RISK_CONTEXT,
      hidden: false,
    });
    assert.deepEqual(DEFAULT_RISK_CONTEXT, { baseRiskScore: 10 });
    assert.deepEqual(configFromTargetSystem('acme/other').toolSettings('x'), {
      targetSystem: 'acme/other',
      riskContext: { baseRiskScore: 10 },
      hidden: false,
    });
  });

  it('applies the first matching tool entry in file order, integer-like names included', () => {
    // Written by hand: a JavaScript object literal would itself move "42" first.
    const text = `{
      "targetSystem": "acme/tools",
      "adapterId": "mcp-gateway",
      "actor": {"id": "assistant", "type": "service"},
      "defaultRiskContext": {"baseRiskScore": 20},
      "tools": {
        "write_*": {"riskContext": {"baseRiskScore": 50, "touchesProduction": true}},
        "secret?": {"hidden": true},
        "*": {"targetSystem": "acme/catch-all"},
        "42": {"hidden": true}
      }
    }`;
    const config = parseGatewayConfig(text, 'gw.json');
    assert.equal(config.adapterId, 'mcp-gateway');
    assert.deepEqual(config.actor, { id: 'assistant', type: 'service' });
    assert.deepEqual(config.toolSettings('write_file'), {
      targetSystem: 'acme/tools',
      riskContext: { baseRiskScore: 50, touchesProduction: true },
      hidden: false,
    });
    assert.deepEqual(config.toolSettings('secret1'), {
      targetSystem: 'acme/tools',
      riskContext: { baseRiskScore: 20 },
      hidden: true,
    });
    assert.equal(config.toolSettings('secret12').hidden, false);
    // "42" comes after "*" in the file, so "*" applies (JSON.parse alone would put "42" first).
    assert.deepEqual(config.toolSettings('42'), {
      targetSystem: 'acme/catch-all',
      riskContext: { baseRiskScore: 20 },
      hidden: false,
    });
  });

  it('names the file and the path of every problem', () => {
    const cases: Array<[string, string]> = [
      ['{', '--config gw.json: is not valid JSON'],
      ['[]', '--config gw.json: (the document): must be object'],
      ['{}', '--config gw.json: targetSystem: is required'],
      ['{"targetSystem": "no-slash"}', '--config gw.json: targetSystem: must match pattern'],
      ['{"targetSystem": "a/b", "extra": 1}', '--config gw.json: extra: is not a known field'],
      [
        '{"targetSystem": "a/b", "adapterId": ""}',
        '--config gw.json: adapterId: must not have fewer than 1 characters',
      ],
      ['{"targetSystem": "a/b", "actor": {"id": "x", "type": "robot"}}', '--config gw.json: actor.type:'],
      [
        '{"targetSystem": "a/b", "defaultRiskContext": {}}',
        '--config gw.json: defaultRiskContext.baseRiskScore: is required',
      ],
      [
        '{"targetSystem": "a/b", "tools": {"write_*": {"hidden": "yes"}}}',
        '--config gw.json: tools["write_*"].hidden: must be boolean',
      ],
      [
        '{"targetSystem": "a/b", "tools": {"x": {"riskContext": {"baseRiskScore": 101}}}}',
        '--config gw.json: tools["x"].riskContext.baseRiskScore: must be <= 100',
      ],
      [
        '{"targetSystem": "a/b", "tools": {"x": {"readOnly": true}}}',
        '--config gw.json: tools["x"].readOnly: is not a known field',
      ],
      [
        '{"targetSystem": "a/b", "tools": {"x": {}, "x": {"hidden": true}}}',
        '--config gw.json: tools["x"]: is given twice',
      ],
      [
        '{"targetSystem": "a/b", "tools": {"x": {"riskContext": {"baseRiskScore": 1, "github": {"owner": "c", "repo": "d"}}}}}',
        '--config gw.json: tools["x"].riskContext.github: owner/repo (c/d) must equal the targetSystem (a/b)',
      ],
      [
        '{"targetSystem": "a/b", "defaultRiskContext": {"baseRiskScore": 1, "github": {"owner": "a", "repo": "b"}}, "tools": {"x": {"targetSystem": "c/d"}}}',
        '--config gw.json: tools["x"].riskContext.github: owner/repo (a/b) must equal the targetSystem (c/d)',
      ],
    ];
    for (const [text, expected] of cases) {
      const message = configProblem(text);
      assert.ok(message.startsWith(expected), `${message} (expected ${expected})`);
    }
  });

  it('takes AUTHORITY_TARGET_SYSTEM only in owner/repo form', () => {
    assert.throws(() => configFromTargetSystem('not a repo'), /AUTHORITY_TARGET_SYSTEM must be owner\/repo/);
  });
});
