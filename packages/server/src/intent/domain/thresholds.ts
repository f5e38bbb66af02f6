import type { ValidationIssue } from '../../errors/app-error.js';
import { SIGNAL_IDS, type SignalId, signalRule } from '../../policy/most-severe-wins.js';
import type { Effect, MatchedRule } from '../../policy/rule.js';
import { DEFAULT_MODIFIERS, type RiskModifiers } from './risk-score.js';

/**
 * The per-tenant thresholds record (contract §4.4) and the threshold and low-confidence signals it
 * produces (§4.5).
 *
 * Decisions where the contract is silent:
 * - `escalateAt`, `denyAt` and `lowConfidenceEscalateBelow` are any finite numbers in range (the
 *   score itself may be fractional); modifiers and both TTLs must be integers.
 * - A patch may change one modifier alone: `modifiers` is merged key by key.
 * - `tenantId`, `updatedAt` and `updatedBy` may appear in a patch (so a record read with GET can be
 *   sent back with PUT) but are server-owned and ignored here; only their types are checked. The
 *   route compares `tenantId` with the path. Any other unknown field, at either level, is refused.
 * - An ordering violation (`escalateAt > denyAt`) is reported at `denyAt` when only `denyAt` was
 *   patched, else at `escalateAt`.
 * - Issue paths are JSON Pointers (`/modifiers/privileged`), as everywhere else in the service.
 */

export interface ThresholdSettings {
  escalateAt: number;
  denyAt: number;
  modifiers: RiskModifiers;
  lowConfidenceEscalateBelow: number;
  approvalTtlSeconds: number;
  tokenTtlSeconds: number;
}

export interface ThresholdsRecord extends ThresholdSettings {
  tenantId: string;
  updatedAt: string | null;
  updatedBy: string | null;
}

export const DEFAULT_THRESHOLDS: Readonly<ThresholdSettings> = Object.freeze({
  escalateAt: 60,
  denyAt: 90,
  modifiers: DEFAULT_MODIFIERS,
  lowConfidenceEscalateBelow: 0.5,
  approvalTtlSeconds: 3600,
  tokenTtlSeconds: 300,
});

/** The record of a tenant that never changed its thresholds. */
export function defaultThresholdsRecord(tenantId: string): ThresholdsRecord {
  return {
    tenantId,
    ...DEFAULT_THRESHOLDS,
    modifiers: { ...DEFAULT_MODIFIERS },
    updatedAt: null,
    updatedBy: null,
  };
}

export const THRESHOLD_BOUNDS = {
  scoreThreshold: { min: 0, max: 101 },
  modifier: { min: 0, max: 100 },
  lowConfidenceEscalateBelow: { min: 0, max: 1 },
  approvalTtlSeconds: { min: 60, max: 604_800 },
  tokenTtlSeconds: { min: 1, max: 300 },
} as const;

const SETTING_FIELDS = [
  'escalateAt',
  'denyAt',
  'modifiers',
  'lowConfidenceEscalateBelow',
  'approvalTtlSeconds',
  'tokenTtlSeconds',
] as const;
const ECHO_FIELDS = ['tenantId', 'updatedAt', 'updatedBy'] as const;
const MODIFIER_FIELDS = ['privileged', 'production', 'sensitive'] as const;

export type MergeResult = { ok: true; value: ThresholdSettings } | { ok: false; issues: ValidationIssue[] };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkNumber(
  issues: ValidationIssue[],
  path: string,
  value: number,
  bounds: { min: number; max: number },
  integer: boolean,
): void {
  if (!Number.isFinite(value)) {
    issues.push({ path, message: 'must be a finite number' });
  } else if (integer && !Number.isInteger(value)) {
    issues.push({ path, message: `must be an integer from ${bounds.min} to ${bounds.max}` });
  } else if (value < bounds.min || value > bounds.max) {
    issues.push({
      path,
      message: `must be ${integer ? 'an integer' : 'a number'} from ${bounds.min} to ${bounds.max}`,
    });
  }
}

/** Shape of a patch: a plain object with known fields of the right JSON types. */
function checkPatchShape(patch: unknown, issues: ValidationIssue[]): patch is Record<string, unknown> {
  if (!isPlainObject(patch)) {
    issues.push({ path: '/', message: 'must be an object' });
    return false;
  }
  for (const [key, value] of Object.entries(patch)) {
    if ((SETTING_FIELDS as readonly string[]).includes(key)) {
      if (key === 'modifiers') {
        if (!isPlainObject(value)) {
          issues.push({ path: '/modifiers', message: 'must be an object' });
          continue;
        }
        for (const [name, modifier] of Object.entries(value)) {
          if (!(MODIFIER_FIELDS as readonly string[]).includes(name)) {
            issues.push({ path: `/modifiers/${name}`, message: 'is not a known field' });
          } else if (typeof modifier !== 'number') {
            issues.push({ path: `/modifiers/${name}`, message: 'must be a number' });
          }
        }
      } else if (typeof value !== 'number') {
        issues.push({ path: `/${key}`, message: 'must be a number' });
      }
    } else if (key === 'tenantId') {
      if (typeof value !== 'string') issues.push({ path: '/tenantId', message: 'must be a string' });
    } else if ((ECHO_FIELDS as readonly string[]).includes(key)) {
      if (value !== null && typeof value !== 'string') {
        issues.push({ path: `/${key}`, message: 'must be a string or null' });
      }
    } else {
      issues.push({ path: `/${key}`, message: 'is not a known field' });
    }
  }
  return issues.length === 0;
}

/** Range and ordering rules of §4.4 on a complete record. */
export function validateThresholds(
  value: ThresholdSettings,
  patchedFields: ReadonlySet<string> = new Set(SETTING_FIELDS),
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  checkNumber(issues, '/escalateAt', value.escalateAt, THRESHOLD_BOUNDS.scoreThreshold, false);
  checkNumber(issues, '/denyAt', value.denyAt, THRESHOLD_BOUNDS.scoreThreshold, false);
  if (issues.length === 0 && value.escalateAt > value.denyAt) {
    const onDeny = patchedFields.has('denyAt') && !patchedFields.has('escalateAt');
    issues.push(
      onDeny
        ? { path: '/denyAt', message: `must be greater than or equal to escalateAt (${value.escalateAt})` }
        : { path: '/escalateAt', message: `must be less than or equal to denyAt (${value.denyAt})` },
    );
  }
  for (const name of MODIFIER_FIELDS) {
    checkNumber(issues, `/modifiers/${name}`, value.modifiers[name], THRESHOLD_BOUNDS.modifier, true);
  }
  checkNumber(
    issues,
    '/lowConfidenceEscalateBelow',
    value.lowConfidenceEscalateBelow,
    THRESHOLD_BOUNDS.lowConfidenceEscalateBelow,
    false,
  );
  checkNumber(
    issues,
    '/approvalTtlSeconds',
    value.approvalTtlSeconds,
    THRESHOLD_BOUNDS.approvalTtlSeconds,
    true,
  );
  checkNumber(issues, '/tokenTtlSeconds', value.tokenTtlSeconds, THRESHOLD_BOUNDS.tokenTtlSeconds, true);
  return issues;
}

/**
 * Applies a PUT body to the current settings and validates the merged record. The result holds only
 * the six settings; the caller stamps `tenantId`, `updatedAt` and `updatedBy`.
 */
export function mergeThresholds(current: ThresholdSettings, patch: unknown): MergeResult {
  const shapeIssues: ValidationIssue[] = [];
  if (!checkPatchShape(patch, shapeIssues)) return { ok: false, issues: shapeIssues };

  const patchModifiers = isPlainObject(patch.modifiers) ? (patch.modifiers as Partial<RiskModifiers>) : {};
  const pick = (key: Exclude<(typeof SETTING_FIELDS)[number], 'modifiers'>): number =>
    typeof patch[key] === 'number' ? (patch[key] as number) : current[key];
  const merged: ThresholdSettings = {
    escalateAt: pick('escalateAt'),
    denyAt: pick('denyAt'),
    modifiers: {
      privileged: patchModifiers.privileged ?? current.modifiers.privileged,
      production: patchModifiers.production ?? current.modifiers.production,
      sensitive: patchModifiers.sensitive ?? current.modifiers.sensitive,
    },
    lowConfidenceEscalateBelow: pick('lowConfidenceEscalateBelow'),
    approvalTtlSeconds: pick('approvalTtlSeconds'),
    tokenTtlSeconds: pick('tokenTtlSeconds'),
  };
  const patched = new Set(Object.keys(patch).filter((key) => patch[key] !== undefined));
  const issues = validateThresholds(merged, patched);
  return issues.length === 0 ? { ok: true, value: merged } : { ok: false, issues };
}

/**
 * A threshold or low-confidence signal as a pseudo-rule. Signals carry priority 0: below the
 * catastrophic floor's 1 and every tenant rule's 2..10000, so when a signal ties with rules on the
 * winning effect the deciding rule (lowest priority, then lowest id) is the signal, which names the
 * fact that forced the outcome.
 */
export interface Signal {
  rule: MatchedRule;
  /** One human-readable line for `rationale`, e.g. `risk 75 ≥ escalateAt 60: ESCALATE`. */
  rationale: string;
}

function signal(id: SignalId, effect: Effect, rationale: string): Signal {
  return { rule: signalRule(id, effect), rationale };
}

/**
 * The signals a score and a primary-hypothesis confidence raise, most severe first: deny threshold
 * (`score ≥ denyAt`), escalate threshold (`score ≥ escalateAt`; also fires alongside the deny
 * signal), low confidence (`confidence < lowConfidenceEscalateBelow`). Signals only add severity;
 * they are not matches, so they never save an intent from the default deny.
 */
export function thresholdSignals(
  score: number,
  confidence: number,
  thresholds: Pick<ThresholdSettings, 'escalateAt' | 'denyAt' | 'lowConfidenceEscalateBelow'>,
): Signal[] {
  const signals: Signal[] = [];
  if (score >= thresholds.denyAt) {
    signals.push(
      signal(SIGNAL_IDS.denyThreshold, 'DENY', `risk ${score} ≥ denyAt ${thresholds.denyAt}: DENY`),
    );
  }
  if (score >= thresholds.escalateAt) {
    signals.push(
      signal(
        SIGNAL_IDS.escalateThreshold,
        'ESCALATE',
        `risk ${score} ≥ escalateAt ${thresholds.escalateAt}: ESCALATE`,
      ),
    );
  }
  if (confidence < thresholds.lowConfidenceEscalateBelow) {
    signals.push(
      signal(
        SIGNAL_IDS.lowConfidence,
        'ESCALATE',
        `confidence ${confidence} < lowConfidenceEscalateBelow ${thresholds.lowConfidenceEscalateBelow}: ESCALATE`,
      ),
    );
  }
  return signals;
}
