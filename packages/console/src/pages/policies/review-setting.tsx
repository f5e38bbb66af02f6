import { useState } from 'preact/hooks';
import { api, tenantId } from '../../api/client.js';
import type { ReviewSetting } from '../../api/types.js';
import { ConfirmButton } from '../../components/confirm.js';
import { Done, useRecordedAction } from '../../components/done.js';
import { Checkbox, SelectField } from '../../components/fields.js';
import { Section } from '../../components/page.js';
import { Problem } from '../../components/problem.js';
import { useSession } from '../../session/session-context.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The setting in one sentence, as every reader of the policy page sees it. */
function describeReview(review: ReviewSetting): string {
  return review.required
    ? `Review is required: a new version is stored as a draft and needs ${plural(review.approvals, 'approval')} by someone other than its author before it can be activated. Rolling back to a version that was active needs none.`
    : 'Review is not required: any version may be activated.';
}

/** What saving `next` over `current` does, asked before it is done. */
function questionOf(current: ReviewSetting, next: ReviewSetting): string {
  if (!next.required) {
    return 'Stop requiring review? New versions can be activated at once, and drafts waiting for review can be activated without approvals.';
  }
  const drafts = 'Versions already waiting need the larger of this number and the one they were saved with.';
  if (!current.required) {
    return `Require ${plural(next.approvals, 'approval')} for new policy versions? Every saved or installed version is stored as a draft that only ${next.approvals === 1 ? 'another reviewer' : 'two other reviewers'} can approve. ${drafts}`;
  }
  return `Require ${plural(next.approvals, 'approval')} instead of ${current.approvals}? ${drafts}`;
}

/** True when `next` asks less of a version than `current` does: turned off, or fewer approvals. */
const weakens = (current: ReviewSetting, next: ReviewSetting) =>
  current.required && (!next.required || next.approvals < current.approvals);

/**
 * Two-person review on or off, and the approvals a version needs (contract §16: `PUT
 * /authority/policy-review/:tenantId`, `tenant:admin`, so owners only), after a confirmation. The
 * current state comes from the versions list; the server's refusal is shown under the controls.
 */
function ReviewControls({ review, onChanged }: { review: ReviewSetting; onChanged: () => Promise<void> }) {
  const [required, setRequired] = useState(review.required);
  const [approvals, setApprovals] = useState(review.approvals);
  const next: ReviewSetting = { required, approvals };
  const unchanged = required === review.required && (!required || approvals === review.approvals);
  const save = useRecordedAction(async () => {
    await api('PUT', `/authority/policy-review/${tenantId()}`, { body: { required, approvals } });
    await onChanged();
    return `Saved: ${describeReview({ required, approvals })}`;
  });
  return (
    <>
      <div class="filters">
        <Checkbox label="Require review of new versions" checked={required} onChecked={setRequired} />
        {required ? (
          <SelectField
            label="Approvals a new version needs"
            value={String(approvals)}
            onValue={(value) => setApprovals(value === '2' ? 2 : 1)}
            options={[
              { value: '1', label: '1 approval' },
              { value: '2', label: '2 approvals by distinct reviewers' },
            ]}
          />
        ) : null}
      </div>
      <ConfirmButton
        label="Save review setting"
        question={questionOf(review, next)}
        kind={weakens(review, next) ? 'danger' : 'primary'}
        disabled={unchanged || save.busy}
        onConfirm={() => void save.run()}
      />
      <Problem error={save.error} title="Review setting refused" />
      <Done message={save.done} />
    </>
  );
}

/** The review section of the intent policy page: the setting for everyone, its controls for owners. */
export function ReviewSettingSection({
  review,
  onChanged,
}: {
  review: ReviewSetting;
  onChanged: () => Promise<void>;
}) {
  const { can } = useSession();
  return (
    <Section title="Review of new versions">
      <p role="status">{describeReview(review)}</p>
      {can('tenant:admin') ? (
        <ReviewControls
          key={`${review.required}:${review.approvals}`}
          review={review}
          onChanged={onChanged}
        />
      ) : null}
    </Section>
  );
}
