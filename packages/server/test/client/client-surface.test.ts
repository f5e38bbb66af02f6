import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  AuthorityApiError,
  AuthorityClient,
  cosigner,
  generateSignerKey,
  hashFromHex,
  type PhysicalTokenRequest,
  staticJwks,
  verifyChainExport,
  verifyCheckpoint,
  verifyInclusionProof,
} from '@authority-runtime/sdk';
import { WIRE_ROUTE_LIST } from '@authority-runtime/sdk/wire';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { conformanceProblem, type RecordedAnswer, recordingFetch } from '../helpers/wire-recorder.js';
import { clearState, engaged, moveGoal, pickGoal, ROBOT, tokenBody } from '../physical-api/fixtures.js';

const RATIONALE = 'Reviewed the change and the blast radius';
const request = (action: string, extra: Record<string, unknown> = {}) => ({
  actor: { id: 'surface-bot', type: 'agent' as const },
  targetSystem: 'acme/payments',
  proposedAction: action,
  riskContext: { baseRiskScore: 10 },
  ...extra,
});
const physical = (body: Record<string, unknown>) => body as unknown as PhysicalTokenRequest;

/** The status of the AuthorityApiError a call throws. */
async function refusal(call: Promise<unknown>): Promise<number> {
  const error = await call.then(
    () => assert.fail('expected an error answer'),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof AuthorityApiError, String(error));
  return error.status;
}

/**
 * Every route of both surfaces through the client against a real service, and every answer checked
 * against the wire contract (status documented, body matching its schema with no undescribed member).
 */
for (const engine of ENGINES) {
  describe(`AuthorityClient covers the API and the answers match the wire contract (${engine})`, () => {
    let t: TestApp;
    let owner: AuthorityClient;
    let agent: AuthorityClient;
    let reviewer: AuthorityClient;
    const answers: RecordedAnswer[] = [];

    before(async () => {
      t = await createTestApp(engine, { ALLOW_PRIVATE_EGRESS: '1' });
      const ownerKey = (await t.createTenant('acme', 'enterprise')).ownerKey.key;
      const agentKey = (await t.services.apiKeys.create('acme', { name: 'agent', role: 'agent' }, null)).key;
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      const fetch = recordingFetch(answers);
      owner = new AuthorityClient({ baseUrl, tenantId: 'acme', apiKey: ownerKey, fetch });
      agent = new AuthorityClient({ baseUrl, tenantId: 'acme', apiKey: agentKey, fetch });
      const reviewerKey = (
        await t.services.apiKeys.create('acme', { name: 'reviewer', role: 'policy_admin' }, null)
      ).key;
      reviewer = new AuthorityClient({ baseUrl, tenantId: 'acme', apiKey: reviewerKey, fetch });
    });
    after(async () => {
      await t.close();
    });

    it('runs the intent surface: decisions, review, token, evidence, evaluation', async () => {
      assert.equal((await agent.health()).status, 'ok');
      assert.equal((await agent.ready()).ready, true);
      const webhook = await owner.webhooks.create({ url: 'http://127.0.0.1:9/hooks', events: ['*'] });
      const approved = await agent.submitIntent(request('list open pull requests'), { explain: true });
      assert.equal(approved.outcome, 'APPROVED');
      assert.ok(approved.response.authorityDecision.explanation);
      const escalated = await agent.submitIntent(request('merge pull request 42'));
      assert.equal(escalated.outcome, 'ESCALATED');
      const denied = await agent.submitIntent(
        request('list open pull requests', { riskContext: { baseRiskScore: 10, touchesProduction: true } }),
      );
      assert.equal(denied.outcome, 'DENIED');

      assert.equal((await owner.getIntent(approved.intentId)).status, 'APPROVED');
      const pages = await owner.intents.list({ limit: 1 }).all();
      assert.deepEqual(
        new Set(pages.map((i) => i.intentId)),
        new Set([approved.intentId, escalated.intentId, denied.intentId]),
      );
      await owner.intents.evidenceBundle(approved.intentId);
      // The approved intent's token is unspent: its receipt is the submitter's alone.
      assert.equal(await refusal(owner.intents.receipt(approved.intentId)), 409);
      await agent.intents.receipt(approved.intentId);
      assert.equal(await refusal(owner.intents.receipt(escalated.intentId)), 409);

      const pending = await owner.listApprovals();
      assert.deepEqual(
        pending.approvals.map((a) => a.intentId),
        [escalated.intentId],
      );
      const [item] = pending.approvals;
      assert.ok(item);
      assert.ok(item.approvalUrl.endsWith(`/console/approvals/${item.escalationId}`), item.approvalUrl);
      const detail = await owner.approvals.get(item.escalationId);
      assert.deepEqual(
        [detail.intentId, detail.intent.actor.id, detail.decisions],
        [escalated.intentId, 'surface-bot', []],
      );
      await owner.decideApproval({ intentId: escalated.intentId, decision: 'approve', rationale: RATIONALE });
      const status = await agent.waitForApproval(escalated.intentId, {
        timeoutMs: 1_000,
        pollIntervalMs: 10,
      });
      assert.equal(status, 'APPROVED_AFTER_REVIEW');
      const { token } = await agent.fetchToken(escalated.intentId);
      const binding = { token, adapterId: 'external', targetSystem: 'acme/payments' };
      assert.equal((await agent.consumeToken(binding)).valid, true);
      assert.deepEqual(await agent.consumeToken(binding), { valid: false, reason: 'NONCE_ALREADY_CONSUMED' });

      const evaluation = await agent.intents.evaluate(request('deploy to production'));
      assert.equal((await agent.intents.verifyPermissionToken(evaluation.permissionToken)).valid, true);

      const [delivery] = await owner.webhooks.deliveries(webhook.id).all();
      assert.ok(delivery, 'the decisions were queued for the endpoint');
      await owner.webhooks.redeliver(webhook.id, delivery.id).catch((error: unknown) => {
        assert.ok(error instanceof AuthorityApiError && error.status === 409, String(error));
      });
      await owner.webhooks.list();
      await owner.webhooks.get(webhook.id);
      await owner.webhooks.update(webhook.id, { description: 'surface test' });
      await owner.webhooks.rotateSecret(webhook.id);
      await owner.webhooks.remove(webhook.id);
    });

    it('runs policies, thresholds, tenant controls, keys and connectors', async () => {
      const active = await owner.policies.active();
      assert.ok(active.rules.length > 0);
      await owner.policies.packs();
      const installed = await owner.policies.installPack({ pack: 'github-safe-merge' });
      assert.ok(installed.policy.packs.includes('github-safe-merge'));
      await owner.policies.installedPacks();
      const saved = await owner.policies.save({
        rules: [
          {
            id: 'allow-nested',
            effect: 'ALLOW',
            conditions: {
              all: [
                { any: [{ path: 'risk.score', op: 'LT', value: 5 }] },
                { not: { path: 'args.x', op: 'EXISTS' } },
              ],
            },
          },
        ],
      });
      assert.equal(saved.active, false);
      await owner.policies.activate(installed.policy.version);
      assert.ok((await owner.policies.versions()).length >= 3);
      const simulated = await owner.policies.simulate({
        rules: [{ id: 'allow-all', effect: 'ALLOW' }],
        sample: { limit: 10 },
      });
      assert.equal(simulated.changes.length, simulated.changed);
      await owner.policies.setReview({ required: true, approvals: 1 });
      const draft = await owner.policies.save({
        rules: [{ id: 'reviewed', effect: 'ALLOW' }],
        activate: true,
      });
      assert.deepEqual([draft.active, draft.status], [false, 'draft']);
      const approved = await reviewer.policies.review(draft.version, { decision: 'approve', comment: 'ok' });
      assert.equal(approved.status, 'approved');
      await owner.policies.activate(installed.policy.version);
      await owner.policies.setReview({ required: false });

      await owner.thresholds.update({ escalateAt: 55 });
      assert.equal((await owner.thresholds.get()).escalateAt, 55);

      await owner.budgets.put({
        budgets: [
          { id: 'surface', actorIds: ['surface-*'], window: 'hour', maxApproved: 3, onExceeded: 'DENY' },
        ],
      });
      assert.equal((await owner.budgets.get()).budgets[0]?.id, 'surface');
      const usage = await owner.budgets.usage('surface-bot');
      assert.deepEqual(
        usage.usage.map((u) => [u.budgetId, u.approved, u.remaining]),
        [['surface', 0, 3]],
      );
      await owner.budgets.put({ budgets: [] });

      await owner.tenant.get();
      await owner.tenant.setIpAllowlist({ cidrs: ['127.0.0.0/8'] });
      await owner.tenant.setIpAllowlist({ cidrs: [] });
      await owner.tenant.setKillSwitch({ enabled: true, reason: 'surface test' });
      await owner.tenant.setKillSwitch({ enabled: false });
      await owner.tenant.setFloor({ enabled: true });
      await owner.tenant.setActor('blocked-bot', { status: 'blocked', reason: 'surface test' });
      assert.equal((await owner.tenant.actors())[0]?.actorId, 'blocked-bot');

      await owner.keys.signingKeys();
      await owner.keys.rotate();
      t.clock.advance(306_000);
      await owner.keys.setAlgorithm({ alg: 'ES256' });
      const badKid = owner.keys.registerExternal({
        kid: 'x',
        alg: 'EdDSA',
        publicJwk: {},
        signUrl: 'http://127.0.0.1:9',
      });
      assert.equal(await refusal(badKid), 400);
      await owner.keys.rotateSecret('evidence');
      await owner.keys.rotateSecret('permission');
      await owner.keys.jwks();
      await owner.keys.jwksArchive();
      const key = await owner.keys.createApiKey({ name: 'short-lived', role: 'auditor' });
      assert.ok((await owner.keys.apiKeys()).some((k) => k.id === key.id));
      await owner.keys.revokeApiKey(key.id);

      const connector = await owner.connectors.create({
        type: 'noop',
        name: 'dry run',
        targetSystem: 'acme/dry-run',
        config: {},
      });
      assert.equal((await owner.connectors.list())[0]?.id, connector.id);
      assert.equal((await owner.connectors.test(connector.id)).connectorId, connector.id);
      await owner.connectors.remove(connector.id);
    });

    it('runs the audit chain: timeline, export, checkpoints, verification', async () => {
      const events = await owner.audit.timeline({ limit: 5 }).all();
      assert.ok(events.length > 5, 'several pages');
      const lines: string[] = [];
      for await (const line of owner.audit.exportLines()) lines.push(line);
      const verified = await verifyChainExport(lines, {
        jwks: staticJwks({
          keys: [...(await owner.keys.jwks()).keys, ...(await owner.keys.jwksArchive()).keys],
        }),
      });
      assert.equal(verified.valid, true, JSON.stringify(verified));
      const parsed = [];
      for await (const line of owner.audit.export({ fromIndex: 0, toIndex: 2 })) parsed.push(line);
      assert.equal(parsed.filter((line) => 'entry' in line).length, 3);
      await owner.audit.checkpoints().all();
      assert.equal((await owner.audit.verifyChain()).valid, true);
      const witness = cosigner(generateSignerKey('witness.example/surface'), Date.now);
      const witnesses = await owner.audit.setWitnesses({
        witnesses: [{ name: witness.name, url: 'http://127.0.0.1:9/', verifierKey: witness.verifierKey }],
        quorum: 1,
      });
      assert.deepEqual(
        witnesses.witnesses.map((w) => [w.name, w.cosignedSize]),
        [[witness.name, 0]],
      );
      assert.equal(await refusal(owner.audit.setWitnesses({ witnesses: [], quorum: 1 })), 400);
      assert.deepEqual(
        await owner.audit.witnesses(),
        witnesses,
        'read back as set, the refused change aside',
      );
      assert.equal(
        await refusal(owner.audit.acknowledgeBreak({ brokenAt: 3, note: 'no break is open' })),
        404,
      );
      const logKey = await owner.audit.logKey();
      const note = verifyCheckpoint(await owner.audit.checkpoint(), { logKey });
      assert.ok(note.valid, JSON.stringify(note));
      const size = note.checkpoint.size;
      const inclusion = await owner.audit.inclusionProof({ index: size - 1, treeSize: size });
      assert.ok(
        verifyInclusionProof({
          index: size - 1,
          treeSize: size,
          leafHash: hashFromHex(inclusion.leafHash),
          proof: inclusion.proof.map(hashFromHex),
          rootHash: note.checkpoint.rootHash,
        }).valid,
      );
      assert.deepEqual(await owner.audit.consistencyProof({ from: size, to: size }), {
        from: size,
        to: size,
        proof: [],
      });
      assert.equal(await refusal(owner.audit.consistencyProof({ from: 2, to: 1 })), 400);
    });

    it('runs the physical surface: decisions as results, tickets, audit, revocations, policy', async () => {
      await owner.physical.registerActor({ actorIdentity: ROBOT, actorKind: 'robot' });
      assert.equal((await owner.physical.actors().all()).length, 1);
      assert.equal((await agent.physical.classify(pickGoal() as never)).oiCode, 'OI-1502');
      const allow = await agent.physical.issueToken(
        physical(tokenBody({ physicalState: clearState(t.clock()) })),
      );
      assert.equal(allow.decision, 'ALLOW');
      if (allow.decision !== 'ALLOW') return;
      await owner.physical.report(allow.tokenJti, {
        edgeNodeId: 'cell-4',
        result: 'accepted',
        atMs: t.clock(),
      });
      const batch = await owner.physical.reportBatch([
        { jti: allow.tokenJti, edgeNodeId: 'cell-4', result: 'accepted', atMs: t.clock() },
        { jti: 'unknown', edgeNodeId: 'cell-4', result: 'accepted', atMs: t.clock() },
      ]);
      assert.deepEqual(batch, { accepted: 1, rejected: [{ index: 1, code: 'not_found' }] });
      await owner.physical.revoke(allow.tokenJti, 'surface test');
      assert.equal((await agent.physical.revocations().all())[0]?.tokenJti, allow.tokenJti);
      await agent.physical.snapshot(clearState(t.clock()) as never);

      const escalate = await agent.physical.issueToken(
        physical(tokenBody({ goal: moveGoal(), dagOiCode: 'OI-1801', physicalState: clearState(t.clock()) })),
      );
      assert.equal(escalate.decision, 'ESCALATE');
      if (escalate.decision !== 'ESCALATE') return;
      assert.equal((await owner.physical.tickets().all())[0]?.ticketId, escalate.escalationTicketId);
      await owner.physical.ticket(escalate.escalationTicketId);
      await owner.physical.decideTicket(escalate.escalationTicketId, {
        decision: 'rejected',
        operator: 'Dana',
        reason: 'test',
      });

      const deny = await agent.physical.issueToken(
        physical(
          tokenBody({
            physicalState: clearState(t.clock(), { 'safety/emergency-stop': engaged(t.clock()) }),
          }),
        ),
      );
      assert.equal(deny.decision, 'DENY');
      if (deny.decision === 'DENY') {
        assert.equal(deny.status, 422);
        assert.equal(deny.details.clauseId, 'deny-on-emergency-stop');
      }
      assert.equal((await owner.physical.audit().all()).length, 3);
      assert.equal((await owner.physical.auditEntry(allow.tokenJti)).verifications.length, 2);
      const policy = await owner.physical.policy();
      assert.equal(policy.version, 0);
      assert.equal((await owner.physical.uploadPolicy({ policy: policy.active })).version, 1);
      assert.equal((await agent.physical.jwks()).keys[0]?.alg, 'RS256');
    });

    it('got only answers the contract describes, on every route but the operator and console ones', () => {
      const problems = answers.map(conformanceProblem).filter((problem) => problem !== undefined);
      assert.deepEqual(problems, []);
      const seen = new Set(answers.map((a) => a.route.operationId));
      const missing = WIRE_ROUTE_LIST.filter(
        (route) => route.tag !== 'admin' && route.tag !== 'portal' && route.operationId !== 'metrics',
      )
        .map((route) => route.operationId)
        .filter((id) => !seen.has(id));
      assert.deepEqual(missing, []);
    });
  });
}
