import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { PolicyVersion } from '../../api/types.js';
import { Done, useRecordedAction } from '../../components/done.js';
import { Form, TextField } from '../../components/fields.js';
import { Problem } from '../../components/problem.js';
import { formatTime } from '../../components/time.js';
import { useSession } from '../../session/session-context.js';

/** A version's reviews, one line each. */
export function Reviews({ version }: { version: PolicyVersion }) {
  const reviews = version.reviews ?? [];
  if (reviews.length === 0) return <>—</>;
  return (
    <ul>
      {reviews.map((review) => (
        <li key={review.principalId}>
          <strong>{review.decision === 'approve' ? 'Approved' : 'Rejected'}</strong> by{' '}
          <code>{review.principalId}</code> {formatTime(review.createdAt)}
          {review.comment ? `: ${review.comment}` : ''}
        </li>
      ))}
    </ul>
  );
}

/**
 * Approve or reject a version with a comment (contract §16): reviewers only, never the author; the
 * server decides and its refusal (separation of duties, already reviewed) is shown as it comes. A
 * version that was never active can be reviewed: one saved under review (draft, approved,
 * rejected), and, while review is required, one saved before it was (it needs approvals too).
 */
export function ReviewForm({
  version,
  reviewRequired,
  onChanged,
}: {
  version: PolicyVersion;
  reviewRequired: boolean;
  onChanged: () => Promise<void>;
}) {
  const { can, session } = useSession();
  const [comment, setComment] = useState('');
  const review = useRecordedAction(async (decision: 'approve' | 'reject') => {
    await api('POST', `/authority/policy/versions/${version.version}/reviews`, {
      body: { decision, comment },
    });
    setComment('');
    await onChanged();
    return `Recorded: you ${decision === 'approve' ? 'approved' : 'rejected'} v${version.version}.`;
  });
  const reviewable =
    !version.active && version.activatedAt === null && (reviewRequired || version.status !== 'inactive');
  if (!reviewable || !can('authority:policy:review')) return null;
  if (version.author === session.user.id) {
    return <p class="hint">You wrote v{version.version}: another reviewer must approve it.</p>;
  }
  return (
    <>
      <Form label={`Review v${version.version}`} onSubmit={() => void review.run('approve')}>
        <TextField label={`Comment on v${version.version}`} value={comment} onValue={setComment} />
        <div class="buttons">
          <button type="submit" disabled={review.busy}>
            Approve v{version.version}
          </button>
          <button type="button" disabled={review.busy} onClick={() => void review.run('reject')}>
            Reject v{version.version}
          </button>
        </div>
      </Form>
      <Problem error={review.error} title="Review refused" />
      <Done message={review.done} />
    </>
  );
}
