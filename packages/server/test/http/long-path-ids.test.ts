import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';

/**
 * Ids in paths as long as the contract lets them be (actor ids up to 200 characters, §4.1): the
 * router used to refuse any path parameter over 100 characters before authentication, so an actor
 * with a longer id could not be blocked, and such paths got a 400 without issues or a 404 for a
 * wrong method.
 */
describe('path parameters up to the contract’s lengths', () => {
  let t: TestApp;
  let owner: Headers;
  before(async () => {
    t = await createTestApp('sqlite');
    owner = await t.ownerHeaders('acme');
  });
  after(async () => {
    await t.close();
  });

  it('blocks an actor with a 200-character id, and its next intent is denied at the rbac gate', async () => {
    const actorId = `agent-${'x'.repeat(194)}`;
    assert.equal(actorId.length, 200);
    const blocked = await t.app.inject({
      method: 'PUT',
      url: `/authority/actors/${actorId}`,
      headers: owner,
      payload: { status: 'blocked', reason: 'compromised' },
    });
    assert.equal(blocked.statusCode, 200, blocked.body);
    const decided = await t.app.inject({
      method: 'POST',
      url: '/intent',
      headers: owner,
      payload: intentPayload('list open pull requests', { actor: { id: actorId, type: 'agent' } }),
    });
    assert.equal(decided.statusCode, 403, decided.body);
    assert.equal(decided.json().authorityDecision.decision, 'DENIED');
    assert.equal(decided.json().authorityDecision.decidingRule.id, 'signal:actor-blocked');
  });

  it('authenticates before anything else, and answers 405 with allow for a wrong method', async () => {
    const id = 'i'.repeat(150);
    const anonymous = await t.app.inject({ method: 'GET', url: `/intent/${id}` });
    assert.equal(anonymous.statusCode, 401, anonymous.body);
    const wrongMethod = await t.app.inject({ method: 'DELETE', url: `/intent/${id}`, headers: owner });
    assert.equal(wrongMethod.statusCode, 405, wrongMethod.body);
    assert.ok(wrongMethod.headers.allow);
    // Authenticated, the id is checked: an intent id is at most 200 characters of its own form.
    const checked = await t.app.inject({ method: 'GET', url: `/intent/${id}`, headers: owner });
    assert.ok([400, 404].includes(checked.statusCode), checked.body);
    if (checked.statusCode === 400) assert.ok(checked.json().error.details.issues.length > 0, checked.body);
  });

  it('refuses an id longer than the schema allows with 400 naming the parameter', async () => {
    const response = await t.app.inject({
      method: 'PUT',
      url: `/authority/actors/${'a'.repeat(201)}`,
      headers: owner,
      payload: { status: 'blocked', reason: 'x' },
    });
    assert.equal(response.statusCode, 400, response.body);
    const error = response.json().error;
    assert.equal(error.code, 'VALIDATION_ERROR');
    assert.ok(
      error.details.issues.some((issue: { path: string }) => issue.path.startsWith('params/')),
      response.body,
    );
  });

  it('beyond what the router reads, still a 400 in the envelope with an issue', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/intent/${'a'.repeat(3_000)}`,
      headers: owner,
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().error.code, 'VALIDATION_ERROR');
    assert.ok(response.json().error.details.issues.length > 0, response.body);
    assert.ok(response.headers['x-request-id']);
  });
});
