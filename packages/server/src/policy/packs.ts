import { MCP_BASICS_PACK } from './mcp-basics-pack.js';
import type { Condition, Rule } from './rule.js';

/**
 * The policy-pack catalog (contract §4.5): `GET /policy-packs` lists it, `POST /policy-packs/install`
 * adds a pack's rules to the tenant policy with ids `<pack>/<rule>`, and every new tenant gets the
 * `starter` pack.
 *
 * Design notes for the packs other than `starter`:
 * - They are written to be installed next to `starter`. Their non-DENY rules only ever match writes
 *   (which `starter/escalate-writes` escalates anyway) or, in `mcp-basics`, low-risk confirmed reads
 *   (which `starter/allow-reads` approves anyway), so installing a pack never turns an intent that
 *   the starter policy denies by default into an escalation; they raise severity only.
 * - `REQUIRE_APPROVAL` marks "a human must sign this off" and outranks `ESCALATE`; both answer
 *   `ESCALATED`, but the deciding rule then names the pack's reason.
 * - `MATCHES` patterns are RE2 syntax (no lookaround, no backreferences); `(?i)` makes them
 *   case-insensitive. Bare-`args` `MATCHES` conditions are used sparingly (they count against the
 *   policy's limit of 50).
 */

export interface PolicyPack {
  id: string;
  name: string;
  description: string;
  version: string;
  rules: readonly Rule[];
}

export const STARTER_PACK_ID = 'starter';
export const PACK_RULE_SEPARATOR = '/';

const DEFAULT_REFS = ['main', 'master', 'refs/heads/main', 'refs/heads/master'];
const DEFAULT_BRANCHES = ['main', 'master'];
const isWrite: Condition = { path: 'risk.operation_type', op: 'EQ', value: 'write' };
const isSensitive: Condition = { path: 'risk.sensitive', op: 'EQ', value: true };
const isProduction: Condition = { path: 'risk.production', op: 'EQ', value: true };
const notCompliant: Condition = { path: 'risk.policyCompliant', op: 'EQ', value: false };

/** Any of the text sources an action's verb can come from. */
function textMatches(pattern: string): Condition[] {
  return [
    { path: 'proposedAction', op: 'MATCHES', value: pattern },
    { path: 'args.command', op: 'MATCHES', value: pattern },
    { path: 'args.operation', op: 'MATCHES', value: pattern },
  ];
}

/** The target is the repository's default branch (by the GitHub context or the usual args names). */
const targetsDefaultBranch: Array<Condition> = [
  { path: 'github.ref', op: 'IN', value: DEFAULT_REFS },
  { path: 'args.ref', op: 'IN', value: DEFAULT_REFS },
  { path: 'args.branch', op: 'IN', value: DEFAULT_BRANCHES },
  { path: 'args.base', op: 'IN', value: DEFAULT_BRANCHES },
  ...textMatches('\\b(main|master)\\b'),
];

const MERGE = '(?i)\\bmerge\\b';
const FORCE_PUSH = '(?i)\\bpush\\b.*(--force\\b|--force-with-lease\\b|\\s-f\\b|\\s\\+\\S)';
const DELETE_BRANCH = '(?i)(\\bdelete\\b.*\\b(branch|ref)\\b|\\bpush\\b.*(\\s--delete\\b|\\s-d\\b|\\s:\\S))';
const PROTECTION_BYPASS = '(?i)(--admin\\b|\\bbypass\\b)';
const WORKFLOW_PATH = '(^|/)\\.github/workflows/';
const BRANCH_PROTECTION = '(?i)\\b(branch[ _-]?protection|rulesets?|required[ _-]status[ _-]checks)\\b';
const DESTRUCTIVE_DATA = '(?i)\\b(drop|truncate)\\b|\\bdelete\\s+from\\b';
const SAFETY_OVERRIDES = '(?i)(--force\\b|--no-verify\\b|--skip[-_]checks?\\b|--skip[-_]tests?\\b)';
// Token runs have a minimum length and no maximum: an upper bound such as {36,255} would compile
// to hundreds of instructions per alternative (saved patterns may not repeat more than 100 times).
const SECRET_MATERIAL =
  '-----BEGIN ([A-Z]+ )?PRIVATE KEY( BLOCK)?-----' +
  '|\\bAKIA[0-9A-Z]{16}\\b' +
  '|\\bgh[pousr]_[A-Za-z0-9]{36,}\\b' +
  '|\\bgithub_pat_[A-Za-z0-9_]{22,}\\b' +
  '|\\bxox[abprs]-[A-Za-z0-9-]{10,}\\b' +
  '|\\bsk_live_[A-Za-z0-9]{16,}\\b';
const SECRET_FILE =
  '(?i)((^|/)(\\.env(\\.[^/]*)?|\\.npmrc|\\.pypirc|\\.netrc|id_(rsa|dsa|ecdsa|ed25519)|credentials(\\.json)?' +
  '|secrets?\\.(ya?ml|json|txt))$|\\.(pem|key|p12|pfx|jks|keystore)$)';
const BULK_EXPORT = '(?i)\\b(export|dump|pg_dump|pg_dumpall|mysqldump|mongodump|mongoexport)\\b';

const STARTER: PolicyPack = {
  id: STARTER_PACK_ID,
  name: 'Starter policy',
  description:
    'Installed for every new tenant: low-risk, confirmed reads outside production are approved, every ' +
    'write escalates to a human, and anything else is denied by default.',
  version: '1.0.0',
  rules: [
    {
      id: 'allow-reads',
      description:
        'Approve a read interpreted with enough confidence, policy-compliant, not touching production, ' +
        'sensitive data or privileged access, and scoring below the escalation threshold',
      effect: 'ALLOW',
      priority: 100,
      conditions: {
        all: [
          { path: 'risk.operation_type', op: 'EQ', value: 'read' },
          { path: 'intent.confidence', op: 'GTE', valuePath: 'thresholds.lowConfidenceEscalateBelow' },
          { path: 'risk.policyCompliant', op: 'EQ', value: true },
          { path: 'risk.production', op: 'EQ', value: false },
          { path: 'risk.sensitive', op: 'EQ', value: false },
          { path: 'risk.privileged', op: 'EQ', value: false },
          { path: 'risk.score', op: 'LT', valuePath: 'thresholds.escalateAt' },
        ],
      },
    },
    {
      id: 'escalate-writes',
      description: 'Every write goes to a human reviewer',
      effect: 'ESCALATE',
      priority: 100,
      conditions: { all: [{ path: 'risk.operation_type', op: 'EQ', value: 'write' }] },
    },
  ],
};

const GITHUB_SAFE_MERGE: PolicyPack = {
  id: 'github-safe-merge',
  name: 'GitHub safe merge',
  description:
    'Keeps the default branch and the review process intact: no force pushes to or deletion of the ' +
    'default branch, no agent approvals, no branch-protection bypass, and human sign-off for merges ' +
    'and for changes to CI workflows and branch protection.',
  version: '1.0.0',
  rules: [
    {
      id: 'deny-force-push-default-branch',
      description: 'A force push rewrites shared history; never on main or master',
      effect: 'DENY',
      priority: 10,
      conditions: {
        all: [
          { any: [...textMatches(FORCE_PUSH), { path: 'args.force', op: 'EQ', value: true }] },
          { any: targetsDefaultBranch },
        ],
      },
    },
    {
      id: 'deny-delete-default-branch',
      description: 'The default branch is never deleted',
      effect: 'DENY',
      priority: 10,
      conditions: { all: [{ any: textMatches(DELETE_BRANCH) }, { any: targetsDefaultBranch }] },
    },
    {
      id: 'deny-agent-approvals',
      description: 'An agent may not approve a pull request: approval is a human control',
      effect: 'DENY',
      priority: 10,
      bindings: { actorTypes: ['agent'] },
      conditions: {
        any: [
          ...textMatches('(?i)^\\W*approve\\b'),
          { path: 'args.event', op: 'EQ', value: 'APPROVE' },
          { path: 'args.review.event', op: 'EQ', value: 'APPROVE' },
        ],
      },
    },
    {
      id: 'deny-protection-bypass',
      description: 'Merging with administrator override (e.g. gh pr merge --admin) skips branch protection',
      effect: 'DENY',
      priority: 10,
      conditions: { all: [{ any: textMatches(MERGE) }, { any: textMatches(PROTECTION_BYPASS) }] },
    },
    {
      id: 'deny-noncompliant-merge',
      description: 'A merge the caller marks as not policy-compliant (e.g. failing checks) is refused',
      effect: 'DENY',
      priority: 20,
      conditions: { all: [{ any: textMatches(MERGE) }, notCompliant] },
    },
    {
      id: 'approve-workflow-changes',
      description: 'Changes to .github/workflows run with repository secrets; a human signs them off',
      effect: 'REQUIRE_APPROVAL',
      priority: 30,
      conditions: {
        all: [
          isWrite,
          {
            any: [
              { path: 'github.path', op: 'MATCHES', value: WORKFLOW_PATH },
              { path: 'args', op: 'MATCHES', value: WORKFLOW_PATH },
            ],
          },
        ],
      },
    },
    {
      id: 'approve-branch-protection-changes',
      description: 'Changing branch protection or rulesets changes who may merge; a human signs it off',
      effect: 'REQUIRE_APPROVAL',
      priority: 30,
      conditions: { all: [isWrite, { any: textMatches(BRANCH_PROTECTION) }] },
    },
    {
      id: 'approve-merges',
      description: 'Every merge needs a human sign-off',
      effect: 'REQUIRE_APPROVAL',
      priority: 50,
      conditions: {
        all: [
          isWrite,
          {
            any: [
              ...textMatches(MERGE),
              { path: 'args.merge_method', op: 'EXISTS' },
              { path: 'args.mergeMethod', op: 'EXISTS' },
            ],
          },
        ],
      },
    },
  ],
};

const PRODUCTION_CHANGE_CONTROL: PolicyPack = {
  id: 'production-change-control',
  name: 'Production change control',
  description:
    'Every change that touches production needs a human sign-off; non-compliant or destructive ' +
    'production changes, safety-check overrides and privileged production writes by agents are refused.',
  version: '1.0.0',
  rules: [
    {
      id: 'deny-noncompliant-production',
      description: 'A production action the caller marks as not policy-compliant is refused',
      effect: 'DENY',
      priority: 10,
      conditions: { all: [isProduction, notCompliant] },
    },
    {
      id: 'deny-destructive-data-in-production',
      description: 'DROP, TRUNCATE and DELETE FROM are never run against production by this path',
      effect: 'DENY',
      priority: 10,
      conditions: {
        all: [
          isProduction,
          {
            any: [
              { path: 'proposedAction', op: 'MATCHES', value: DESTRUCTIVE_DATA },
              { path: 'args', op: 'MATCHES', value: DESTRUCTIVE_DATA },
            ],
          },
        ],
      },
    },
    {
      id: 'deny-safety-overrides-in-production',
      description: 'Flags that skip checks (--force, --no-verify, --skip-checks) are refused in production',
      effect: 'DENY',
      priority: 10,
      conditions: { all: [isProduction, isWrite, { any: textMatches(SAFETY_OVERRIDES) }] },
    },
    {
      id: 'deny-agent-privileged-production-writes',
      description: 'An agent does not write to production with privileged access',
      effect: 'DENY',
      priority: 20,
      bindings: { actorTypes: ['agent'] },
      conditions: { all: [isProduction, isWrite, { path: 'risk.privileged', op: 'EQ', value: true }] },
    },
    {
      id: 'approve-production-deploys',
      description: 'Deployments, releases, promotions and rollbacks to production need a human sign-off',
      effect: 'REQUIRE_APPROVAL',
      priority: 30,
      bindings: { oiCodes: ['OI-104'] },
      conditions: { all: [isProduction, isWrite] },
    },
    {
      id: 'approve-production-writes',
      description: 'Any other write that touches production needs a human sign-off',
      effect: 'REQUIRE_APPROVAL',
      priority: 50,
      conditions: { all: [isProduction, isWrite] },
    },
  ],
};

const SENSITIVE_DATA_GUARD: PolicyPack = {
  id: 'sensitive-data-guard',
  name: 'Sensitive data guard',
  description:
    'Keeps secrets and sensitive data where they are: secret material in arguments, bulk exports and ' +
    'public exposure of sensitive data are refused; writes to sensitive data or secret files need a ' +
    'human sign-off.',
  version: '1.0.1',
  rules: [
    {
      id: 'deny-secret-material-in-args',
      description: 'Private keys and live API tokens must not pass through an agent action',
      effect: 'DENY',
      priority: 10,
      conditions: {
        any: [
          { path: 'proposedAction', op: 'MATCHES', value: SECRET_MATERIAL },
          { path: 'args', op: 'MATCHES', value: SECRET_MATERIAL },
        ],
      },
    },
    {
      id: 'deny-noncompliant-sensitive',
      description: 'An action on sensitive data that the caller marks as not policy-compliant is refused',
      effect: 'DENY',
      priority: 10,
      conditions: { all: [isSensitive, notCompliant] },
    },
    {
      id: 'deny-sensitive-bulk-export',
      description: 'Exports and dumps of sensitive data are refused',
      effect: 'DENY',
      priority: 20,
      conditions: { all: [isSensitive, { any: textMatches(BULK_EXPORT) }] },
    },
    {
      id: 'deny-sensitive-public-exposure',
      description: 'A repository or resource holding sensitive data is never made public',
      effect: 'DENY',
      priority: 20,
      conditions: {
        all: [
          isSensitive,
          {
            any: [
              { path: 'args.visibility', op: 'EQ', value: 'public' },
              { path: 'args.private', op: 'EQ', value: false },
            ],
          },
        ],
      },
    },
    {
      id: 'approve-secret-file-changes',
      description: 'Writes to .env files, keys, certificates and credential files need a human sign-off',
      effect: 'REQUIRE_APPROVAL',
      priority: 30,
      conditions: {
        all: [
          isWrite,
          {
            any: [
              { path: 'github.path', op: 'MATCHES', value: SECRET_FILE },
              { path: 'args.path', op: 'MATCHES', value: SECRET_FILE },
              { path: 'args.files[*].path', op: 'MATCHES', value: SECRET_FILE },
            ],
          },
        ],
      },
    },
    {
      id: 'approve-sensitive-writes',
      description: 'Any write to sensitive data needs a human sign-off',
      effect: 'REQUIRE_APPROVAL',
      priority: 50,
      conditions: { all: [isSensitive, isWrite] },
    },
  ],
};

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** The catalog, in display order. Frozen: callers copy (see `packRules`). */
export const POLICY_PACKS: readonly PolicyPack[] = deepFreeze([
  STARTER,
  GITHUB_SAFE_MERGE,
  PRODUCTION_CHANGE_CONTROL,
  SENSITIVE_DATA_GUARD,
  MCP_BASICS_PACK,
]);

export function getPack(id: string): PolicyPack | undefined {
  return POLICY_PACKS.find((pack) => pack.id === id);
}

/** A pack's rules as installed: deep copies with ids `<pack>/<rule>`. */
export function packRules(pack: PolicyPack): Rule[] {
  return pack.rules.map((rule) => ({
    ...structuredClone(rule),
    id: `${pack.id}${PACK_RULE_SEPARATOR}${rule.id}`,
  }));
}

/** The rules every new tenant starts with (`starter/allow-reads`, `starter/escalate-writes`). */
export function starterRules(): Rule[] {
  return packRules(STARTER);
}

/** The pack an installed rule id belongs to (`starter` for `starter/allow-reads`), if any. */
export function packIdOfRule(ruleId: string): string | undefined {
  const slash = ruleId.indexOf(PACK_RULE_SEPARATOR);
  if (slash <= 0) return undefined;
  const id = ruleId.slice(0, slash);
  return getPack(id) === undefined ? undefined : id;
}
