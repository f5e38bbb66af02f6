import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';

/** Accepted at save (4 × {100}: ~400 instructions), too costly over 60,000 characters. */
const COSTLY = '(?:[a-z]{100}){4}[0-9]';
const SIGNAL = { id: 'signal:evaluation-budget', effect: 'DENY', priority: 0 };

for (const engine of ENGINES) {
  describe(`regular-expression cost (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let agent: Headers;

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      agent = await t.roleHeaders('acme', 'agent');
    });
    after(async () => {
      await t.close();
    });

    const savePolicy = (rules: unknown[]) =>
      t.app.inject({
        method: 'POST',
        url: '/authority/policy',
        headers: owner,
        payload: { rules, activate: true },
      });

    it('refuses at save a pattern that compiles too large, naming the rule and the field', async () => {
      const response = await savePolicy([
        {
          id: 'review',
          effect: 'DENY',
          conditions: { all: [{ path: 'args.s', op: 'MATCHES', value: '[a-z]{1000}'.repeat(90) }] },
        },
      ]);
      assert.equal(response.statusCode, 400, response.body);
      const error = response.json().error;
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.deepEqual(
        error.details.issues.map((i: { path: string }) => i.path),
        ['/rules/0/conditions/all/0/value'],
      );
      assert.match(
        error.details.issues[0].message,
        /^rule "review": conditions\.all\[0\]\.value: pattern repeats too much/,
      );
    });

    it('DENIES (403) a decision over its budget with signal:evaluation-budget, and records it', async () => {
      const saved = await savePolicy([
        { id: 'allow-all', effect: 'ALLOW' },
        {
          id: 'costly',
          effect: 'DENY',
          conditions: { all: [{ path: 'args.s', op: 'MATCHES', value: COSTLY }] },
        },
      ]);
      assert.equal(saved.statusCode, 201, saved.body);
      const payload = intentPayload('list pull requests', { args: { s: 'a'.repeat(60_000) } });
      const response = await t.app.inject({ method: 'POST', url: '/intent', headers: agent, payload });
      assert.equal(response.statusCode, 403, response.body);
      const decision = response.json().authorityDecision;
      assert.equal(decision.decision, 'DENIED');
      assert.deepEqual(decision.decidingRule, SIGNAL);
      assert.deepEqual(decision.matchedRules, [SIGNAL]);
      assert.equal(response.json().authorityDecisionToken, undefined);
      assert.equal(response.json().audit.entriesWritten, 2);

      // Asked for, the explanation is there as on /authority/evaluate: the rules its own budget
      // reached before the costly one (none here: allow-all matched, costly is next).
      const explained = await t.app.inject({
        method: 'POST',
        url: '/intent?explain=true',
        headers: agent,
        payload,
      });
      assert.equal(explained.statusCode, 403, explained.body);
      assert.deepEqual(explained.json().authorityDecision.explanation, []);

      // /authority/evaluate spends one budget over its two passes and answers the same way.
      const evaluated = await t.app.inject({
        method: 'POST',
        url: '/authority/evaluate',
        headers: owner,
        payload: { ...payload, tenantId: undefined, oiCode: 'OI-104' },
      });
      assert.equal(evaluated.statusCode, 200, evaluated.body);
      assert.equal(evaluated.json().decision, 'DENY');
      assert.deepEqual(evaluated.json().decidingRule, SIGNAL);
      assert.deepEqual(evaluated.json().explanation, []);

      // A small input under the same policy is decided by its rules.
      const small = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('list pull requests', { args: { s: 'a'.repeat(100) } }),
      });
      assert.equal(small.statusCode, 200, small.body);
      assert.equal(small.json().authorityDecision.decidingRule.id, 'allow-all');
    });

    it('a pattern with required literals is charged a search for them: long text without them fits the budget', async () => {
      const installed = await t.app.inject({
        method: 'POST',
        url: '/policy-packs/install',
        headers: owner,
        payload: { pack: 'sensitive-data-guard' },
      });
      assert.equal(installed.statusCode, 201, installed.body);
      // Its secret pattern is 195 RE2 instructions: 195 × 4,000 characters alone was over 750,000.
      const filler = (length: number) =>
        'lorem ipsum dolor sit amet '.repeat(length / 27 + 1).slice(0, length);
      const action = `list pull requests ${filler(3_970)}`;
      assert.equal(action.length, 3_989);
      const long = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload(action, { args: { content: filler(32 * 1024) } }),
      });
      const short = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('list pull requests', { args: { content: 'lorem ipsum' } }),
      });
      const rule = (r: { json(): { authorityDecision: { decidingRule: { id: string } } } }) =>
        r.json().authorityDecision.decidingRule.id;
      assert.notEqual(rule(long), SIGNAL.id, long.body);
      assert.equal(rule(long), rule(short));
      assert.equal(long.statusCode, short.statusCode);

      // A text that holds a literal is matched in full, and charged so: still never approved.
      const secret = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('list pull requests', {
          args: { content: `${filler(16 * 1024)} AKIAABCDEFGHIJKLMNOP ${filler(100)}` },
        }),
      });
      assert.equal(secret.statusCode, 403, secret.body);
      const small = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('list pull requests', { args: { content: 'key AKIAABCDEFGHIJKLMNOP' } }),
      });
      assert.equal(small.statusCode, 403, small.body);
      assert.match(rule(small), /^sensitive-data-guard\//);
    });
  });
}
