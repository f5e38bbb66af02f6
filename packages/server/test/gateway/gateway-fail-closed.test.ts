import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FaultAction } from '../helpers/fault-proxy.js';
import {
  connectStdio,
  decisionOf,
  NODE_TS,
  RATIONALE,
  RECORDING_STDIO,
  type Service,
  type StdioGateway,
  scratch,
  startService,
  textOf,
} from './gateway-harness.js';

const envelope = (status: number, code: string): FaultAction => ({
  status,
  body: { error: { code, message: 'failing on purpose', requestId: 'proxy' } },
});
/** More failures than the client makes attempts, so every retry fails too. */
const always = (action: FaultAction): FaultAction[] => Array.from({ length: 8 }, () => action);

describe('authority gateway fails closed', () => {
  let service: Service;
  let gateway: StdioGateway;
  const files = scratch();

  before(async () => {
    service = await startService();
    gateway = await connectStdio(
      {
        serviceUrl: service.proxy.url,
        agentKey: service.agentKey,
        upstream: { command: [...NODE_TS, RECORDING_STDIO] },
        decisionTimeoutMs: 3_000,
        env: { RECORD_FILE: files.recordFile },
      },
      files.dir,
    );
  });
  after(async () => {
    await gateway?.close();
    await service?.proxy.close();
    await service?.t.close().catch(() => {});
    files.dispose();
  });

  const read = async () => {
    const path = `docs/${randomUUID()}.md`;
    const result = (await gateway.client.callTool({
      name: 'read_file',
      arguments: { path },
    })) as CallToolResult;
    return { result, path };
  };
  const forwarded = () => files.calls().length;

  async function refusedWith(code: string, plan: FaultAction[]) {
    const calls = forwarded();
    service.proxy.plan(...plan);
    const { result } = await read();
    service.proxy.plan();
    assert.equal(result.isError, true);
    assert.equal(textOf(result), `authority unavailable: ${code}`);
    const meta = decisionOf(result);
    assert.equal(meta.decision, 'UNAVAILABLE');
    assert.equal(meta.code, code);
    assert.deepEqual(result.structuredContent, { authority: meta });
    assert.equal(forwarded(), calls, 'the upstream received nothing');
    return meta;
  }

  it('forwards an approved call while the service answers', async () => {
    const { result, path } = await read();
    assert.equal(textOf(result), `contents of ${path}`);
    assert.equal(forwarded(), 1);
  });

  it('refuses every call while the service answers 503', async () => {
    await refusedWith('SERVICE_UNAVAILABLE', always(envelope(503, 'SERVICE_UNAVAILABLE')));
  });

  it('refuses when the decision fails inside the service (500 AUTHORITY_LOOP_FAILED)', async () => {
    await refusedWith('AUTHORITY_LOOP_FAILED', always(envelope(500, 'AUTHORITY_LOOP_FAILED')));
  });

  it('refuses an APPROVED decision whose token cannot be consumed', async () => {
    const meta = await refusedWith('INTERNAL_ERROR', ['forward', ...always(envelope(500, 'INTERNAL_ERROR'))]);
    assert.equal(typeof meta.intentId, 'string');
  });

  it('refuses a consume answer whose valid is not the boolean true, even for the right intent', async () => {
    // What a broken or hostile service could answer: truthy, and naming the token's own intent.
    for (const valid of ['true', 1]) {
      const claimsOf = (requestBody: string) => {
        const { token } = JSON.parse(requestBody) as { token: string };
        return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as unknown;
      };
      await refusedWith('INVALID_RESPONSE', [
        'forward',
        { answer: (requestBody) => ({ status: 200, body: { valid, claims: claimsOf(requestBody) } }) },
      ]);
    }
  });

  it('refuses when the consume answer is lost and the retry finds the nonce spent', async () => {
    await refusedWith('NONCE_ALREADY_CONSUMED', ['forward', 'lose-reply']);
  });

  it('refuses when the service hangs past --decision-timeout-ms', async () => {
    const started = Date.now();
    await refusedWith('TIMEOUT', always('hang'));
    // A generous hang guard, not a timing assertion: the bound is the gateway's, 3 s here.
    assert.ok(Date.now() - started < 30_000);
  });

  it('gets the token of an approved escalation on a later repeat when the first fetch lost its answer', async () => {
    const path = `notes/${randomUUID()}.txt`;
    const write = async () =>
      (await gateway.client.callTool({ name: 'write_file', arguments: { path } })) as CallToolResult;
    const intentId = String(decisionOf(await write()).intentId);
    await service.approver.decideApproval({ intentId, decision: 'approve', rationale: RATIONALE });
    // The read of the intent goes through; the token is minted but its answer lost, and the retry hangs.
    service.proxy.plan('forward', 'lose-reply', ...always('hang'));
    const lost = await write();
    service.proxy.plan();
    assert.equal(textOf(lost), 'authority unavailable: TIMEOUT');
    assert.equal((await service.owner.getIntent(intentId)).tokenIssued, true);
    assert.equal(textOf(await write()), `wrote 0 characters to ${path}`);
    assert.equal(files.calls().filter((c) => c.arguments?.path === path).length, 1);
  });

  it('refuses every call once the service is stopped mid-session, remembered escalations included', async () => {
    const path = `notes/${randomUUID()}.txt`;
    const escalated = (await gateway.client.callTool({
      name: 'write_file',
      arguments: { path },
    })) as CallToolResult;
    assert.match(textOf(escalated), /^ESCALATED: approval required/);
    await service.t.app.close();
    const calls = forwarded();
    const { result } = await read();
    assert.equal(textOf(result), 'authority unavailable: NETWORK_ERROR');
    const repeat = (await gateway.client.callTool({
      name: 'write_file',
      arguments: { path },
    })) as CallToolResult;
    assert.equal(textOf(repeat), 'authority unavailable: NETWORK_ERROR');
    assert.equal(decisionOf(repeat).intentId, decisionOf(escalated).intentId);
    assert.equal(forwarded(), calls);
  });
});
