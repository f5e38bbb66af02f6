import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { bearer, createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';
import { clearState, issue, ROBOT, registerActors, tokenBody } from '../physical-api/fixtures.js';

/** The requests and reads both suites make, for tenant `acme` of `t`. */
function acme(t: TestApp, headers: { owner: Headers; agent: Headers; approver: Headers }) {
  const submit = (action: string) =>
    t.app.inject({ method: 'POST', url: '/intent', headers: headers.agent, payload: intentPayload(action) });
  return {
    submit,
    putKillSwitch: (enabled: boolean) =>
      t.app.inject({
        method: 'PUT',
        url: '/authority/kill-switch/acme',
        headers: headers.owner,
        payload: enabled ? { enabled, reason: 'incident 4711' } : { enabled },
      }),
    consume: (token: string) =>
      t.app.inject({
        method: 'POST',
        url: '/authority/tokens/consume',
        headers: headers.agent,
        payload: { token, adapterId: 'external', targetSystem: 'acme/payments' },
      }),
    /** An escalated intent an approver approved: its token is to be fetched. */
    async approvedEscalation(): Promise<string> {
      const escalated = await submit('merge pull request 42');
      assert.equal(escalated.statusCode, 202, escalated.body);
      const intentId = escalated.json().intentId as string;
      const approval = await t.app.inject({
        method: 'POST',
        url: '/authority/approval',
        headers: headers.approver,
        payload: { intentId, decision: 'approve', rationale: 'Reviewed the change and its blast radius' },
      });
      assert.equal(approval.statusCode, 200, approval.body);
      return intentId;
    },
    /** The event types of the tenant's chain from the last `eventType` entry on (the switch's change). */
    async eventsSince(eventType = 'killswitch.changed'): Promise<string[]> {
      const rows = await t.storage.db
        .selectFrom('audit_entries')
        .select('event_type')
        .where('tenant_id', '=', 'acme')
        .orderBy('idx')
        .execute();
      const types = rows.map((row) => row.event_type);
      return types.slice(types.lastIndexOf(eventType));
    },
  };
}

/**
 * The kill switch and an actor block against writes already under way: each test turns one on
 * after the write read it off and before the write's transaction, from inside a step the write
 * takes in between (signing, the key lookup). Nothing may be issued or consumed after its answer.
 */
for (const engine of ENGINES) {
  describe(`kill switch or actor block while a token is on its way (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let agent: Headers;
    let approver: Headers;
    let h: ReturnType<typeof acme>;
    const restore: Array<() => void> = [];

    before(async () => {
      t = await createTestApp(engine);
      owner = bearer((await t.createTenant('acme', 'enterprise')).ownerKey.key, 'acme');
      agent = await t.roleHeaders('acme', 'agent');
      approver = await t.roleHeaders('acme', 'approver');
      await registerActors(t, owner);
      h = acme(t, { owner, agent, approver });
    });
    afterEach(async () => {
      for (const undo of restore.splice(0)) undo();
      await killSwitch(false);
    });
    after(async () => {
      await t.close();
    });

    async function killSwitch(enabled: boolean): Promise<void> {
      const response = await h.putKillSwitch(enabled);
      assert.equal(response.statusCode, 200, response.body);
    }

    /** Replaces `object[name]` so that its first call makes `change` (the switch on) before running. */
    function switchOnInside<T extends object, K extends keyof T>(
      object: T,
      name: K,
      change: () => Promise<void> = () => killSwitch(true),
    ): { calls: number } {
      const original = object[name] as (...args: unknown[]) => unknown;
      const seen = { calls: 0 };
      object[name] = (async (...args: unknown[]) => {
        seen.calls += 1;
        if (seen.calls === 1) await change();
        return original.apply(object, args);
      }) as T[K];
      restore.push(() => {
        object[name] = original as T[K];
      });
      return seen;
    }

    async function setActor(status: 'active' | 'blocked'): Promise<void> {
      const response = await t.app.inject({
        method: 'PUT',
        url: '/authority/actors/agent-7',
        headers: owner,
        payload: { status, reason: 'leaked key' },
      });
      assert.equal(response.statusCode, 200, response.body);
    }

    /** The token ids of the tenant's recorded physical ALLOWs. */
    const physicalAllows = async () =>
      (
        await t.storage.db
          .selectFrom('physical_decisions')
          .select('token_jti')
          .where('tenant_id', '=', 'acme')
          .where('decision', '=', 'ALLOW')
          .execute()
      ).map((row) => row.token_jti);

    it('POST /intent: an approval whose token was being signed when the switch went on is denied', async () => {
      const signing = switchOnInside(t.services.signingKeys, 'signer');
      const response = await h.submit('list open pull requests');
      assert.equal(signing.calls, 1, 'signed once, for the attempt the switch overtook');
      assert.equal(response.statusCode, 403, response.body);
      const body = response.json();
      assert.equal(body.authorityDecision.decision, 'DENIED');
      assert.equal(body.authorityDecisionToken, undefined);
      const events = await h.eventsSince();
      assert.ok(!events.includes('token.issued'), `no token issued after the switch: ${events.join(', ')}`);
      const stored = await t.storage.db
        .selectFrom('intents')
        .select(['decision', 'token'])
        .where('tenant_id', '=', 'acme')
        .where('id', '=', body.intentId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(stored, { decision: 'DENIED', token: null });
    });

    it('POST /intent: an approval whose token was being signed when its actor was blocked is denied', async () => {
      switchOnInside(t.services.signingKeys, 'signer', () => setActor('blocked'));
      try {
        const response = await h.submit('list open pull requests');
        assert.equal(response.statusCode, 403, response.body);
        assert.equal(response.json().authorityDecision.decidingRule.id, 'signal:actor-blocked');
        assert.equal(response.json().authorityDecisionToken, undefined);
        const events = await h.eventsSince('actor.changed');
        assert.ok(!events.includes('token.issued'), `no token issued after the block: ${events.join(', ')}`);
      } finally {
        await setActor('active');
      }
    });

    it('POST /authority/tokens/consume: a token being verified when the switch went on is not spent', async () => {
      const approved = await h.submit('list open pull requests');
      assert.equal(approved.statusCode, 200, approved.body);
      const consume = () => h.consume(approved.json().authorityDecisionToken);

      const lookup = switchOnInside(t.services.signingKeys, 'jwks');
      const refused = await consume();
      assert.equal(lookup.calls, 1);
      assert.deepEqual(refused.json(), { valid: false, reason: 'TENANT_KILL_SWITCH' });
      assert.ok(!(await h.eventsSince()).includes('token.consumed'));

      for (const undo of restore.splice(0)) undo();
      await killSwitch(false);
      const consumed = await consume();
      assert.equal(consumed.json().valid, true, `the nonce was not spent: ${consumed.body}`);
    });

    it('POST /intent/:id/token: an approved escalation whose token was being signed is refused', async () => {
      const intentId = await h.approvedEscalation();
      switchOnInside(t.services.signingKeys, 'signer');
      const refused = await t.app.inject({
        method: 'POST',
        url: `/intent/${intentId}/token`,
        headers: agent,
      });
      assert.equal(refused.statusCode, 409, refused.body);
      assert.equal(refused.json().error.details.reason, 'kill_switch');
      assert.ok(!(await h.eventsSince()).includes('token.issued'));

      for (const undo of restore.splice(0)) undo();
      await killSwitch(false);
      const minted = await t.app.inject({ method: 'POST', url: `/intent/${intentId}/token`, headers: agent });
      assert.equal(minted.statusCode, 200, 'the token was not attached by the refused attempt');
    });

    it('POST /intent/:id/token: no token for an actor blocked before the call or while it signs', async () => {
      const blockedFirst = await h.approvedEscalation();
      await setActor('blocked');
      try {
        const refused = await t.app.inject({
          method: 'POST',
          url: `/intent/${blockedFirst}/token`,
          headers: agent,
        });
        assert.equal(refused.statusCode, 409, refused.body);
        assert.equal(refused.json().error.details.reason, 'actor_blocked');
      } finally {
        await setActor('active');
      }

      const blockedMeanwhile = await h.approvedEscalation();
      switchOnInside(t.services.signingKeys, 'signer', () => setActor('blocked'));
      try {
        const refused = await t.app.inject({
          method: 'POST',
          url: `/intent/${blockedMeanwhile}/token`,
          headers: agent,
        });
        assert.equal(refused.statusCode, 409, refused.body);
        assert.equal(refused.json().error.details.reason, 'actor_blocked');
        assert.ok(!(await h.eventsSince('actor.changed')).includes('token.issued'));
      } finally {
        await setActor('active');
      }
    });

    it('POST /v1/physical/authority-tokens: an ALLOW being signed when its actor left the roster is refused', async () => {
      const roster = (status: 'active' | 'disabled') =>
        t.app.inject({
          method: 'POST',
          url: '/v1/physical/actors',
          headers: owner,
          payload: { actorIdentity: ROBOT, actorKind: 'robot', status },
        });
      switchOnInside(t.services.physical.signer, 'sign', async () => {
        assert.equal((await roster('disabled')).statusCode, 200);
      });
      try {
        const response = await issue(t, agent, tokenBody({ physicalState: clearState(t.clock()) }));
        assert.equal(response.statusCode, 403, response.body);
        assert.equal(response.json().error.code, 'actor_not_registered');
        assert.deepEqual(await physicalAllows(), [], 'no ALLOW recorded');
      } finally {
        assert.equal((await roster('active')).statusCode, 200);
      }
    });

    it('POST /v1/physical/authority-tokens: an ALLOW being signed when the switch went on is denied', async () => {
      const signing = switchOnInside(t.services.physical.signer, 'sign');
      const response = await issue(t, agent, tokenBody({ physicalState: clearState(t.clock()) }));
      assert.equal(signing.calls, 1);
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().error.details.clauseId, 'kill-switch');
      assert.deepEqual(await physicalAllows(), [], 'no ALLOW recorded');
    });

    it('under concurrent load, nothing is issued or consumed after the switch in the chain', async () => {
      const decide = () => h.submit('list open pull requests');
      const tokens: string[] = [];
      for (let i = 0; i < 30; i += 1) tokens.push((await decide()).json().authorityDecisionToken);
      const consumedEntries = async () =>
        (
          await t.storage.db
            .selectFrom('audit_entries')
            .select('idx')
            .where('tenant_id', '=', 'acme')
            .where('event_type', '=', 'token.consumed')
            .execute()
        ).length;
      const consumedBefore = await consumedEntries();
      const physical = () => issue(t, agent, tokenBody({ physicalState: clearState(t.clock()) }));
      const work = [
        ...tokens.map((token) => h.consume(token)),
        ...Array.from({ length: 30 }, () => decide()),
        ...Array.from({ length: 10 }, () => physical()),
      ];
      const [answers] = await Promise.all([Promise.all(work), killSwitch(true)]);

      const events = await h.eventsSince();
      for (const released of ['token.issued', 'token.consumed', 'physical.token.issued']) {
        assert.ok(!events.includes(released), `${released} after the switch: ${events.join(', ')}`);
      }
      const consumed = answers.slice(0, tokens.length).filter((answer) => answer.json().valid === true);
      assert.equal(
        (await consumedEntries()) - consumedBefore,
        consumed.length,
        'each valid answer has its entry',
      );
    });
  });
}

/**
 * PostgreSQL: the switch's own transaction has updated the tenant row and queues for the chain
 * head lock when the write starts, so the write reads the switch off (not yet committed) and then
 * queues behind it. Only a re-read after the write holds the head lock sees the switch on; one
 * taken before the lock lets the write commit after the switch's answer.
 */
describe('the switch is read again only after the head lock (postgres)', {
  skip: !ENGINES.includes('postgres'),
}, () => {
  let t: TestApp;
  let owner: Headers;
  let agent: Headers;
  let approver: Headers;
  let schema: string;
  let h: ReturnType<typeof acme>;

  before(async () => {
    t = await createTestApp('postgres');
    owner = bearer((await t.createTenant('acme', 'enterprise')).ownerKey.key, 'acme');
    agent = await t.roleHeaders('acme', 'agent');
    approver = await t.roleHeaders('acme', 'approver');
    await registerActors(t, owner);
    h = acme(t, { owner, agent, approver });
    schema = (await sql<{ name: string }>`select current_schema() as name`.execute(t.storage.db)).rows[0]
      ?.name as string;
  });
  after(async () => {
    await t.close();
  });

  /** Waits until `count` backends queue, directly or behind each other, for `holder`'s locks. */
  async function queued(admin: pg.Client, holder: number, count: number): Promise<void> {
    for (;;) {
      const { rows } = await admin.query<{ pid: number; blockers: number[] }>(
        'select pid, pg_blocking_pids(pid) as blockers from pg_stat_activity where cardinality(pg_blocking_pids(pid)) > 0',
      );
      const waiting = new Set<number>([holder]);
      for (let grew = true; grew; ) {
        grew = false;
        for (const row of rows) {
          if (!waiting.has(row.pid) && row.blockers.some((pid) => waiting.has(pid))) {
            waiting.add(row.pid);
            grew = true;
          }
        }
      }
      if (waiting.size - 1 >= count) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Runs `write` while the switch's transaction waits for the head lock ahead of it. */
  async function overtaken(write: () => Promise<{ statusCode: number; body: string }>) {
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
    // A connection of its own: inside the holder's transaction the activity view would not change.
    const watcher = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    await watcher.connect();
    try {
      await holder.query('begin');
      const pid = Number((await holder.query('select pg_backend_pid() as pid')).rows[0].pid);
      await holder.query(`select 1 from "${schema}".audit_heads where tenant_id = 'acme' for update`);
      const switched = h.putKillSwitch(true);
      await queued(watcher, pid, 1);
      const written = write();
      await queued(watcher, pid, 2);
      await holder.query('commit');
      const [switchAnswer, answer] = await Promise.all([switched, written]);
      assert.equal(switchAnswer.statusCode, 200, switchAnswer.body);
      return { answer, since: await h.eventsSince() };
    } finally {
      await holder.end();
      await watcher.end();
      assert.equal((await h.putKillSwitch(false)).statusCode, 200);
    }
  }

  it('POST /intent is denied, not committed after the switch with its token', async () => {
    const { answer, since } = await overtaken(() => h.submit('list open pull requests'));
    assert.equal(answer.statusCode, 403, answer.body);
    assert.ok(!since.includes('token.issued'), since.join(', '));
  });

  it('POST /authority/tokens/consume refuses and leaves the nonce unspent', async () => {
    const token = (await h.submit('list open pull requests')).json().authorityDecisionToken as string;
    const { answer, since } = await overtaken(() => h.consume(token));
    assert.deepEqual(JSON.parse(answer.body), { valid: false, reason: 'TENANT_KILL_SWITCH' });
    assert.ok(!since.includes('token.consumed'), since.join(', '));
  });

  it('POST /intent/:id/token answers 409 kill_switch', async () => {
    const intentId = await h.approvedEscalation();
    const { answer, since } = await overtaken(() =>
      t.app.inject({ method: 'POST', url: `/intent/${intentId}/token`, headers: agent }),
    );
    assert.equal(answer.statusCode, 409, answer.body);
    assert.equal(JSON.parse(answer.body).error.details.reason, 'kill_switch');
    assert.ok(!since.includes('token.issued'), since.join(', '));
  });

  it('POST /v1/physical/authority-tokens is denied by the kill-switch clause', async () => {
    const { answer, since } = await overtaken(() =>
      issue(t, agent, tokenBody({ physicalState: clearState(t.clock()) })),
    );
    assert.equal(answer.statusCode, 422, answer.body);
    assert.ok(!since.includes('physical.token.issued'), since.join(', '));
  });
});
