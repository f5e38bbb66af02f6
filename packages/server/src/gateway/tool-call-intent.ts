import { createHash } from 'node:crypto';
import type { Actor, IntentRequest, RiskContext } from '@authority-runtime/sdk/wire';
import { canonicalJson } from '../crypto/canonical-json.js';
import { redactedJson } from '../intent/domain/args-redaction.js';
import { checkArgs } from '../intent/domain/intent-request.js';

/**
 * How a `tools/call` becomes an intent (contract §11, step 1). Pure: no I/O.
 *
 * - `proposedAction` = name + " " + the compact JSON of the arguments cut to 200 code points, the
 *   cut never falling inside a surrogate pair (JSON.stringify escapes lone surrogates, so every
 *   astral character of the text is a whole pair). Values under secret-looking keys and
 *   credential-looking strings read `[redacted]` there, as in every audit payload (§4.6): the
 *   service keeps `proposedAction` in the chain, which retention never deletes. `args` keeps them.
 * - `args` = `{tool, arguments}`, so policies read `args.tool` and `args.arguments.<field>` and the
 *   catastrophic floor scans every argument. Absent arguments are `{}`.
 */

export const PROPOSED_ACTION_ARGUMENTS_CODE_POINTS = 200;

export type ToolArguments = Readonly<Record<string, unknown>>;

/** The first `limit` code points of `text`. */
export function cutToCodePoints(text: string, limit: number): string {
  let count = 0;
  let end = 0;
  for (const char of text) {
    if (count === limit) break;
    count += 1;
    end += char.length;
  }
  return text.slice(0, end);
}

export function proposedActionFor(name: string, args: ToolArguments | undefined): string {
  return `${name} ${cutToCodePoints(redactedJson(args ?? {}), PROPOSED_ACTION_ARGUMENTS_CODE_POINTS)}`;
}

export function intentArgsFor(
  name: string,
  args: ToolArguments | undefined,
): { tool: string; arguments: ToolArguments } {
  return { tool: name, arguments: args ?? {} };
}

/** True when `{tool, arguments}` is beyond the `args` limits of contract §4.1 (64 KiB as UTF-8 JSON, depth 16). */
export function argumentsTooLarge(name: string, args: ToolArguments | undefined): boolean {
  return checkArgs(intentArgsFor(name, args)).length > 0;
}

/** The intent the gateway submits for a call (the client fills in `tenantId`). */
export function toolCallIntent(
  call: { name: string; arguments: ToolArguments | undefined },
  actor: Actor,
  settings: { targetSystem: string; riskContext: RiskContext },
): Omit<IntentRequest, 'tenantId'> {
  return {
    actor,
    targetSystem: settings.targetSystem,
    proposedAction: proposedActionFor(call.name, call.arguments),
    args: intentArgsFor(call.name, call.arguments),
    riskContext: settings.riskContext,
  };
}

/**
 * The identity of "the same call" for the remembered escalations: actor, tool and the canonical
 * (RFC 8785) arguments, hashed so that memory stays small whatever the arguments weigh.
 */
export function sameCallKey(actor: Actor, name: string, args: ToolArguments | undefined): string {
  const call = [actor.id, actor.type, name, args ?? {}];
  let text: string;
  try {
    text = canonicalJson(call);
  } catch {
    // A lone surrogate has no canonical form; JSON.stringify escapes it, and stays deterministic.
    text = JSON.stringify(call);
  }
  return createHash('sha256').update(text).digest('hex');
}
