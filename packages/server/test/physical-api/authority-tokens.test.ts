import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { sql } from 'kysely';
import { classify } from '../../src/physical/domain/index.js';
import { bearer, createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import {
  chainEvents,
  clearState,
  DRONE,
  decisionRows,
  engaged,
  issue,
  moveGoal,
  pickGoal,
  post,
  ROBOT,
  registerActors,
  tokenBody,
} from './fixtures.js';

/**
 * `POST /v1/physical/authority-tokens` over HTTP: every row of document 02's states table and errors
 * table, the built-in clauses of contract §9, operator tickets end to end, and failing closed.
 */
for (const engine of ENGINES) {
  describe(`physical authority tokens (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let agent: Headers;
    let approver: Headers;
    let approverKeyId: string;

    before(async () => {
      t = await createTestApp(engine);
      owner = bearer((await t.createTenant('acme', 'enterprise')).ownerKey.key, 'acme');
      agent = await t.roleHeaders('acme', 'agent');
      const approverKey = await t.services.apiKeys.create('acme', { name: 'op', role: 'approver' }, null);
      approver = bearer(approverKey.key, 'acme');
      approverKeyId = approverKey.id;
      await registerActors(t, owner);
    });
    after(async () => {
      await t.close();
    });

    const now = () => t.clock();
    const get = (url: string, headers: Headers = owner) => t.app.inject({ method: 'GET', url, headers });
    const decide = (ticketId: string, payload: Record<string, unknown>) =>
      post(t, `/v1/physical/approvals/${ticketId}/decide`, approver, {
        operator: 'Dana (shift 2)',
        ...payload,
      });
    const escalate = async (goal = moveGoal()) => {
      const res = await issue(t, agent, tokenBody({ goal, physicalState: clearState(now()) }));
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().decision, 'ESCALATE', res.body);
      return res.json().escalationTicketId as string;
    };
    const denyDetails = (res: { statusCode: number; json(): unknown }, status = 422) => {
      assert.equal(res.statusCode, status, JSON.stringify(res.json()));
      const { error } = res.json() as { error: { code: string; details: Record<string, unknown> } };
      assert.equal(error.code, 'policy_denied');
      return error.details;
    };

    describe('states table', () => {
      it('ALLOW (200): a token bound to the action and the actor, the audit entry, the snapshot', async () => {
        const physicalState = clearState(now());
        const res = await issue(t, agent, tokenBody({ physicalState }));
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.deepEqual(Object.keys(body).sort(), [
          'decision',
          'expiresAtMs',
          'oiCode',
          'physicalStateRef',
          'safetyBit',
          'safetyCitations',
          'token',
          'tokenJti',
        ]);
        assert.equal(body.decision, 'ALLOW');
        assert.equal(body.oiCode, 'OI-1502');
        assert.equal(body.expiresAtMs, now() + 5_000);
        assert.equal(body.safetyBit, false);
        assert.deepEqual(body.safetyCitations, []);
        assert.match(body.tokenJti, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        assert.match(body.physicalStateRef, /^[0-9a-f]{8}-[0-9a-f]{4}-7/);

        assert.deepEqual(decodeProtectedHeader(body.token), {
          alg: 'RS256',
          typ: 'JWT',
          kid: (await t.services.physical.signer.ensureActive()).kid,
        });
        const jwks = (await get('/.well-known/jwks.json', {})).json() as JSONWebKeySet;
        const { payload } = await jwtVerify(body.token, createLocalJWKSet(jwks), {
          algorithms: ['RS256'],
          audience: 'service-edge-verifier',
          issuer: t.config.publicBaseUrl,
          currentDate: new Date(now()),
        });
        const iat = Math.floor(now() / 1000);
        assert.deepEqual(payload, {
          iss: t.config.publicBaseUrl,
          sub: ROBOT,
          aud: 'service-edge-verifier',
          iat,
          exp: iat + 5,
          jti: body.tokenJti,
          service: {
            version: 2,
            oiCode: 'OI-1502',
            tenantId: 'acme',
            actorIdentity: ROBOT,
            actorIdentityKind: 'ieee-802-1ar-devid',
            deadlineMs: 5_000,
            issuedAtMs: now(),
            expiresAtMs: now() + 5_000,
            safeDefault: 'stop',
            safetyBit: false,
            safetyCitations: [],
            dagNodeId: 'pick-tote-17',
            realTimeTier: 'rt-soft',
            physicalStateRef: body.physicalStateRef,
            operatorTicketId: null,
          },
        });

        const entry = await get(`/v1/physical/audit/${body.tokenJti}`);
        assert.equal(entry.statusCode, 200, entry.body);
        const audited = entry.json();
        assert.equal(audited.decision, 'ALLOW');
        assert.equal(audited.clauseId, 'allow-when-clear');
        assert.equal(audited.physicalStateRef, body.physicalStateRef);
        assert.equal(audited.physicalState['safety/emergency-stop'].attestation.protocol, 'fsoe');
        assert.deepEqual(audited.structuredGoal, pickGoal());
        assert.deepEqual(audited.verifications, []);
        const issued = (await chainEvents(t, 'acme', 'physical.token.issued')).at(-1);
        const snapshot = (await chainEvents(t, 'acme', 'physical.snapshot')).at(-1);
        assert.equal(issued?.payload.tokenJti, body.tokenJti);
        assert.equal(issued?.actorType, 'physical:robot');
        assert.equal(snapshot?.payload.physicalStateRef, body.physicalStateRef);
        assert.equal(snapshot?.correlationId, issued?.correlationId);
        assert.equal(audited.correlationId, issued?.correlationId);
      });

      it('ESCALATE (200): a pending ticket for an hour, recorded with its ticket id', async () => {
        const res = await issue(t, agent, tokenBody({ goal: moveGoal(), physicalState: clearState(now()) }));
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.match(body.escalationTicketId, /^esc_[0-9a-f]{8}-[0-9a-f]{4}-7/);
        assert.deepEqual(body, {
          decision: 'ESCALATE',
          escalationTicketId: body.escalationTicketId,
          approvalUrl: `${t.config.approvalUrl}/${body.escalationTicketId}`,
          safeDefault: 'request-operator',
          expiresAtMs: now() + 3_600_000,
        });
        const ticket = (await get(`/v1/physical/approvals/${body.escalationTicketId}`, approver)).json();
        assert.equal(ticket.status, 'pending');
        assert.equal(ticket.intent.oiCode, 'OI-1801');
        const listed = (await get('/v1/physical/audit?limit=1')).json().entries[0];
        assert.equal(listed.decision, 'ESCALATE');
        assert.equal(listed.tokenJti, null);
        assert.equal(listed.escalationTicketId, body.escalationTicketId);
        assert.equal(listed.clauseId, 'escalate-on-low-confidence');
        assert.equal(listed.expiresAtMs, body.expiresAtMs);
      });

      it('DENY (422): the deciding clause, its safe default and the safety citations; recorded without a token', async () => {
        const before = (await decisionRows(t, 'acme')).length;
        const estop = await issue(
          t,
          agent,
          tokenBody({ physicalState: clearState(now(), { 'safety/emergency-stop': engaged(now()) }) }),
        );
        assert.deepEqual(denyDetails(estop), {
          decision: 'DENY',
          clauseId: 'deny-on-emergency-stop',
          clauseIds: ['deny-on-emergency-stop'],
          safeDefault: 'stop',
          safetyBit: true,
          safetyCitations: ['OI-2901'],
        });
        assert.equal(typeof estop.json().error.requestId, 'string');

        const human = await issue(
          t,
          agent,
          tokenBody({ physicalState: clearState(now(), { 'cell/human-present': engaged(now()) }) }),
        );
        const details = denyDetails(human);
        assert.equal(details.clauseId, 'deny-on-human-in-cell');
        assert.equal(details.safeDefault, 'hold-position');
        assert.deepEqual(details.safetyCitations, ['OI-2903']);

        // No state at all: the safety inputs are not known, so the hazard counts as present.
        const blind = denyDetails(await issue(t, agent, tokenBody()));
        assert.equal(blind.clauseId, 'deny-on-emergency-stop');
        assert.deepEqual(blind.clauseIds, [
          'deny-on-emergency-stop',
          'deny-on-light-curtain-breach',
          'deny-on-human-in-cell',
        ]);
        const stale = clearState(now() - 1_001);
        assert.equal(
          denyDetails(await issue(t, agent, tokenBody({ physicalState: stale }))).clauseId,
          'deny-on-emergency-stop',
          'a reading older than maxStateAgeMs is not trusted',
        );

        const rows = await decisionRows(t, 'acme');
        assert.equal(rows.length, before + 4);
        for (const row of rows.slice(before)) {
          assert.equal(row.decision, 'DENY');
          assert.equal(row.token_jti, null);
          assert.equal(row.expires_at, null);
        }
        assert.equal(rows.at(-1)?.physical_state_ref !== null, true, 'the evaluated state is snapshotted');
        const denied = (await chainEvents(t, 'acme', 'physical.denied')).at(-1);
        assert.equal(denied?.payload.clauseId, 'deny-on-emergency-stop');
      });

      it('DENY (422) when the classifier fails closed: classifier-fail-closed with its explanation', async () => {
        const goal = pickGoal({ schema: 'robot.manipulation', verb: 'frobnicate', object: null });
        const res = await issue(
          t,
          agent,
          tokenBody({ goal, safeDefault: 'hold-position', physicalState: clearState(now()) }),
        );
        const details = denyDetails(res);
        assert.deepEqual(details, {
          decision: 'DENY',
          clauseId: 'classifier-fail-closed',
          clauseIds: details.clauseIds,
          safeDefault: 'hold-position',
          safetyBit: false,
          safetyCitations: [],
          explanation: classify(goal).explanation,
        });
        assert.equal((details.clauseIds as string[])[0], 'classifier-fail-closed');
      });

      it('DENY (422) by the kill switch (safe default stop), and ALLOW again once it is off', async () => {
        const kill = (enabled: boolean) =>
          t.app.inject({
            method: 'PUT',
            url: '/authority/kill-switch/acme',
            headers: owner,
            payload: { enabled, reason: 'cell 4 maintenance' },
          });
        assert.equal((await kill(true)).statusCode, 200);
        const body = tokenBody({ safeDefault: 'hold-position', physicalState: clearState(now()) });
        const details = denyDetails(await issue(t, agent, body));
        assert.equal(details.clauseId, 'kill-switch');
        assert.equal(details.safeDefault, 'stop');
        assert.equal((await kill(false)).statusCode, 200);
        assert.equal((await issue(t, agent, body)).json().decision, 'ALLOW');
      });

      it('DENY (422) by stale-goal: sourceTimestampMs more than 30 s from the server clock, either way', async () => {
        for (const offset of [-30_001, 30_001]) {
          const goal = pickGoal({ sourceTimestampMs: now() + offset });
          const details = denyDetails(
            await issue(
              t,
              agent,
              tokenBody({ goal, safeDefault: 'abort-mission', physicalState: clearState(now()) }),
            ),
          );
          assert.equal(details.clauseId, 'stale-goal');
          assert.equal(details.safeDefault, 'abort-mission');
        }
        const fresh = pickGoal({ sourceTimestampMs: now() - 30_000 });
        const res = await issue(t, agent, tokenBody({ goal: fresh, physicalState: clearState(now()) }));
        assert.equal(res.json().decision, 'ALLOW', res.body);
      });

      it('server classification wins: a caller code can add severity, never lower it, and safetyBit is OR-ed', async () => {
        // The caller's OI-2903 (presence sensing) is evaluated as a further hypothesis; the token
        // still carries the classified code, and the caller's safetyBit is kept.
        const res = await issue(
          t,
          agent,
          tokenBody({ oiCode: 'OI-2903', safetyBit: true, physicalState: clearState(now()) }),
        );
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().oiCode, 'OI-1502');
        assert.equal(res.json().safetyBit, true);
        // A drone takeoff is safety-relevant by classification, whatever the caller says.
        const drone = pickGoal({
          schema: 'drone.flight',
          verb: 'takeoff',
          object: null,
          actor: { kind: 'drone', identifier: DRONE },
        });
        const takeoff = await issue(
          t,
          agent,
          tokenBody({
            goal: drone,
            safetyBit: false,
            physicalState: { 'safety/emergency-stop': clearState(now())['safety/emergency-stop'] },
          }),
        );
        assert.equal(takeoff.statusCode, 200, takeoff.body);
        assert.deepEqual(
          [takeoff.json().oiCode, takeoff.json().safetyBit, takeoff.json().safetyCitations],
          ['OI-2101', true, ['OI-2902']],
        );
      });

      it('ticket pending → approved: the re-issue with operatorTicketId is ALLOW, consumes it, and a second redemption is 409', async () => {
        const goal = moveGoal();
        const ticketId = await escalate(goal);
        const escalated = (await get('/v1/physical/audit?limit=1')).json().entries[0];
        const approved = await decide(ticketId, { decision: 'approved' });
        assert.equal(approved.statusCode, 200, approved.body);
        assert.equal(approved.json().status, 'approved');
        assert.equal(approved.json().approvedBy, approverKeyId);

        t.clock.advance(60_000);
        const body = tokenBody({ goal, physicalState: clearState(now()), operatorTicketId: ticketId });
        const res = await issue(t, agent, body);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().decision, 'ALLOW');
        const entry = (await get(`/v1/physical/audit/${res.json().tokenJti}`)).json();
        assert.equal(entry.operatorTicketId, ticketId);
        assert.equal(entry.correlationId, escalated.correlationId, 'the re-issue continues the escalation');
        const jwks = (await get('/.well-known/jwks.json', {})).json() as JSONWebKeySet;
        const { payload } = await jwtVerify(res.json().token, createLocalJWKSet(jwks), {
          currentDate: new Date(now()),
        });
        assert.equal((payload.service as { operatorTicketId: string }).operatorTicketId, ticketId);
        assert.equal((await get(`/v1/physical/approvals/${ticketId}`, approver)).json().status, 'consumed');

        const again = await issue(t, agent, body);
        assert.equal(again.statusCode, 409, again.body);
        assert.equal(again.json().error.code, 'conflict');
        assert.equal(again.json().error.details.status, 'consumed');
      });

      it('parallel re-issues with one approved ticket: exactly one ALLOW, the others 409 consumed', async () => {
        const goal = moveGoal({ parameters: { x: 7 } });
        const ticketId = await escalate(goal);
        assert.equal((await decide(ticketId, { decision: 'approved' })).statusCode, 200);
        const body = tokenBody({ goal, physicalState: clearState(now()), operatorTicketId: ticketId });
        const answers = await Promise.all(Array.from({ length: 5 }, () => issue(t, agent, body)));
        const statuses = answers.map((res) => res.statusCode).sort();
        assert.deepEqual(statuses, [200, 409, 409, 409, 409], answers.map((res) => res.body).join('\n'));
        for (const res of answers.filter((r) => r.statusCode === 409)) {
          assert.equal(res.json().error.details.status, 'consumed');
        }
        const redeemed = (await decisionRows(t, 'acme')).filter((row) => row.operator_ticket_id === ticketId);
        assert.equal(redeemed.length, 1);
      });

      it('decisions written together: a refused redemption among plain issues fails alone, each decision recorded once', async () => {
        const goal = moveGoal({ parameters: { x: 8 } });
        const ticketId = await escalate(goal);
        assert.equal((await decide(ticketId, { decision: 'approved' })).statusCode, 200);
        const redeem = tokenBody({ goal, physicalState: clearState(now()), operatorTicketId: ticketId });
        assert.equal((await issue(t, agent, redeem)).statusCode, 200);
        const before = (await decisionRows(t, 'acme')).length;
        // Arriving together, these share a transaction; the consumed ticket's refusal rolls it back,
        // then every decision is written on its own.
        const bodies = [
          tokenBody({ physicalState: clearState(now()) }),
          redeem,
          tokenBody({ physicalState: clearState(now()) }),
          tokenBody({ physicalState: clearState(now()) }),
        ];
        const answers = await Promise.all(bodies.map((body) => issue(t, agent, body)));
        assert.deepEqual(
          answers.map((res) => res.statusCode),
          [200, 409, 200, 200],
          answers.map((res) => res.body).join('\n'),
        );
        assert.equal(answers[1]?.json().error.details.status, 'consumed');
        const rows = (await decisionRows(t, 'acme')).slice(before);
        assert.deepEqual(
          rows.map((row) => row.token_jti).sort(),
          answers
            .filter((res) => res.statusCode === 200)
            .map((res) => res.json().tokenJti)
            .sort(),
        );
        const issued = await chainEvents(t, 'acme', 'physical.token.issued');
        for (const res of answers.filter((r) => r.statusCode === 200)) {
          const jti = res.json().tokenJti;
          assert.equal(issued.filter((event) => JSON.stringify(event).includes(jti)).length, 1);
        }
        const chain = await t.app.inject({ method: 'POST', url: '/audit/verify-chain', headers: owner });
        assert.equal(chain.json().valid, true, chain.body);
      });

      it('a deny clause still wins over an approved ticket, and the denied re-issue leaves it redeemable', async () => {
        const goal = moveGoal();
        const ticketId = await escalate(goal);
        assert.equal((await decide(ticketId, { decision: 'approved' })).statusCode, 200);
        const hazard = clearState(now(), { 'cell/human-present': engaged(now()) });
        const denied = await issue(
          t,
          agent,
          tokenBody({ goal, physicalState: hazard, operatorTicketId: ticketId }),
        );
        assert.equal(denyDetails(denied).clauseId, 'deny-on-human-in-cell');
        assert.equal((await get(`/v1/physical/approvals/${ticketId}`, approver)).json().status, 'approved');
        const allowed = await issue(
          t,
          agent,
          tokenBody({ goal, physicalState: clearState(now()), operatorTicketId: ticketId }),
        );
        assert.equal(allowed.json().decision, 'ALLOW', allowed.body);
      });

      it('ticket pending → rejected, or expired: the re-issue is 409 with details.status; deciding again is 409', async () => {
        const goal = moveGoal();
        const rejectedId = await escalate(goal);
        const rejected = await decide(rejectedId, { decision: 'rejected', reason: 'cell not staffed' });
        assert.equal(rejected.json().status, 'rejected');
        assert.equal(rejected.json().rejectionReason, 'cell not staffed');
        const reissue = (operatorTicketId: string) =>
          issue(t, agent, tokenBody({ goal, physicalState: clearState(now()), operatorTicketId }));
        const refused = await reissue(rejectedId);
        assert.equal(refused.statusCode, 409, refused.body);
        assert.equal(refused.json().error.details.status, 'rejected');
        const twice = await decide(rejectedId, { decision: 'approved' });
        assert.equal(twice.statusCode, 409, twice.body);
        assert.equal(twice.json().error.code, 'conflict');

        const expiringId = await escalate(goal);
        assert.equal((await decide(expiringId, { decision: 'approved' })).statusCode, 200);
        t.clock.advance(3_600_001);
        assert.equal((await get(`/v1/physical/approvals/${expiringId}`, approver)).json().status, 'expired');
        const late = await reissue(expiringId);
        assert.equal(late.statusCode, 409, late.body);
        assert.equal(late.json().error.details.status, 'expired');
      });

      it('a ticket answers only its own goal: another goal is 409, an unknown ticket 404', async () => {
        const ticketId = await escalate(moveGoal());
        assert.equal((await decide(ticketId, { decision: 'approved' })).statusCode, 200);
        const other = await issue(
          t,
          agent,
          tokenBody({
            goal: moveGoal({ parameters: { x: 2 } }),
            physicalState: clearState(now()),
            operatorTicketId: ticketId,
          }),
        );
        assert.equal(other.statusCode, 409, other.body);
        assert.equal(other.json().error.details.reason, 'goal_mismatch');
        const unknown = await issue(
          t,
          agent,
          tokenBody({ physicalState: clearState(now()), operatorTicketId: 'esc_unknown' }),
        );
        assert.equal(unknown.statusCode, 404, unknown.body);
        assert.equal(unknown.json().error.code, 'not_found');
      });

      it('issued token → revoked: listed by GET /revocations', async () => {
        const res = await issue(t, agent, tokenBody({ physicalState: clearState(now()) }));
        const jti = res.json().tokenJti;
        const revoked = await post(t, `/v1/physical/authority-tokens/${jti}/revoke`, owner, {
          reason: 'arm recalled',
        });
        assert.equal(revoked.statusCode, 200, revoked.body);
        const feed = (await get('/v1/physical/revocations?since=0', agent)).json();
        assert.ok(feed.revocations.some((r: { tokenJti: string }) => r.tokenJti === jti));
      });
    });

    describe('errors table', () => {
      it('400 validation_error: schema failures with details.issues, and nothing recorded', async () => {
        const before = (await decisionRows(t, 'acme')).length;
        const valid = tokenBody({ physicalState: clearState(now()) });
        const cases: Array<[string, Record<string, unknown>]> = [
          ['missing dagNode', { ...valid, dagNode: undefined }],
          ['unknown top-level field', { ...valid, tenantSecret: 1 }],
          ['unknown goal field', { ...valid, intent: { structuredGoal: { ...pickGoal(), colour: 'red' } } }],
          ['upper-case verb', { ...valid, intent: { structuredGoal: pickGoal({ verb: 'Pick' }) } }],
          [
            'nested parameters',
            { ...valid, intent: { structuredGoal: pickGoal({ parameters: { a: { b: 1 } } }) } },
          ],
          [
            'bad actor kind',
            {
              ...valid,
              intent: { structuredGoal: pickGoal({ actor: { kind: 'tank', identifier: ROBOT } }) },
            },
          ],
          ['bad safeDefault', { ...valid, dagNode: { ...(valid.dagNode as object), safeDefault: 'panic' } }],
          ['zero deadline', { ...valid, dagNode: { ...(valid.dagNode as object), deadlineMs: 0 } }],
          ['bad oiCode', { ...valid, intent: { structuredGoal: pickGoal(), oiCode: 'OI-15' } }],
          ['bad state value', { ...valid, physicalState: { 'a/b': { kind: 'boolean', value: 'yes' } } }],
        ];
        for (const [name, body] of cases) {
          const res = await issue(t, agent, JSON.parse(JSON.stringify(body)));
          assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
          assert.equal(res.json().error.code, 'validation_error', name);
          assert.ok(res.json().error.details.issues.length > 0, name);
        }
        assert.equal((await decisionRows(t, 'acme')).length, before);
      });

      it('400 validation_error: the consistency rules of contract §9, all reported at once', async () => {
        const goal = pickGoal({ actor: { kind: 'drone', identifier: ROBOT } });
        const body = tokenBody({ goal, physicalState: clearState(now()) });
        (body.dagNode as Record<string, unknown>).deadlineMs = 300_001;
        (body.dagNode as Record<string, unknown>).streaming = true;
        (body.claims as Record<string, unknown>).safeDefault = 'hold-position';
        (body.claims as Record<string, unknown>).safetyCitations = ['OI-1502'];
        const res = await issue(t, agent, body);
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(
          res.json().error.details.issues.map((issue: { path: string }) => issue.path),
          [
            '/dagNode/deadlineMs',
            '/claims/deadlineMs',
            '/claims/safeDefault',
            '/intent/structuredGoal/actor/kind',
            '/dagNode/streamingWindowMs',
            '/claims/safetyCitations/0',
          ],
        );
        const ignore = await issue(
          t,
          agent,
          tokenBody({ goal: moveGoal(), safeDefault: 'ignore', physicalState: clearState(now()) }),
        );
        assert.equal(ignore.statusCode, 400, ignore.body);
        assert.equal(ignore.json().error.details.issues[0].path, '/dagNode/safeDefault');
        // The roster entry is the one claims.actorIdentity names (the drone): both actor rules break.
        const other = tokenBody({ physicalState: clearState(now()) });
        (other.claims as Record<string, unknown>).actorIdentity = DRONE;
        const mismatch = await issue(t, agent, other);
        assert.equal(mismatch.statusCode, 400, mismatch.body);
        assert.deepEqual(
          mismatch.json().error.details.issues.map((issue: { path: string }) => issue.path),
          ['/intent/structuredGoal/actor/identifier', '/intent/structuredGoal/actor/kind'],
        );
        const predicate = await issue(
          t,
          agent,
          tokenBody({ physicalState: { 'bad name!': engaged(now()) } }),
        );
        assert.equal(predicate.statusCode, 400, predicate.body);
        assert.equal(predicate.json().error.details.issues[0].path, '/physicalState/bad name!');
      });

      it('401 unauthenticated without a verified tenant context', async () => {
        const none = await issue(t, {}, tokenBody());
        assert.equal(none.statusCode, 401);
        assert.equal(none.json().error.code, 'unauthenticated');
        const noTenant = await issue(t, { authorization: agent.authorization ?? '' }, tokenBody());
        assert.equal(noTenant.statusCode, 401);
        assert.equal(noTenant.json().error.details.reason, 'tenant_header_missing');
      });

      it('403 actor_not_registered for an actor missing from the roster or disabled', async () => {
        const stranger = pickGoal({ actor: { kind: 'robot', identifier: 'devid:stranger' } });
        const missing = await issue(
          t,
          agent,
          tokenBody({ goal: stranger, physicalState: clearState(now()) }),
        );
        assert.equal(missing.statusCode, 403, missing.body);
        assert.equal(missing.json().error.code, 'actor_not_registered');
        const disabled = await post(t, '/v1/physical/actors', owner, {
          actorIdentity: 'devid:retired-arm',
          actorKind: 'robot',
          status: 'disabled',
        });
        assert.equal(disabled.statusCode, 200, disabled.body);
        const retired = pickGoal({ actor: { kind: 'robot', identifier: 'devid:retired-arm' } });
        const refused = await issue(t, agent, tokenBody({ goal: retired, physicalState: clearState(now()) }));
        assert.equal(refused.statusCode, 403);
        assert.equal(refused.json().error.code, 'actor_not_registered');
      });

      it('403 forbidden (details.permission) for a credential without physical:token:issue', async () => {
        for (const role of ['auditor', 'edge', 'approver']) {
          const res = await issue(t, await t.roleHeaders('acme', role), tokenBody());
          assert.equal(res.statusCode, 403, `${role}: ${res.body}`);
          assert.deepEqual(
            [res.json().error.code, res.json().error.details.permission],
            ['forbidden', 'physical:token:issue'],
          );
        }
      });

      it('423 policy_denied on an unacknowledged chain break; deny clauses still win; ALLOW after acknowledge-break', async () => {
        const gapOwner = bearer((await t.createTenant('gap', 'enterprise')).ownerKey.key, 'gap');
        await registerActors(t, gapOwner);
        const row = await t.storage.db
          .selectFrom('audit_entries')
          .select(['idx', 'canonical'])
          .where('tenant_id', '=', 'gap')
          .where('event_type', '=', 'physical.actor.registered')
          .orderBy('idx')
          .executeTakeFirstOrThrow();
        await t.storage.db
          .updateTable('audit_entries')
          .set({ canonical: row.canonical.replace('"robot"', '"r0bot"') })
          .where('tenant_id', '=', 'gap')
          .where('idx', '=', row.idx)
          .execute();
        const body = tokenBody({ safeDefault: 'transition-safe-state', physicalState: clearState(now()) });
        assert.equal((await issue(t, gapOwner, body)).json().decision, 'ALLOW', 'not found yet');

        const verified = await post(t, '/audit/verify-chain', gapOwner, {});
        assert.deepEqual([verified.json().valid, verified.json().brokenAt], [false, row.idx]);
        const gap = await issue(t, gapOwner, body);
        assert.deepEqual(denyDetails(gap, 423), {
          decision: 'DENY',
          clauseId: 'audit-gap-on-chain-break',
          clauseIds: ['audit-gap-on-chain-break'],
          safeDefault: 'transition-safe-state',
          safetyBit: false,
          safetyCitations: [],
        });
        const estop = await issue(
          t,
          gapOwner,
          tokenBody({ physicalState: clearState(now(), { 'safety/emergency-stop': engaged(now()) }) }),
        );
        assert.equal(denyDetails(estop).clauseId, 'deny-on-emergency-stop');

        const acknowledged = await post(t, '/audit/acknowledge-break', gapOwner, {
          brokenAt: row.idx,
          note: 'restored from the signed checkpoint',
        });
        assert.equal(acknowledged.statusCode, 200, acknowledged.body);
        assert.equal((await issue(t, gapOwner, body)).json().decision, 'ALLOW');
      });
    });

    describe('POST /v1/physical/classify', () => {
      const goals = [
        pickGoal(),
        pickGoal({
          schema: 'drone.flight',
          verb: 'takeoff',
          object: null,
          actor: { kind: 'drone', identifier: DRONE },
        }),
        pickGoal({ verb: 'mute', object: 'light-curtain' }),
        moveGoal(),
        pickGoal({ schema: 'warehouse.agv', verb: 'move', object: null }),
        pickGoal({ schema: 'unknown.thing', verb: 'frobnicate', object: null }),
      ];

      it('answers exactly the classifier result, with OI-1800 / 0.2 / failClosed out of corpus', async () => {
        for (const goal of goals) {
          const res = await post(t, '/v1/physical/classify', agent, { goal });
          assert.equal(res.statusCode, 200, res.body);
          assert.deepEqual(res.json(), classify(goal));
        }
        const pick = (await post(t, '/physical/classify', agent, { goal: goals[0] })).json();
        assert.deepEqual([pick.oiCode, pick.confidence, pick.failClosed], ['OI-1502', 0.9, false]);
        const takeoff = (await post(t, '/v1/physical/classify', agent, { goal: goals[1] })).json();
        assert.deepEqual(
          [takeoff.oiCode, takeoff.safetyBit, takeoff.safetyCitations],
          ['OI-2101', true, ['OI-2902']],
        );
        const out = (await post(t, '/v1/physical/classify', agent, { goal: goals[5] })).json();
        assert.deepEqual(
          [out.oiCode, out.confidence, out.failClosed, out.alternatives],
          ['OI-1800', 0.2, true, []],
        );
      });

      it('records physical.classified under the goal’s actor, naming the credential; refuses bad goals and other roles', async () => {
        const before = (await chainEvents(t, 'acme', 'physical.classified')).length;
        const goal = pickGoal({ verb: 'mute', object: 'light-curtain' });
        await post(t, '/v1/physical/classify', agent, { goal });
        const events = await chainEvents(t, 'acme', 'physical.classified');
        assert.equal(events.length, before + 1);
        // A physical event (contract §6): the goal's actor; the credential that asked is in the payload.
        const event = events.at(-1);
        assert.ok(event);
        assert.equal(event.actorType, 'physical:robot');
        assert.equal(event.actorId, goal.actor.identifier);
        const { principalId, ...payload } = event.payload;
        assert.match(String(principalId), /\S/);
        assert.deepEqual(payload, { goal, classification: classify(goal) });

        for (const body of [{}, { goal: { ...pickGoal(), verb: 'Pick' } }, { goal: pickGoal(), extra: 1 }]) {
          const res = await post(t, '/v1/physical/classify', agent, body);
          assert.equal(res.statusCode, 400, res.body);
          assert.equal(res.json().error.code, 'validation_error');
        }
        const edge = await post(t, '/v1/physical/classify', await t.roleHeaders('acme', 'edge'), {
          goal: pickGoal(),
        });
        assert.deepEqual([edge.statusCode, edge.json().error.details.permission], [403, 'physical:classify']);
      });
    });

    it('fails closed: an unexpected failure answers 500 without a token and leaves nothing half-written', async () => {
      const f = await createTestApp(engine);
      try {
        const fOwner = bearer((await f.createTenant('fail', 'enterprise')).ownerKey.key, 'fail');
        await registerActors(f, fOwner);
        const count = async (table: 'physical_snapshots' | 'physical_tickets' | 'audit_entries') =>
          Number(
            (
              await f.storage.db
                .selectFrom(table)
                .select((eb) => eb.fn.countAll().as('n'))
                .where('tenant_id', '=', 'fail')
                .executeTakeFirstOrThrow()
            ).n,
          );
        const counts = async () => [
          await count('physical_snapshots'),
          await count('physical_tickets'),
          await count('audit_entries'),
        ];
        const before = await counts();
        await sql`alter table physical_decisions rename to physical_decisions_away`.execute(f.storage.db);
        const key = { 'idempotency-key': 'node-17:1' };
        const allow = tokenBody({ physicalState: clearState(f.clock()) });
        for (const body of [allow, tokenBody({ goal: moveGoal(), physicalState: clearState(f.clock()) })]) {
          const res = await issue(f, fOwner, body, key);
          assert.equal(res.statusCode, 500, res.body);
          assert.equal(res.json().error.code, 'internal_error');
          assert.doesNotMatch(res.body, /eyJ/, 'no token in the answer');
          assert.deepEqual(await counts(), before, 'no snapshot, ticket or chain entry survived');
        }
        await sql`alter table physical_decisions_away rename to physical_decisions`.execute(f.storage.db);
        const retried = await issue(f, fOwner, allow, key);
        assert.equal(retried.statusCode, 200, retried.body);
        assert.equal(retried.json().decision, 'ALLOW', 'the failed attempt released the key');
      } finally {
        await f.close();
      }
    });
  });
}
