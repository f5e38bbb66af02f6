import { ApiError } from '../api/client.js';
import { useFocusOnShow } from './focus.js';

/** Title of a failure that got no answer at all: it was not refused, its outcome is unknown. */
const NO_ANSWER = 'No answer from the service';

interface Issue {
  path?: string;
  message?: string;
}

function issuesOf(error: ApiError): Issue[] {
  const issues = error.details?.issues;
  return Array.isArray(issues) ? (issues as Issue[]) : [];
}

/** What a refusal means for the person reading it. */
function explain(error: ApiError): string | null {
  const permission = error.details?.permission;
  if (error.status === 403 && typeof permission === 'string') {
    return `Your role does not have the permission ${permission}.`;
  }
  if (error.reason === 'separation_of_duties') {
    return 'Separation of duties: whoever asked for an action cannot approve it. Another approver must decide.';
  }
  if (error.reason === 'review_required') {
    return 'This version needs its approvals from reviewers other than its author (and no rejection) before it can be activated.';
  }
  if (error.code === 'MFA_REQUIRED' || error.code === 'mfa_required') {
    return 'Verify your second factor first.';
  }
  if (error.code === 'IP_NOT_ALLOWED' || error.code === 'ip_not_allowed') {
    return "Your address is not in the tenant's IP allowlist.";
  }
  return null;
}

/** A server refusal or failure, shown plainly: status, code, message, what it means, request id. */
export function Problem({
  error,
  title,
  takeFocus = false,
}: {
  error: unknown;
  title?: string;
  /** Takes the focus when shown: for a refusal that removed the control that had it. */
  takeFocus?: boolean;
}) {
  // Also when the focus was lost meanwhile (the button that had it was disabled while it ran).
  const box = useFocusOnShow<HTMLDivElement>(error !== null && error !== undefined, error, !takeFocus);
  if (error === null || error === undefined) return null;
  const apiError =
    error instanceof ApiError ? error : new ApiError(0, 'ERROR', String(error), undefined, undefined);
  const meaning = explain(apiError);
  const issues = issuesOf(apiError);
  const status = apiError.details?.status;
  return (
    <div class="problem" role="alert" tabIndex={-1} ref={box}>
      <p class="problem-title">
        <strong>
          {apiError.status === 0
            ? NO_ANSWER
            : (title ?? (apiError.status === 403 ? 'Refused' : 'Something went wrong'))}
        </strong>{' '}
        {apiError.status > 0 ? (
          <span class="code">
            {apiError.status} {apiError.code}
          </span>
        ) : null}
      </p>
      <p>{apiError.message}</p>
      {meaning ? <p>{meaning}</p> : null}
      {typeof status === 'string' ? <p>Current status: {status}</p> : null}
      {issues.length > 0 ? (
        <ul>
          {issues.map((issue) => (
            <li key={`${issue.path}:${issue.message}`}>
              {issue.path ? <code>{issue.path}</code> : null} {issue.message}
            </li>
          ))}
        </ul>
      ) : null}
      {apiError.requestId ? <p class="muted">Request id: {apiError.requestId}</p> : null}
    </div>
  );
}
