import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
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

const WAITING = /^waiting for approval \(escalation (\S+), intent (\S+)\)$/;

describe('authority gateway --wait-approval', () => {
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
        waitApproval: true,
        env: { RECORD_FILE: files.recordFile },
      },
      files.dir,
    );
  });
  after(async () => {
    await gateway?.close();
    await service?.close();
    files.dispose();
  });

  const writesTo = (path: string) =>
    files.calls().filter((c) => c.name === 'write_file' && c.arguments?.path === path);

  /** Starts a call that will wait, and resolves its intent id from the first progress notification. */
  function waitingCall(args: Record<string, unknown>, signal?: AbortSignal) {
    const progress: Progress[] = [];
    let announce: (intentId: string) => void = () => {};
    const intent = new Promise<string>((resolve) => {
      announce = resolve;
    });
    const result = gateway.client.callTool({ name: 'write_file', arguments: args }, undefined, {
      onprogress: (update) => {
        progress.push(update);
        const match = WAITING.exec(update.message ?? '');
        if (match?.[2]) announce(match[2]);
      },
      resetTimeoutOnProgress: true,
      ...(signal ? { signal } : {}),
    }) as Promise<CallToolResult>;
    return { result, intent, progress };
  }

  it('holds the call until another principal approves it, reporting progress, then forwards it once', async () => {
    const path = `notes/${randomUUID()}.txt`;
    const call = waitingCall({ path, content: 'approved' });
    const intentId = await call.intent;
    assert.deepEqual(writesTo(path), []);
    await service.approver.decideApproval({ intentId, decision: 'approve', rationale: RATIONALE });
    const result = await call.result;
    assert.deepEqual(result, { content: [{ type: 'text', text: `wrote 8 characters to ${path}` }] });
    assert.equal(writesTo(path).length, 1);
    assert.ok(call.progress.length >= 1);
    assert.equal(call.progress[0]?.progress, 1);
    assert.ok(call.progress.every((p, i) => i === 0 || p.progress > (call.progress[i - 1]?.progress ?? 0)));
    const view = await service.owner.getIntent(intentId);
    assert.equal(view.status, 'APPROVED_AFTER_REVIEW');
    assert.equal(view.tokenIssued, true);
  });

  it('reports progress to an identical call queued behind a held one, so its client does not time out', async () => {
    const path = `notes/${randomUUID()}.txt`;
    const first = waitingCall({ path, content: 'twice' });
    const intentId = await first.intent;
    const queued = waitingCall({ path, content: 'twice' });
    // At once, while the first still waits for a human (the client's timeout resets on progress).
    for (let i = 0; i < 100 && queued.progress.length === 0; i += 1) await sleep(20);
    assert.match(queued.progress[0]?.message ?? '', /^waiting for an identical call ahead of this one/);
    await service.approver.decideApproval({ intentId, decision: 'deny', rationale: RATIONALE });
    assert.equal((await first.result).isError, true);
    // Decided after the first, it finds the same escalation, denied: no second intent.
    const result = await queued.result;
    assert.equal(decisionOf(result).decision, 'DENIED_AFTER_REVIEW');
    assert.match(textOf(result), new RegExp(`\\(intent ${intentId}\\) was denied$`));
    assert.deepEqual(writesTo(path), []);
  });

  it('refuses the held call when the escalation is denied', async () => {
    const path = `notes/${randomUUID()}.txt`;
    const call = waitingCall({ path });
    const intentId = await call.intent;
    await service.approver.decideApproval({ intentId, decision: 'deny', rationale: RATIONALE });
    const result = await call.result;
    assert.equal(result.isError, true);
    assert.match(
      textOf(result),
      new RegExp(`^DENIED by review: escalation \\S+ \\(intent ${intentId}\\) was denied$`),
    );
    assert.equal(decisionOf(result).decision, 'DENIED_AFTER_REVIEW');
    assert.deepEqual(writesTo(path), []);
  });

  it('refuses the held call when the escalation expires; a call without a progress token waits too', async () => {
    const path = `notes/${randomUUID()}.txt`;
    const known = new Set(await service.intents());
    const result = gateway.client.callTool({
      name: 'write_file',
      arguments: { path },
    }) as Promise<CallToolResult>;
    let intentId: string | undefined;
    while (intentId === undefined) {
      await sleep(100);
      intentId = (await service.intents()).find((id) => !known.has(id));
    }
    assert.equal((await service.owner.getIntent(intentId)).status, 'ESCALATED');
    service.t.clock.advance(3_601_000);
    const refused = await result;
    assert.match(
      textOf(refused),
      new RegExp(`^EXPIRED: escalation \\S+ \\(intent ${intentId}\\) expired without a decision$`),
    );
    assert.deepEqual(writesTo(path), []);
  });

  it('ends a held call as "authority unavailable" when the service stops answering its polls', {
    timeout: 30_000,
  }, async () => {
    const path = `notes/${randomUUID()}.txt`;
    const call = waitingCall({ path });
    await call.intent;
    const unavailable = {
      status: 503,
      body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'down', requestId: 'proxy' } },
    };
    service.proxy.plan(...Array.from({ length: 200 }, () => unavailable));
    try {
      const result = await call.result;
      assert.equal(result.isError, true);
      assert.match(textOf(result), /^authority unavailable: SERVICE_UNAVAILABLE/);
    } finally {
      service.proxy.plan();
    }
    assert.deepEqual(writesTo(path), []);
  });

  it('stops waiting when the client cancels; the escalation is remembered and a later repeat goes through once approved', async () => {
    const path = `notes/${randomUUID()}.txt`;
    const controller = new AbortController();
    const call = waitingCall({ path }, controller.signal);
    const intentId = await call.intent;
    controller.abort(new Error('the user gave up'));
    await assert.rejects(call.result);
    // The gateway stops polling the intent (it polls once a second while it waits).
    const polls = () =>
      service.proxy.requests.filter((r) => r.method === 'GET' && r.url === `/intent/${intentId}`).length;
    await sleep(1_500);
    const settled = polls();
    await sleep(2_000);
    assert.equal(polls(), settled);
    await service.approver.decideApproval({ intentId, decision: 'approve', rationale: RATIONALE });
    const intentsBefore = await service.intents();
    const again = (await gateway.client.callTool({
      name: 'write_file',
      arguments: { path },
    })) as CallToolResult;
    assert.equal(textOf(again), `wrote 0 characters to ${path}`);
    assert.deepEqual(await service.intents(), intentsBefore, 'the repeat used the remembered escalation');
    assert.equal(writesTo(path).length, 1);
  });
});
