import { type Static, Type } from 'typebox';
import { Closed, IsoDateTime, Nullable } from './common.js';
import { ACTOR_TYPES, AUTHORITY_ACTOR_STATUSES, EFFECTS, OPERATORS } from './constants.js';

/** Intent-surface policies (contract §4.4, §4.5): rules, versions, packs, thresholds and tenant controls. */

/** One condition: `path` read from the evaluation document, compared by `op` with `value` or `valuePath`. */
export const Condition = Type.Object(
  {
    path: Type.String({ minLength: 1 }),
    op: Type.Enum(OPERATORS),
    value: Type.Optional(Type.Unknown({ description: 'Any JSON value; exactly one of value / valuePath' })),
    valuePath: Type.Optional(Type.String({ minLength: 1 })),
  },
  Closed,
);
export type Condition = Static<typeof Condition>;

/** `{all?, any?, not?}` over conditions and nested groups (at most 16 levels deep). */
const ConditionGroupDef = Type.Object(
  {
    all: Type.Optional(Type.Array(Type.Union([Condition, Type.Ref('ConditionGroup')]))),
    any: Type.Optional(Type.Array(Type.Union([Condition, Type.Ref('ConditionGroup')]))),
    not: Type.Optional(Type.Union([Condition, Type.Ref('ConditionGroup')])),
  },
  Closed,
);

/**
 * The recursive condition group. A schema that holds rules carries the group's definition once, at
 * its own root (`$defs.ConditionGroup`), and refers to it from every rule inside: a definition
 * repeated in two places of one document would be ambiguous to JSON Schema tools.
 */
export const ConditionGroup = Type.Cyclic({ ConditionGroup: ConditionGroupDef }, 'ConditionGroup');
export type ConditionGroup = Static<typeof ConditionGroup>;

/** Globs (`*` any run, `?` one character) the rule is restricted to. */
export const Bindings = Type.Object(
  {
    actorIds: Type.Optional(Type.Array(Type.String())),
    actorTypes: Type.Optional(Type.Array(Type.Enum(ACTOR_TYPES))),
    targetSystems: Type.Optional(Type.Array(Type.String())),
    oiCodes: Type.Optional(Type.Array(Type.String())),
  },
  Closed,
);
export type Bindings = Static<typeof Bindings>;

const PolicyRuleDef = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    effect: Type.Enum(EFFECTS),
    priority: Type.Optional(
      Type.Integer({ minimum: 2, maximum: 10_000, description: 'Lower first; default 100' }),
    ),
    bindings: Type.Optional(Bindings),
    conditions: Type.Optional(Type.Ref('ConditionGroup')),
    activeFrom: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'ISO 8601 with an offset: before it the rule does not match (time-boxed rule)',
      }),
    ),
    activeUntil: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'ISO 8601 with an offset, later than activeFrom: from it on the rule does not match',
      }),
    ),
  },
  Closed,
);

/** A policy rule (contract §4.5). Ids with `:` are reserved; `/` marks pack rules (`<pack>/<rule>`). */
export const PolicyRule = Type.Cyclic(
  { ConditionGroup: ConditionGroupDef, PolicyRule: PolicyRuleDef },
  'PolicyRule',
);
export type PolicyRule = Static<typeof PolicyRule>;

/** The body of `POST /authority/policy`. */
export const PolicySaveRequest = Type.Cyclic(
  {
    ConditionGroup: ConditionGroupDef,
    PolicySaveRequest: Type.Object(
      {
        rules: Type.Array(PolicyRuleDef, { maxItems: 2_000 }),
        activate: Type.Optional(Type.Boolean({ description: 'Default false' })),
        replacePacks: Type.Optional(
          Type.Boolean({ description: 'Default false: installed pack rules are kept' }),
        ),
      },
      Closed,
    ),
  },
  'PolicySaveRequest',
);
export type PolicySaveRequest = Static<typeof PolicySaveRequest>;

const PolicyVersionDef = Type.Object({
  id: Type.String({ description: '<tenantId>/v<version>' }),
  version: Type.Integer({ minimum: 1 }),
  active: Type.Boolean(),
  rules: Type.Array(PolicyRuleDef),
  packs: Type.Array(Type.String()),
  createdAt: IsoDateTime,
  createdBy: Type.String(),
  activatedAt: Nullable(IsoDateTime),
});

export const PolicyVersion = Type.Cyclic(
  { ConditionGroup: ConditionGroupDef, PolicyVersion: PolicyVersionDef },
  'PolicyVersion',
);
export type PolicyVersion = Static<typeof PolicyVersion>;

export const PolicyVersionList = Type.Cyclic(
  {
    ConditionGroup: ConditionGroupDef,
    PolicyVersionList: Type.Object({ versions: Type.Array(PolicyVersionDef) }),
  },
  'PolicyVersionList',
);
export type PolicyVersionList = Static<typeof PolicyVersionList>;

const PolicyPackDef = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  version: Type.String(),
  rules: Type.Array(PolicyRuleDef),
});

export const PolicyPack = Type.Cyclic(
  { ConditionGroup: ConditionGroupDef, PolicyPack: PolicyPackDef },
  'PolicyPack',
);
export type PolicyPack = Static<typeof PolicyPack>;

export const PolicyPackList = Type.Cyclic(
  { ConditionGroup: ConditionGroupDef, PolicyPackList: Type.Object({ packs: Type.Array(PolicyPackDef) }) },
  'PolicyPackList',
);
export type PolicyPackList = Static<typeof PolicyPackList>;

export const PackInstallRequest = Type.Object(
  {
    pack: Type.String({ minLength: 1, maxLength: 100 }),
    activate: Type.Optional(Type.Boolean({ description: 'Default true' })),
  },
  Closed,
);
export type PackInstallRequest = Static<typeof PackInstallRequest>;

export const PackInstallResponse = Type.Cyclic(
  {
    ConditionGroup: ConditionGroupDef,
    PackInstallResponse: Type.Object({ pack: PolicyPackDef, policy: PolicyVersionDef }),
  },
  'PackInstallResponse',
);
export type PackInstallResponse = Static<typeof PackInstallResponse>;

export const InstalledPacks = Type.Object({
  packs: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), version: Type.String() })),
});
export type InstalledPacks = Static<typeof InstalledPacks>;

export const RiskModifiers = Type.Object({
  privileged: Type.Integer({ minimum: 0, maximum: 100 }),
  production: Type.Integer({ minimum: 0, maximum: 100 }),
  sensitive: Type.Integer({ minimum: 0, maximum: 100 }),
});

/** The thresholds record (contract §4.4); defaults until the tenant changes it. */
export const Thresholds = Type.Object({
  tenantId: Type.String(),
  escalateAt: Type.Number({ minimum: 0, maximum: 101 }),
  denyAt: Type.Number({ minimum: 0, maximum: 101 }),
  modifiers: RiskModifiers,
  lowConfidenceEscalateBelow: Type.Number({ minimum: 0, maximum: 1 }),
  approvalTtlSeconds: Type.Integer({ minimum: 60, maximum: 604_800 }),
  tokenTtlSeconds: Type.Integer({ minimum: 1, maximum: 300 }),
  updatedAt: Nullable(IsoDateTime),
  updatedBy: Nullable(Type.String()),
});
export type Thresholds = Static<typeof Thresholds>;

/**
 * The body of `PUT /authority/thresholds/:tenantId`: every field optional, `modifiers` merged key by
 * key, the merged record validated (`escalateAt ≤ denyAt`). `tenantId`, `updatedAt` and
 * `updatedBy` may be sent back as read and are ignored.
 */
export const ThresholdsUpdate = Type.Object(
  {
    escalateAt: Type.Optional(Type.Number({ minimum: 0, maximum: 101 })),
    denyAt: Type.Optional(Type.Number({ minimum: 0, maximum: 101 })),
    modifiers: Type.Optional(
      Type.Object(
        {
          privileged: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
          production: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
          sensitive: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
        },
        Closed,
      ),
    ),
    lowConfidenceEscalateBelow: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    approvalTtlSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 604_800 })),
    tokenTtlSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300 })),
    tenantId: Type.Optional(Type.String()),
    updatedAt: Type.Optional(Nullable(Type.String())),
    updatedBy: Type.Optional(Nullable(Type.String())),
  },
  Closed,
);
export type ThresholdsUpdate = Static<typeof ThresholdsUpdate>;

export const KillSwitchRequest = Type.Object(
  {
    enabled: Type.Boolean(),
    reason: Type.Optional(Type.String({ maxLength: 500, description: 'Required to turn it on' })),
  },
  Closed,
);
export type KillSwitchRequest = Static<typeof KillSwitchRequest>;

export const KillSwitch = Type.Object({
  enabled: Type.Boolean(),
  reason: Nullable(Type.String()),
  changedBy: Nullable(Type.String()),
  changedAt: Nullable(IsoDateTime),
});
export type KillSwitch = Static<typeof KillSwitch>;

export const FloorRequest = Type.Object(
  {
    enabled: Type.Boolean(),
    agreementVersion: Type.Optional(
      Type.String({ maxLength: 40, description: 'Required to disable: the server FLOOR_AGREEMENT_VERSION' }),
    ),
  },
  Closed,
);
export type FloorRequest = Static<typeof FloorRequest>;

export const FloorSetting = Type.Object({
  tenantId: Type.String(),
  enabled: Type.Boolean(),
  agreementVersion: Nullable(Type.String()),
  changedBy: Nullable(Type.String()),
  changedAt: Nullable(IsoDateTime),
});
export type FloorSetting = Static<typeof FloorSetting>;

/** An entry of the tenant's actor list (blocked actors are DENIED at gate `rbac`). */
export const AuthorityActor = Type.Object({
  actorId: Type.String(),
  status: Type.Enum(AUTHORITY_ACTOR_STATUSES),
  reason: Nullable(Type.String()),
  updatedAt: IsoDateTime,
  updatedBy: Type.String(),
});
export type AuthorityActor = Static<typeof AuthorityActor>;

export const AuthorityActorList = Type.Object({ actors: Type.Array(AuthorityActor) });

export const AuthorityActorRequest = Type.Object(
  {
    status: Type.Enum(AUTHORITY_ACTOR_STATUSES),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  Closed,
);
export type AuthorityActorRequest = Static<typeof AuthorityActorRequest>;
