import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { AppError } from '../../src/errors/app-error.js';
import { classify } from '../../src/physical/domain/classifier.js';
import { evaluatePhysical } from '../../src/physical/domain/evaluate-physical.js';
import { buildPhysicalClaims, physicalTokenHeader } from '../../src/physical/domain/physical-claims.js';
import {
  checkRequestConsistency,
  effectiveSafetyBit,
  type PhysicalTokenRequest,
  requestConsistencyIssues,
} from '../../src/physical/domain/request-consistency.js';
import { goal, input, NOW, tokenRequest } from './fixtures.js';

const PLAIN = classify(goal({ verb: 'place', object: null }));
const SAFETY = classify(goal({ verb: 'hand-over', object: 'operator' }));

function paths(
  request: PhysicalTokenRequest,
  classification = PLAIN,
  rosterActorKind = 'robot' as const,
): string[] {
  return requestConsistencyIssues(request, { rosterActorKind, classification }).map((issue) => issue.path);
}

describe('request consistency (contract §9)', () => {
  test('a consistent request passes', () => {
    assert.deepEqual(paths(tokenRequest()), []);
    assert.doesNotThrow(() =>
      checkRequestConsistency(tokenRequest(), { rosterActorKind: 'robot', classification: PLAIN }),
    );
  });

  const base = tokenRequest();
  const cases: Array<[string, PhysicalTokenRequest, string[]]> = [
    ['deadlines differ', { ...base, claims: { ...base.claims, deadlineMs: 1_501 } }, ['/claims/deadlineMs']],
    [
      'deadline 0',
      { ...base, dagNode: { ...base.dagNode, deadlineMs: 0 }, claims: { ...base.claims, deadlineMs: 0 } },
      ['/dagNode/deadlineMs', '/claims/deadlineMs'],
    ],
    [
      'deadline above 300000',
      {
        ...base,
        dagNode: { ...base.dagNode, deadlineMs: 300_001 },
        claims: { ...base.claims, deadlineMs: 300_001 },
      },
      ['/dagNode/deadlineMs', '/claims/deadlineMs'],
    ],
    [
      'deadline fractional',
      { ...base, dagNode: { ...base.dagNode, deadlineMs: 1.5 }, claims: { ...base.claims, deadlineMs: 1.5 } },
      ['/dagNode/deadlineMs', '/claims/deadlineMs'],
    ],
    [
      'safe defaults differ',
      { ...base, claims: { ...base.claims, safeDefault: 'stop' } },
      ['/claims/safeDefault'],
    ],
    [
      'claims safe default outside the enum',
      { ...base, claims: { ...base.claims, safeDefault: 'halt' } },
      ['/claims/safeDefault'],
    ],
    [
      'goal actor is not claims.actorIdentity',
      { ...base, claims: { ...base.claims, actorIdentity: 'devid:arm-8' } },
      ['/intent/structuredGoal/actor/identifier'],
    ],
    [
      'goal actor kind differs from the roster',
      { ...base, intent: { structuredGoal: goal({}, 'cobot') } },
      ['/intent/structuredGoal/actor/kind'],
    ],
    [
      'streaming without a window',
      { ...base, dagNode: { ...base.dagNode, streaming: true } },
      ['/dagNode/streamingWindowMs'],
    ],
    [
      'streaming window longer than the deadline',
      { ...base, dagNode: { ...base.dagNode, streaming: true, streamingWindowMs: 1_501 } },
      ['/dagNode/streamingWindowMs'],
    ],
    [
      'streaming window 0',
      { ...base, dagNode: { ...base.dagNode, streaming: true, streamingWindowMs: 0 } },
      ['/dagNode/streamingWindowMs'],
    ],
    [
      'citation not OI-29NN',
      { ...base, claims: { ...base.claims, safetyCitations: ['OI-2901', 'OI-1502'] } },
      ['/claims/safetyCitations/1'],
    ],
  ];
  for (const [name, request, expected] of cases) {
    test(`refuses: ${name}`, () => assert.deepEqual(paths(request), expected));
  }

  test('a streaming window within the deadline is accepted', () => {
    const ok = { ...base, dagNode: { ...base.dagNode, streaming: true, streamingWindowMs: 1_500 } };
    assert.deepEqual(paths(ok), []);
  });

  test('safeDefault "ignore" is refused when the caller’s or the classifier’s safetyBit is true', () => {
    const ignore: PhysicalTokenRequest = {
      ...base,
      dagNode: { ...base.dagNode, safeDefault: 'ignore' },
      claims: { ...base.claims, safeDefault: 'ignore' },
    };
    assert.deepEqual(paths(ignore, PLAIN), [], 'ignore is fine for a non-safety action');
    assert.deepEqual(paths(ignore, SAFETY), ['/dagNode/safeDefault']);
    assert.deepEqual(paths({ ...ignore, claims: { ...ignore.claims, safetyBit: true } }, PLAIN), [
      '/dagNode/safeDefault',
    ]);
    assert.equal(effectiveSafetyBit(base, PLAIN), false, 'an omitted claims.safetyBit counts as false');
    assert.equal(effectiveSafetyBit({ ...base, claims: { ...base.claims, safetyBit: false } }, SAFETY), true);
  });

  test('checkRequestConsistency throws one 400 validation_error listing every issue', () => {
    const bad = { ...base, claims: { ...base.claims, deadlineMs: 9, actorIdentity: 'x' } };
    try {
      checkRequestConsistency(bad, { rosterActorKind: 'robot', classification: PLAIN });
      assert.fail('expected a validation error');
    } catch (error) {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.equal(error.status, 400);
      assert.deepEqual(
        ((error.details?.issues ?? []) as Array<{ path: string }>).map((i) => i.path),
        ['/claims/deadlineMs', '/intent/structuredGoal/actor/identifier'],
      );
    }
  });
});

const SERVICE_KEYS = [
  'actorIdentity',
  'actorIdentityKind',
  'dagNodeId',
  'deadlineMs',
  'expiresAtMs',
  'issuedAtMs',
  'oiCode',
  'operatorTicketId',
  'physicalStateRef',
  'realTimeTier',
  'safeDefault',
  'safetyBit',
  'safetyCitations',
  'tenantId',
  'version',
];

function allowClaims(
  request = tokenRequest(),
  nowMs = NOW,
  extra: Partial<Parameters<typeof buildPhysicalClaims>[0]> = {},
) {
  // The decision is taken at the fixtures' clock (their state is fresh then); minting time varies.
  const decision = evaluatePhysical(input({ goal: request.intent.structuredGoal }));
  assert.equal(decision.decision, 'ALLOW');
  return buildPhysicalClaims({
    issuer: 'https://authority.example.com',
    tenantId: 'acme',
    jti: '0190d7a4-1111-7000-8000-000000000001',
    nowMs,
    decision,
    request,
    physicalStateRef: 'snap_1',
    ...extra,
  });
}

describe('physical token claims', () => {
  test('have exactly the document’s claims, the service claims under the key "service"', () => {
    const claims = allowClaims();
    assert.deepEqual(Object.keys(claims).sort(), ['aud', 'exp', 'iat', 'iss', 'jti', 'service', 'sub']);
    assert.deepEqual(Object.keys(claims.service).sort(), SERVICE_KEYS);
    assert.equal(claims.iss, 'https://authority.example.com');
    assert.equal(claims.aud, 'service-edge-verifier');
    assert.equal(claims.jti, '0190d7a4-1111-7000-8000-000000000001');
    assert.deepEqual(claims.service, {
      version: 2,
      oiCode: 'OI-1502',
      tenantId: 'acme',
      actorIdentity: 'devid:arm-7',
      actorIdentityKind: 'ieee-802-1ar-devid',
      deadlineMs: 1_500,
      issuedAtMs: NOW,
      expiresAtMs: NOW + 1_500,
      safeDefault: 'hold-position',
      safetyBit: false,
      safetyCitations: [],
      dagNodeId: 'node-12',
      realTimeTier: 'best-effort',
      physicalStateRef: 'snap_1',
      operatorTicketId: null,
    });
  });

  test('bind the actor: sub = service.actorIdentity = claims.actorIdentity, kind from the roster', () => {
    const claims = allowClaims(tokenRequest(), NOW, { actorIdentityKind: 'x509-serial' });
    assert.equal(claims.sub, 'devid:arm-7');
    assert.equal(claims.service.actorIdentity, claims.sub);
    assert.equal(claims.service.actorIdentityKind, 'x509-serial');
    const mismatched = tokenRequest({ claims: { ...tokenRequest().claims, actorIdentity: 'devid:other' } });
    assert.throws(() => allowClaims(mismatched), /goal actor must be claims.actorIdentity/);
  });

  test('carry the real-time tier and the operator ticket of the decision', () => {
    const request = tokenRequest({ dagNode: { ...tokenRequest().dagNode, realTimeTier: 'rt-hard' } });
    assert.equal(allowClaims(request).service.realTimeTier, 'rt-hard');
    const decision = { ...evaluatePhysical(input()), operatorTicketId: 'esc_9' };
    const claims = buildPhysicalClaims({
      issuer: 'i',
      tenantId: 't',
      jti: 'j',
      nowMs: NOW,
      decision,
      request,
      physicalStateRef: null,
    });
    assert.deepEqual([claims.service.operatorTicketId, claims.service.physicalStateRef], ['esc_9', null]);
  });

  test('exp = iat + ceil(deadlineMs / 1000), iat = floor(ms / 1000), millisecond fields exact', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300_000 }),
        fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }),
        (deadlineMs, nowMs) => {
          const request = tokenRequest({
            dagNode: { ...tokenRequest().dagNode, deadlineMs },
            claims: { ...tokenRequest().claims, deadlineMs },
          });
          const c = allowClaims(request, nowMs);
          assert.equal(c.iat, Math.floor(nowMs / 1000));
          assert.equal(c.exp, c.iat + Math.ceil(deadlineMs / 1000));
          assert.ok(c.exp > c.iat, 'sub-second lifetimes still expire after iat');
          assert.equal(c.service.issuedAtMs, nowMs);
          assert.equal(c.service.expiresAtMs, nowMs + deadlineMs);
          assert.equal(c.service.deadlineMs, deadlineMs);
        },
      ),
    );
    const oneMs = tokenRequest({
      dagNode: { ...tokenRequest().dagNode, deadlineMs: 1 },
      claims: { ...tokenRequest().claims, deadlineMs: 1 },
    });
    const c = allowClaims(oneMs, 1_767_225_600_999);
    assert.deepEqual(
      [c.iat, c.exp, c.service.expiresAtMs],
      [1_767_225_600, 1_767_225_601, 1_767_225_601_000],
    );
  });

  test('are minted only for ALLOW and a checked deadline', () => {
    const denied = evaluatePhysical(input({ killSwitchEnabled: true }));
    assert.throws(
      () =>
        buildPhysicalClaims({
          issuer: 'i',
          tenantId: 't',
          jti: 'j',
          nowMs: NOW,
          decision: denied,
          request: tokenRequest(),
          physicalStateRef: null,
        }),
      /only on ALLOW/,
    );
    const tooLong = tokenRequest({ dagNode: { ...tokenRequest().dagNode, deadlineMs: 300_001 } });
    assert.throws(() => allowClaims(tooLong), /deadlineMs/);
  });

  test('sign as RS256 with the header {alg, typ, kid} and verify with jose against the pinned audience', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
    const jwk = await exportJWK(publicKey);
    assert.equal(jwk.kty, 'RSA');
    const nowMs = Date.now();
    const claims = allowClaims(tokenRequest(), nowMs);
    const header = physicalTokenHeader('phys-1');
    assert.deepEqual(header, { alg: 'RS256', typ: 'JWT', kid: 'phys-1' });
    const token = await new SignJWT({ ...claims }).setProtectedHeader(header).sign(privateKey);
    const verified = await jwtVerify(token, publicKey, {
      algorithms: ['RS256'],
      audience: 'service-edge-verifier',
      issuer: 'https://authority.example.com',
      currentDate: new Date(nowMs),
    });
    assert.deepEqual(verified.payload, claims);
    assert.deepEqual(verified.protectedHeader, header);
  });
});
