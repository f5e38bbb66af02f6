import { useRoute } from 'preact-iso';
import { Gate } from '../../components/gate.js';
import { IntentEscalation } from './intent-escalation.js';
import { TicketDetail } from './ticket-detail.js';

/**
 * The page every approvalUrl opens (`/console/approvals/<escalationId or ticketId>`): physical
 * tickets are `esc_` + UUIDv7, intent escalations plain UUIDs.
 */
export function ApprovalDetail() {
  const { params } = useRoute();
  const id = params.id ?? '';
  if (id.startsWith('esc_')) {
    return (
      <Gate anyOf={['physical:approvals:read']} title="Physical ticket">
        <TicketDetail ticketId={id} />
      </Gate>
    );
  }
  return (
    <Gate anyOf={['authority:approve']} title="Escalation">
      <IntentEscalation escalationId={id} />
    </Gate>
  );
}
