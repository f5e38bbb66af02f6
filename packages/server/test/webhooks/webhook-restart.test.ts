import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyWebhookSignature } from '@authority-runtime/sdk';
import SqliteDatabase from 'better-sqlite3';
import { type ServeProcess, startServeProcess, stopProcess } from '../helpers/serve-process.js';
import { type Receiver, startReceiver } from './receiver.js';

/** Starts `authority serve` with webhooks on a fast schedule, allowed to reach the 127.0.0.1 receiver. */
function startServe(dataDir: string): Promise<ServeProcess> {
  return startServeProcess(dataDir, {
    // The receiver listens on 127.0.0.1, which the egress guard opens only on purpose.
    ALLOW_PRIVATE_EGRESS: '1',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_TIMEOUT_MS: '500',
    WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100',
  });
}

describe('webhooks survive a killed server process', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'authority-webhooks-'));
  let receiver: Receiver;
  const children: ChildProcess[] = [];

  before(async () => {
    // The first request is held open, so the process dies mid-delivery; later ones succeed.
    receiver = await startReceiver(({ count }) => (count === 0 ? 'hang' : 204));
  });
  after(async () => {
    for (const child of children) await stopProcess(child, 'SIGKILL');
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an event whose delivery was in flight at SIGKILL is delivered after restart', async () => {
    const first = await startServe(dataDir);
    children.push(first.child);
    const key = /Owner API key \(shown once; store it now\): (service_live_\S+)/.exec(first.output)?.[1];
    assert.ok(key, first.output);
    const headers = {
      authorization: `Bearer ${key}`,
      'x-tenant-id': 'demo',
      'content-type': 'application/json',
    };

    const created = await fetch(`${first.base}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${receiver.base}/restart`, events: ['chain.break'] }),
    });
    assert.equal(created.status, 201);
    const endpoint = (await created.json()) as { id: string; secret: string };

    // Alter the chain behind the service's back; verification finds the break and emits chain.break.
    const sqlite = new SqliteDatabase(path.join(dataDir, 'authority.db'));
    try {
      const changed = sqlite
        .prepare(
          `update audit_entries set canonical = replace(canonical, '"webhook.created"', '"webhook.kreated"')
           where tenant_id = 'demo' and event_type = 'webhook.created'`,
        )
        .run();
      assert.equal(changed.changes, 1);
    } finally {
      sqlite.close();
    }
    const verified = await fetch(`${first.base}/audit/verify-chain`, { method: 'POST', headers, body: '{}' });
    assert.equal(((await verified.json()) as { valid: boolean }).valid, false);

    await receiver.waitFor(1);
    await stopProcess(first.child, 'SIGKILL');
    assert.equal(first.child.signalCode, 'SIGKILL');
    const held = receiver.received[0];
    assert.ok(held);
    assert.equal(held.answered, 'hang', 'the first attempt never got an answer');

    const second = await startServe(dataDir);
    children.push(second.child);
    try {
      await receiver.waitFor(2);
      const delivered = receiver.received[1];
      assert.ok(delivered);
      assert.equal(delivered.answered, 204);
      const again = JSON.parse(delivered.rawBody);
      assert.equal(again.eventId, JSON.parse(held.rawBody).eventId, 'the same event, not a new one');
      assert.equal(again.event, 'chain.break');
      const check = verifyWebhookSignature({
        rawBody: delivered.rawBody,
        signature: delivered.headers['x-service-signature'],
        secret: endpoint.secret,
      });
      assert.equal(check.valid, true);

      let status = '';
      const deadline = Date.now() + 5_000;
      while (status !== 'succeeded' && Date.now() < deadline) {
        const listed = await fetch(`${second.base}/webhooks/${endpoint.id}/deliveries`, { headers });
        status =
          ((await listed.json()) as { deliveries: Array<{ status: string }> }).deliveries[0]?.status ?? '';
        if (status !== 'succeeded') await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal(status, 'succeeded');
      assert.equal(receiver.received.length, 2, 'delivered once after the restart, nothing more');
    } finally {
      await stopProcess(second.child, 'SIGTERM');
    }
  });
});
