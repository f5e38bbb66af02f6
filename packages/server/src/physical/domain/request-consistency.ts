/**
 * `POST /physical/authority-tokens`: the request as the route receives it after schema validation,
 * and the consistency rules of contract §9 that a schema cannot express. Every broken rule is one
 * issue of a 400 `validation_error` (`details.issues: [{path, message}]`), all reported at once.
 */
import { type ValidationIssue, validationError } from '../../errors/app-error.js';
import {
  type ActorKind,
  type ClassificationResult,
  type PhysicalState,
  type RealTimeTier,
  SAFE_DEFAULTS,
  SAFETY_CITATION_PATTERN,
  type SafeDefault,
  type StructuredGoal,
} from './physical-types.js';

/** Token lifetime bounds, ms (contract §9). */
export const MIN_DEADLINE_MS = 1;
export const MAX_DEADLINE_MS = 300_000;

export interface PhysicalTokenRequest {
  intent: { structuredGoal: StructuredGoal; oiCode?: string };
  dagNode: {
    nodeId: string;
    oiCode: string;
    deadlineMs: number;
    safeDefault: SafeDefault;
    realTimeTier?: RealTimeTier;
    streaming?: boolean;
    streamingWindowMs?: number;
  };
  claims: {
    actorIdentity: string;
    deadlineMs: number;
    safeDefault: string;
    safetyBit?: boolean;
    safetyCitations?: string[];
  };
  physicalState?: PhysicalState;
  operatorTicketId?: string | null;
}

export interface ConsistencyContext {
  /** The roster's `actorKind` for `claims.actorIdentity` (the route answers 403 when there is none). */
  rosterActorKind: ActorKind;
  /** The server's classification of the goal. */
  classification: ClassificationResult;
}

const SAFE_DEFAULT_SET: ReadonlySet<string> = new Set(SAFE_DEFAULTS);

function inDeadlineRange(value: number): boolean {
  return Number.isSafeInteger(value) && value >= MIN_DEADLINE_MS && value <= MAX_DEADLINE_MS;
}

/** `safetyBit`: the caller's (omitted counts as false) OR the classifier's. */
export function effectiveSafetyBit(
  request: PhysicalTokenRequest,
  classification: ClassificationResult,
): boolean {
  return (request.claims.safetyBit ?? false) || classification.safetyBit;
}

/** The issues of the consistency rules; empty when the request is consistent. */
export function requestConsistencyIssues(
  request: PhysicalTokenRequest,
  context: ConsistencyContext,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { dagNode, claims } = request;
  const goal = request.intent.structuredGoal;

  if (!inDeadlineRange(dagNode.deadlineMs)) {
    issues.push({
      path: '/dagNode/deadlineMs',
      message: `dagNode.deadlineMs must be an integer from ${MIN_DEADLINE_MS} to ${MAX_DEADLINE_MS}`,
    });
  }
  if (!inDeadlineRange(claims.deadlineMs)) {
    issues.push({
      path: '/claims/deadlineMs',
      message: `claims.deadlineMs must be an integer from ${MIN_DEADLINE_MS} to ${MAX_DEADLINE_MS}`,
    });
  } else if (claims.deadlineMs !== dagNode.deadlineMs) {
    issues.push({ path: '/claims/deadlineMs', message: 'claims.deadlineMs must equal dagNode.deadlineMs' });
  }

  if (!SAFE_DEFAULT_SET.has(claims.safeDefault)) {
    issues.push({
      path: '/claims/safeDefault',
      message: `claims.safeDefault must be one of ${SAFE_DEFAULTS.join(', ')}`,
    });
  } else if (claims.safeDefault !== dagNode.safeDefault) {
    issues.push({
      path: '/claims/safeDefault',
      message: 'claims.safeDefault must equal dagNode.safeDefault',
    });
  }

  if (goal.actor.identifier !== claims.actorIdentity) {
    issues.push({
      path: '/intent/structuredGoal/actor/identifier',
      message: 'intent.structuredGoal.actor.identifier must equal claims.actorIdentity',
    });
  }
  if (goal.actor.kind !== context.rosterActorKind) {
    issues.push({
      path: '/intent/structuredGoal/actor/kind',
      message: `intent.structuredGoal.actor.kind must be the registered actorKind of the actor (${context.rosterActorKind})`,
    });
  }

  const window = dagNode.streamingWindowMs;
  if (dagNode.streaming === true && window === undefined) {
    issues.push({
      path: '/dagNode/streamingWindowMs',
      message: 'dagNode.streamingWindowMs is required when dagNode.streaming is true',
    });
  } else if (
    window !== undefined &&
    (!Number.isSafeInteger(window) || window < 1 || window > dagNode.deadlineMs)
  ) {
    issues.push({
      path: '/dagNode/streamingWindowMs',
      message: 'dagNode.streamingWindowMs must be an integer from 1 to dagNode.deadlineMs',
    });
  }

  (claims.safetyCitations ?? []).forEach((citation, i) => {
    if (!SAFETY_CITATION_PATTERN.test(citation)) {
      issues.push({
        path: `/claims/safetyCitations/${i}`,
        message: 'each safety citation must match OI-29NN',
      });
    }
  });

  if (dagNode.safeDefault === 'ignore' && effectiveSafetyBit(request, context.classification)) {
    issues.push({
      path: '/dagNode/safeDefault',
      message: 'safeDefault "ignore" is refused for a safety-relevant action (safetyBit is true)',
    });
  }
  return issues;
}

/** Throws the 400 `validation_error` listing every broken consistency rule. */
export function checkRequestConsistency(request: PhysicalTokenRequest, context: ConsistencyContext): void {
  const issues = requestConsistencyIssues(request, context);
  if (issues.length > 0) throw validationError(issues);
}
