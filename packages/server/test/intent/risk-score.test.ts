import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clampScore, DEFAULT_MODIFIERS, riskScore } from '../../src/intent/domain/risk-score.js';

describe('risk score', () => {
  it('defaults the modifiers to 20 / 20 / 15', () => {
    assert.deepEqual(DEFAULT_MODIFIERS, { privileged: 20, production: 20, sensitive: 15 });
  });

  it('is the base score when no flag is set', () => {
    assert.equal(riskScore({ baseRiskScore: 0 }), 0);
    assert.equal(riskScore({ baseRiskScore: 42 }), 42);
    assert.equal(riskScore({ baseRiskScore: 100 }), 100);
    assert.equal(
      riskScore({
        baseRiskScore: 30,
        requiresPrivilegedAccess: false,
        touchesProduction: false,
        containsSensitiveData: false,
      }),
      30,
    );
  });

  it('adds each modifier for its flag', () => {
    assert.equal(riskScore({ baseRiskScore: 10, requiresPrivilegedAccess: true }), 30);
    assert.equal(riskScore({ baseRiskScore: 10, touchesProduction: true }), 30);
    assert.equal(riskScore({ baseRiskScore: 10, containsSensitiveData: true }), 25);
    assert.equal(
      riskScore({
        baseRiskScore: 10,
        requiresPrivilegedAccess: true,
        touchesProduction: true,
        containsSensitiveData: true,
      }),
      65,
    );
  });

  it('uses the tenant modifiers when given', () => {
    const modifiers = { privileged: 1, production: 2, sensitive: 4 };
    assert.equal(riskScore({ baseRiskScore: 10, requiresPrivilegedAccess: true }, modifiers), 11);
    assert.equal(riskScore({ baseRiskScore: 10, touchesProduction: true }, modifiers), 12);
    assert.equal(riskScore({ baseRiskScore: 10, containsSensitiveData: true }, modifiers), 14);
    assert.equal(
      riskScore(
        {
          baseRiskScore: 10,
          requiresPrivilegedAccess: true,
          touchesProduction: true,
          containsSensitiveData: true,
        },
        modifiers,
      ),
      17,
    );
    const zero = { privileged: 0, production: 0, sensitive: 0 };
    assert.equal(
      riskScore(
        {
          baseRiskScore: 50,
          requiresPrivilegedAccess: true,
          touchesProduction: true,
          containsSensitiveData: true,
        },
        zero,
      ),
      50,
    );
  });

  it('clamps at 100', () => {
    assert.equal(riskScore({ baseRiskScore: 80, touchesProduction: true }), 100);
    assert.equal(riskScore({ baseRiskScore: 81, touchesProduction: true }), 100);
    assert.equal(
      riskScore({
        baseRiskScore: 100,
        requiresPrivilegedAccess: true,
        touchesProduction: true,
        containsSensitiveData: true,
      }),
      100,
    );
    assert.equal(
      riskScore(
        { baseRiskScore: 0, requiresPrivilegedAccess: true, touchesProduction: true },
        { privileged: 100, production: 100, sensitive: 100 },
      ),
      100,
    );
  });

  it('clamps at 0', () => {
    assert.equal(riskScore({ baseRiskScore: -5 }), 0);
    assert.equal(riskScore({ baseRiskScore: -50, touchesProduction: true }), 0);
    assert.equal(riskScore({ baseRiskScore: -10, touchesProduction: true }), 10);
  });

  it('keeps fractions (no rounding)', () => {
    assert.equal(riskScore({ baseRiskScore: 12.5, containsSensitiveData: true }), 27.5);
    assert.equal(riskScore({ baseRiskScore: 99.9 }), 99.9);
  });

  it('fails closed on a sum that is not a number', () => {
    assert.equal(clampScore(Number.NaN), 100);
    assert.equal(riskScore({ baseRiskScore: Number.NaN }), 100);
    assert.equal(clampScore(Number.POSITIVE_INFINITY), 100);
    assert.equal(clampScore(Number.NEGATIVE_INFINITY), 0);
  });
});
