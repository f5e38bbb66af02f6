import type { LightMyRequestResponse } from 'fastify';
import type { Headers, TestApp } from '../helpers/app.js';

/** Requests of the decision endpoints as a client writes them (field names of document 02). */

export const ROBOT = 'devid:arm-7';
export const DRONE = 'devid:drone-3';

type Goal = {
  schema: string;
  verb: string;
  object?: string | null;
  parameters?: Record<string, unknown>;
  actor: { kind: string; identifier: string };
  sourceTimestampMs?: number;
};

/** A pick of a tote by the robot: OI-1502 at 0.9, not safety-relevant. */
export function pickGoal(overrides: Partial<Goal> = {}): Goal {
  return {
    schema: 'robot.manipulation',
    verb: 'pick',
    object: 'tote',
    parameters: { cell: 4 },
    actor: { kind: 'robot', identifier: ROBOT },
    ...overrides,
  };
}

/** A generic arm motion: OI-1801 at 0.55 (below the default policy's 0.6), cites OI-2904. */
export const moveGoal = (overrides: Partial<Goal> = {}) =>
  pickGoal({ verb: 'move', object: null, parameters: { x: 1 }, ...overrides });

const reading = (value: boolean, asOfTimestampMs: number) => ({
  kind: 'boolean',
  value,
  asOfTimestampMs,
  attestation: { channel: 'cell-4-safety-plc', safetyRated: true, protocol: 'fsoe' },
});

/** The three safety predicates of the default policy, all clear, fresh and safety-rated. */
export function clearState(nowMs: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'safety/emergency-stop': reading(false, nowMs),
    'safety/light-curtain-breached': reading(false, nowMs),
    'cell/human-present': reading(false, nowMs),
    ...overrides,
  };
}

export const engaged = (nowMs: number) => reading(true, nowMs);

export interface TokenBodyOptions {
  goal?: Goal;
  deadlineMs?: number;
  safeDefault?: string;
  oiCode?: string;
  dagOiCode?: string;
  physicalState?: Record<string, unknown> | undefined;
  operatorTicketId?: string | null;
  safetyBit?: boolean;
  safetyCitations?: string[];
}

/** A `POST /v1/physical/authority-tokens` body; `physicalState` as given (omit it with undefined). */
export function tokenBody(options: TokenBodyOptions = {}): Record<string, unknown> {
  const goal = options.goal ?? pickGoal();
  const deadlineMs = options.deadlineMs ?? 5_000;
  const safeDefault = options.safeDefault ?? 'stop';
  const body: Record<string, unknown> = {
    intent: { structuredGoal: goal, ...(options.oiCode ? { oiCode: options.oiCode } : {}) },
    dagNode: {
      nodeId: 'pick-tote-17',
      oiCode: options.dagOiCode ?? 'OI-1502',
      deadlineMs,
      safeDefault,
      realTimeTier: 'rt-soft',
    },
    claims: {
      actorIdentity: goal.actor.identifier,
      deadlineMs,
      safeDefault,
      ...(options.safetyBit === undefined ? {} : { safetyBit: options.safetyBit }),
      ...(options.safetyCitations === undefined ? {} : { safetyCitations: options.safetyCitations }),
    },
  };
  if (options.physicalState !== undefined) body.physicalState = options.physicalState;
  if (options.operatorTicketId !== undefined) body.operatorTicketId = options.operatorTicketId;
  return body;
}

export function post(
  t: TestApp,
  url: string,
  headers: Headers,
  payload: unknown,
  extra: Headers = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { ...headers, ...extra },
    payload: payload as object,
  });
}

export const issue = (t: TestApp, headers: Headers, body: unknown, extra: Headers = {}) =>
  post(t, '/v1/physical/authority-tokens', headers, body, extra);

/** Registers the robot (and a drone) on the tenant's roster through the API. */
export async function registerActors(t: TestApp, owner: Headers): Promise<void> {
  for (const actor of [
    { actorIdentity: ROBOT, actorKind: 'robot' },
    { actorIdentity: DRONE, actorKind: 'drone' },
  ]) {
    const res = await post(t, '/v1/physical/actors', owner, actor);
    if (res.statusCode !== 200) throw new Error(`actor registration failed: ${res.body}`);
  }
}

/** The tenant's physical decision rows, oldest first. */
export async function decisionRows(t: TestApp, tenantId: string) {
  return t.storage.db
    .selectFrom('physical_decisions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('id')
    .execute();
}

export { chainEvents } from '../physical-infra/fixtures.js';
