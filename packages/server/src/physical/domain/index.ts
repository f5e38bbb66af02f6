/**
 * The physical authority domain (02-physical-api.md, contract §9): classification, clause
 * policies, the authority decision, tickets and token claims. Pure: no I/O, no framework, time
 * passed in. The HTTP routes and repositories call these directly.
 */

export {
  type Classifier,
  classify,
  createClassifier,
  OUT_OF_CORPUS_CODE,
  OUT_OF_CORPUS_CONFIDENCE,
} from './classifier.js';
export {
  CLASSIFIER_CORPUS,
  CORPUS_AREA_TITLES,
  CORPUS_AREAS,
  type CorpusArea,
  type CorpusRule,
} from './classifier-corpus.js';
export {
  type CompiledPhysicalPolicy,
  compilePhysicalPolicy,
  compileValidatedPolicy,
  defaultCompiledPolicy,
} from './compile-physical-policy.js';
export { DEFAULT_PHYSICAL_POLICY, DEFAULT_POLICY_VERSION } from './default-physical-policy.js';
export {
  evaluatePhysical,
  type PhysicalDecision,
  type PhysicalDenyDetails,
  type PhysicalEvaluationInput,
  type PhysicalOutcome,
  physicalDenyDetails,
} from './evaluate-physical.js';
export { classificationHypotheses } from './hypotheses.js';
export {
  canonicalGoal,
  checkTicketRedeemable,
  consumeTicket,
  decideTicket,
  newOperatorTicket,
  type OperatorTicket,
  TICKET_LIFETIME_MS,
  TICKET_STATUSES,
  type TicketStatus,
  ticketAsOf,
  ticketStatusAt,
} from './operator-ticket.js';
export {
  buildPhysicalClaims,
  PHYSICAL_TOKEN_AUDIENCE,
  PHYSICAL_TOKEN_VERSION,
  type PhysicalClaimsInput,
  type PhysicalTokenClaims,
  physicalTokenHeader,
} from './physical-claims.js';
export {
  BUILT_IN_CLAUSE_IDS,
  BUILT_IN_CLAUSES,
  CLAUSE_EFFECTS,
  CLAUSE_OPERATORS,
  DEFAULT_DENY_CLAUSE_ID,
  MAX_CLAUSES,
  type PhysicalClause,
  type PhysicalPolicyDocument,
  REPLAY_WINDOW_MS,
  RESERVED_PREDICATES,
} from './physical-clause.js';
export * from './physical-types.js';
export {
  checkRequestConsistency,
  effectiveSafetyBit,
  MAX_DEADLINE_MS,
  type PhysicalTokenRequest,
  requestConsistencyIssues,
} from './request-consistency.js';
export { nextRevokedAtMs } from './revocation-time.js';
export { validatePhysicalPolicy } from './validate-physical-policy.js';
