/**
 * The risk score of an intent (contract §4.3):
 * `clamp(0, 100, baseRiskScore + (privileged ? m.privileged : 0) + (production ? m.production : 0)
 * + (sensitive ? m.sensitive : 0))`.
 *
 * No rounding: `baseRiskScore` is any number 0..100 (validated upstream) and is kept as given, so a
 * fractional base gives a fractional score. A sum that is not a number (which validated input cannot
 * produce) scores 100, the most severe value, so a defect fails closed.
 */

export interface RiskModifiers {
  privileged: number;
  production: number;
  sensitive: number;
}

export const DEFAULT_MODIFIERS: Readonly<RiskModifiers> = Object.freeze({
  privileged: 20,
  production: 20,
  sensitive: 15,
});

export const MIN_RISK_SCORE = 0;
export const MAX_RISK_SCORE = 100;

/** The fields of `riskContext` that the score reads; absent flags count as `false`. */
export interface RiskInputs {
  baseRiskScore: number;
  requiresPrivilegedAccess?: boolean | undefined;
  touchesProduction?: boolean | undefined;
  containsSensitiveData?: boolean | undefined;
}

export function clampScore(value: number): number {
  if (Number.isNaN(value)) return MAX_RISK_SCORE;
  return Math.min(MAX_RISK_SCORE, Math.max(MIN_RISK_SCORE, value));
}

export function riskScore(riskContext: RiskInputs, modifiers: RiskModifiers = DEFAULT_MODIFIERS): number {
  const sum =
    riskContext.baseRiskScore +
    (riskContext.requiresPrivilegedAccess === true ? modifiers.privileged : 0) +
    (riskContext.touchesProduction === true ? modifiers.production : 0) +
    (riskContext.containsSensitiveData === true ? modifiers.sensitive : 0);
  return clampScore(sum);
}
