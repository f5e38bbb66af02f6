import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Connector } from '../../src/connectors/connector.js';
import type { ExecutionReport } from '../../src/connectors/connector-execution.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { recordIntent } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';
import { mintFor } from '../helpers/tokens.js';
import { type GithubRequest, type GithubServer, startGithubServer } from './github-server.js';

const TARGET = 'acme/api';
const TOKEN = 'ghp_adapterTest0123456789abcdefABCDEFghij';
const SHA_MAIN = 'a'.repeat(40);

/** The headers of a request minus what the transport adds (host, connection, framing). */
function headersOf(request: GithubRequest | undefined): Record<string, unknown> {
  assert.ok(request, 'expected a request');
  const { host, connection, 'transfer-encoding': _te, 'content-length': _cl, ...rest } = request.headers;
  assert.ok(host && connection);
  return rest;
}

function expectedHeaders(contentType?: string): Record<string, unknown> {
  return {
    accept: 'application/vnd.github.v3+json',
    authorization: `token ${TOKEN}`,
    'x-github-api-version': '2022-11-28',
    ...(contentType ? { 'content-type': contentType } : {}),
  };
}

/** Compares everything exactly but the user agent, which names Octokit's and Node's versions. */
function assertRequest(
  request: GithubRequest | undefined,
  expected: { method: string; path: string; body?: unknown; contentType?: string },
): void {
  const headers = headersOf(request);
  const { 'user-agent': agent, ...rest } = headers;
  assert.match(String(agent), /^authority-runtime-connectors\/\S+ octokit-rest\.js\/\S+ octokit-core\.js\//);
  assert.deepEqual(rest, expectedHeaders(expected.contentType));
  assert.equal(request?.method, expected.method);
  assert.equal(request?.path, expected.path);
  assert.deepEqual(request?.body, expected.body);
}

for (const engine of ENGINES) {
  describe(`github connector against a local GitHub REST peer, Enterprise baseUrl (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let gh: GithubServer;
    let connector: Connector;

    before(async () => {
      t = await createTestApp(engine, { EGRESS_ALLOW_CIDRS: '127.0.0.1/32', CONNECTOR_TIMEOUT_MS: '400' });
      owner = await t.ownerHeaders('acme');
      gh = await startGithubServer({
        owner: 'acme',
        repo: 'api',
        token: TOKEN,
        prefix: '/api/v3',
        mergeable: [42],
        renamedFrom: 'old-api',
      });
      const res = await t.app.inject({
        method: 'POST',
        url: '/connectors',
        headers: owner,
        payload: {
          type: 'github',
          name: 'api repo',
          targetSystem: TARGET,
          config: { token: TOKEN, baseUrl: gh.baseUrl },
          autoExecute: true,
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      const found = await t.services.connectors.forTarget('acme', TARGET);
      assert.ok(found);
      connector = found;
    });
    after(async () => {
      await gh.close();
      await t.close();
    });

    async function tokenFor() {
      const { intentId } = await recordIntent(t.storage, t.services, t.clock(), {
        tenantId: 'acme',
        decision: 'APPROVED',
        targetSystem: TARGET,
      });
      const minted = await mintFor(t, 'acme', {
        intentId,
        ...t.services.connectors.tokenBinding(connector, TARGET),
        targetSystem: TARGET,
      });
      return { intentId, token: minted.token };
    }

    /** Executes `args` with a fresh token; returns the report and the requests GitHub got meanwhile. */
    async function run(
      args: unknown,
      token?: { intentId: string; token: string },
    ): Promise<{ report: ExecutionReport; requests: GithubRequest[] }> {
      const { intentId, token: jwt } = token ?? (await tokenFor());
      const before = gh.requests.length;
      const report = await t.services.connectors.execute('acme', connector, {
        intentId,
        correlationId: intentId,
        token: jwt,
        proposedAction: 'act on the repository',
        targetSystem: TARGET,
        args,
      });
      return { report, requests: gh.requests.slice(before) };
    }

    it('binds tokens to the connector with the repository API URL as adapterTarget', () => {
      assert.deepEqual(t.services.connectors.tokenBinding(connector, TARGET), {
        adapterId: connector.id,
        adapterTarget: `${gh.baseUrl}/repos/acme/api`,
      });
    });

    it('merge_pr: PUT …/pulls/42/merge with the commit message', async () => {
      const { report, requests } = await run({
        operation: 'merge_pr',
        pullNumber: 42,
        body: 'Ship build 812',
      });
      assert.deepEqual(report.execution, {
        attempted: true,
        status: 'executed',
        adapterId: connector.id,
        result: { operation: 'merge_pr', pullNumber: 42, merged: true, sha: 'b'.repeat(40) },
      });
      assert.equal(requests.length, 1);
      assertRequest(requests[0], {
        method: 'PUT',
        path: '/api/v3/repos/acme/api/pulls/42/merge',
        body: { commit_message: 'Ship build 812' },
        contentType: 'application/json; charset=utf-8',
      });
    });

    it('comment: POST …/issues/7/comments with the body', async () => {
      const { report, requests } = await run({
        operation: 'comment',
        issueNumber: 7,
        body: 'Deployed by Authority',
      });
      assert.equal(report.execution.status, 'executed');
      assert.deepEqual((report.execution as { result: unknown }).result, {
        operation: 'comment',
        issueNumber: 7,
        commentId: 1000,
        url: 'https://github.test/acme/api/issues/7#issuecomment-1000',
      });
      assert.equal(requests.length, 1);
      assertRequest(requests[0], {
        method: 'POST',
        path: '/api/v3/repos/acme/api/issues/7/comments',
        body: { body: 'Deployed by Authority' },
        contentType: 'application/json; charset=utf-8',
      });
    });

    it('create_branch from the default branch: read the repository, read the ref, create the ref', async () => {
      const { report, requests } = await run({ operation: 'create_branch', branch: 'release/1.2' });
      assert.deepEqual((report.execution as { result: unknown }).result, {
        operation: 'create_branch',
        branch: 'release/1.2',
        ref: 'refs/heads/release/1.2',
        sha: SHA_MAIN,
      });
      assert.equal(requests.length, 3);
      assertRequest(requests[0], { method: 'GET', path: '/api/v3/repos/acme/api' });
      assertRequest(requests[1], { method: 'GET', path: '/api/v3/repos/acme/api/git/ref/heads%2Fmain' });
      assertRequest(requests[2], {
        method: 'POST',
        path: '/api/v3/repos/acme/api/git/refs',
        body: { ref: 'refs/heads/release/1.2', sha: SHA_MAIN },
        contentType: 'application/json; charset=utf-8',
      });
      assert.equal(gh.branches.get('release/1.2'), SHA_MAIN);
    });

    it('create_branch from a commit SHA creates the ref directly', async () => {
      const sha = 'c'.repeat(40);
      const { requests } = await run({ operation: 'create_branch', branch: 'hotfix', fromRef: sha });
      assert.equal(requests.length, 1);
      assertRequest(requests[0], {
        method: 'POST',
        path: '/api/v3/repos/acme/api/git/refs',
        body: { ref: 'refs/heads/hotfix', sha },
        contentType: 'application/json; charset=utf-8',
      });
    });

    it('delete_branch: DELETE …/git/refs/heads%2F<branch>, no body', async () => {
      const { report, requests } = await run({ operation: 'delete_branch', branch: 'release/1.2' });
      assert.deepEqual((report.execution as { result: unknown }).result, {
        operation: 'delete_branch',
        branch: 'release/1.2',
        deleted: true,
      });
      assert.equal(requests.length, 1);
      assertRequest(requests[0], {
        method: 'DELETE',
        path: '/api/v3/repos/acme/api/git/refs/heads%2Frelease%2F1.2',
      });
      assert.equal(gh.branches.has('release/1.2'), false);
    });

    it('dispatch_workflow: POST …/actions/workflows/deploy.yml/dispatches with ref and inputs', async () => {
      const { report, requests } = await run({
        operation: 'dispatch_workflow',
        workflow: 'deploy.yml',
        ref: 'main',
        inputs: { environment: 'production', canary: true },
      });
      assert.deepEqual((report.execution as { result: unknown }).result, {
        operation: 'dispatch_workflow',
        workflow: 'deploy.yml',
        ref: 'main',
      });
      assert.equal(requests.length, 1);
      assertRequest(requests[0], {
        method: 'POST',
        path: '/api/v3/repos/acme/api/actions/workflows/deploy.yml/dispatches',
        body: { ref: 'main', inputs: { environment: 'production', canary: true } },
        contentType: 'application/json; charset=utf-8',
      });
    });

    it("fails with HTTP_ERROR and GitHub's status and message when GitHub refuses", async () => {
      const { report, requests } = await run({ operation: 'merge_pr', pullNumber: 9 });
      assert.deepEqual(report.execution, {
        attempted: true,
        status: 'failed',
        adapterId: connector.id,
        reason: 'HTTP_ERROR',
        result: { statusCode: 405, message: 'Pull Request is not mergeable' },
      });
      assert.equal(requests.length, 1);
      assertRequest(requests[0], {
        method: 'PUT',
        path: '/api/v3/repos/acme/api/pulls/9/merge',
        contentType: 'application/json',
      });
    });

    it('treats a redirect as a failure and does not follow it (a renamed repository answers 301)', async () => {
      const created = await t.app.inject({
        method: 'POST',
        url: '/connectors',
        headers: owner,
        payload: {
          type: 'github',
          name: 'old name',
          targetSystem: 'acme/old-api',
          config: { token: TOKEN, baseUrl: gh.baseUrl },
          autoExecute: true,
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const renamed = await t.services.connectors.forTarget('acme', 'acme/old-api');
      assert.ok(renamed);
      const { intentId } = await recordIntent(t.storage, t.services, t.clock(), {
        tenantId: 'acme',
        decision: 'APPROVED',
        targetSystem: 'acme/old-api',
      });
      const minted = await mintFor(t, 'acme', {
        intentId,
        ...t.services.connectors.tokenBinding(renamed, 'acme/old-api'),
        targetSystem: 'acme/old-api',
      });
      const before = gh.requests.length;
      const report = await t.services.connectors.execute('acme', renamed, {
        intentId,
        correlationId: intentId,
        token: minted.token,
        proposedAction: 'merge',
        targetSystem: 'acme/old-api',
        args: { operation: 'merge_pr', pullNumber: 42 },
      });
      assert.deepEqual(report.execution, {
        attempted: true,
        status: 'failed',
        adapterId: renamed.id,
        reason: 'HTTP_ERROR',
        result: { statusCode: 301, message: 'Moved Permanently' },
      });
      assert.deepEqual(
        gh.requests.slice(before).map((r) => `${r.method} ${r.path}`),
        ['PUT /api/v3/repos/acme/old-api/pulls/42/merge'],
        'one request, the redirect not followed',
      );
      const test = await t.app.inject({
        method: 'POST',
        url: `/connectors/${renamed.id}/test`,
        headers: owner,
      });
      assert.equal(test.json().ok, false);
      assert.equal(test.json().error, 'HTTP 301: Moved Permanently');
    });

    it('fails with INVALID_ARGS without calling GitHub (the token is still spent)', async () => {
      const { report, requests } = await run({ operation: 'merge_pr', pullNumber: 42, branch: 'main' });
      assert.equal(report.execution.status, 'failed');
      assert.equal((report.execution as { reason: string }).reason, 'INVALID_ARGS');
      assert.deepEqual((report.execution as { result: unknown }).result, {
        error: 'args.branch does not apply to merge_pr',
      });
      assert.equal(report.audit.entriesWritten, 2);
      assert.deepEqual(requests, []);
    });

    it('fails with ADAPTER_ERROR, calling nothing, when the stored secrets cannot be opened', async () => {
      // Change the first character of the authentication tag (version:iv:tag:body): it carries six
      // bits of the tag's first byte, so the tag always differs and the box refuses to open.
      const [version, iv, tag = '', body] = (connector.sealedSecrets ?? '').split(':');
      const damagedTag = `${tag.startsWith('A') ? 'B' : 'A'}${tag.slice(1)}`;
      const damaged: Connector = { ...connector, sealedSecrets: [version, iv, damagedTag, body].join(':') };
      const { intentId, token } = await tokenFor();
      const before = gh.requests.length;
      const report = await t.services.connectors.execute('acme', damaged, {
        intentId,
        correlationId: intentId,
        token,
        proposedAction: 'comment',
        targetSystem: TARGET,
        args: { operation: 'comment', issueNumber: 1, body: 'x' },
      });
      assert.deepEqual(report.execution, {
        attempted: true,
        status: 'failed',
        adapterId: connector.id,
        reason: 'ADAPTER_ERROR',
        result: { error: 'the adapter could not run' },
      });
      assert.equal(gh.requests.length, before);
    });

    it('never calls GitHub with a replayed or expired token', async () => {
      const token = await tokenFor();
      const first = await run({ operation: 'comment', issueNumber: 1, body: 'once' }, token);
      assert.equal(first.report.execution.status, 'executed');
      const replay = await run({ operation: 'comment', issueNumber: 1, body: 'twice' }, token);
      assert.equal((replay.report.execution as { reason: string }).reason, 'NONCE_ALREADY_CONSUMED');
      assert.deepEqual(replay.requests, []);

      const stale = await tokenFor();
      t.clock.advance(310_000);
      const expired = await run({ operation: 'comment', issueNumber: 1, body: 'late' }, stale);
      assert.equal((expired.report.execution as { reason: string }).reason, 'TOKEN_EXPIRED');
      assert.deepEqual(expired.requests, []);
    });

    it('tests the connection with GET /repos/{owner}/{repo}: a real round trip with its latency', async () => {
      const before = gh.requests.length;
      const res = await t.app.inject({
        method: 'POST',
        url: `/connectors/${connector.id}/test`,
        headers: owner,
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['checkedAt', 'connectorId', 'latencyMs', 'ok']);
      assert.equal(body.connectorId, connector.id);
      assert.equal(body.ok, true);
      assert.ok(Number.isInteger(body.latencyMs) && body.latencyMs >= 0);
      assert.equal(body.checkedAt, new Date(t.clock()).toISOString());
      assert.equal(gh.requests.length, before + 1);
      assertRequest(gh.requests.at(-1), { method: 'GET', path: '/api/v3/repos/acme/api' });
      const listed = await t.app.inject({ method: 'GET', url: '/connectors', headers: owner });
      const view = listed.json().connectors[0];
      assert.equal(view.status, 'healthy');
      assert.equal(view.lastCheckedAt, body.checkedAt);
      assert.equal(view.latencyMs, body.latencyMs);
      assert.equal(view.lastError, null);
    });

    it('reports a token GitHub refuses as not ok and the connector as degraded', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/connectors',
        headers: owner,
        payload: {
          type: 'github',
          name: 'wrong token',
          targetSystem: 'acme/other',
          config: { token: 'ghp_wrong', baseUrl: gh.baseUrl },
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      const test = await t.app.inject({
        method: 'POST',
        url: `/connectors/${res.json().id}/test`,
        headers: owner,
      });
      assert.equal(test.json().ok, false);
      assert.equal(test.json().error, 'HTTP 401: Bad credentials');
      const listed = await t.app.inject({ method: 'GET', url: '/connectors', headers: owner });
      const view = listed.json().connectors.find((c: { id: string }) => c.id === res.json().id);
      assert.equal(view.status, 'degraded');
      assert.equal(view.lastError, 'HTTP 401: Bad credentials');
    });

    it('fails with TIMEOUT when GitHub is slower than CONNECTOR_TIMEOUT_MS', async () => {
      gh.delay(1_000);
      try {
        const { report } = await run({ operation: 'comment', issueNumber: 3, body: 'slow' });
        assert.equal((report.execution as { reason: string }).reason, 'TIMEOUT');
        assert.match(JSON.stringify(report.execution), /within 400 ms/);
      } finally {
        gh.delay(0);
      }
    });
  });
}
