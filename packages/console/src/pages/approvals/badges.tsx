import type { StructuredGoal, Ticket } from '../../api/types.js';

/** A risk score with its band in words (colour is never the only signal). */
export function RiskBadge({ score }: { score: number | null }) {
  if (score === null) return <span>—</span>;
  const band = score >= 90 ? 'critical' : score >= 60 ? 'high' : score >= 30 ? 'medium' : 'low';
  return (
    <span class={`tag risk-${band}`}>
      {score} ({band})
    </span>
  );
}

export function SafetyBadge({ request }: { request: Ticket['request'] }) {
  if (request === null) return <span class="muted">unknown</span>;
  return (
    <span>
      <span class={request.safetyBit ? 'tag tag-danger' : 'tag'}>
        {request.safetyBit ? 'safety-relevant' : 'not safety-relevant'}
      </span>{' '}
      {request.safetyCitations.length > 0 ? <code>{request.safetyCitations.join(', ')}</code> : null}
    </span>
  );
}

/** "robot devid:arm-7: pick tote (robot.manipulation)". */
export function goalText(goal: StructuredGoal): string {
  const object = goal.object ? ` ${goal.object}` : '';
  return `${goal.actor.kind} ${goal.actor.identifier}: ${goal.verb}${object} (${goal.schema})`;
}
