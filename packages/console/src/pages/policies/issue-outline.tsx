import { ApiError } from '../../api/client.js';

export interface Issue {
  path: string;
  message: string;
  ruleId?: string;
  field?: string;
}

/** The validation issues of a refused save, or none when the error is something else. */
export function issuesOf(error: unknown): Issue[] {
  if (!(error instanceof ApiError) || error.status !== 400) return [];
  const issues = error.details?.issues;
  return Array.isArray(issues) ? (issues as Issue[]) : [];
}

/** Parses the editor's JSON; the error says where the text stops being JSON. */
export function parseDraft(text: string): { value: unknown; error: string | null } {
  try {
    return { value: JSON.parse(text) as unknown, error: null };
  } catch (cause) {
    return { value: undefined, error: cause instanceof Error ? cause.message : String(cause) };
  }
}

/**
 * The draft's items (rules or clauses), each with the server's issues about it and the field each
 * names, so that an error stands next to the rule it concerns. Issues that name no item come first.
 */
export function IssueOutline({
  id,
  items,
  issues,
  collection,
  noun,
}: {
  id: string;
  items: unknown[];
  issues: Issue[];
  /** `rules` or `clauses`: the path segment that holds the index. */
  collection: string;
  noun: string;
}) {
  if (issues.length === 0) return null;
  // Paths come as `rules[0].effect`, `/rules[0]/effect` or (schema validation) `/rules/0/effect`.
  const pattern = new RegExp(`(?:^|[./])${collection}(?:\\[(\\d+)\\]|/(\\d+))[./]?(.*)$`);
  const general: Issue[] = [];
  const byIndex = new Map<number, Array<Issue & { at: string }>>();
  for (const issue of issues) {
    const match = pattern.exec(issue.path);
    if (!match) {
      general.push(issue);
      continue;
    }
    const index = Number(match[1] ?? match[2]);
    const list = byIndex.get(index) ?? [];
    list.push({ ...issue, at: issue.field ?? (match[3] ?? '').replaceAll('/', '.') });
    byIndex.set(index, list);
  }
  return (
    <div id={id} class="problem" role="alert">
      <p>
        <strong>The server refused this version</strong> ({issues.length} issue{issues.length > 1 ? 's' : ''}
        ):
      </p>
      {general.length > 0 ? (
        <ul>
          {general.map((issue) => (
            <li key={`${issue.path}:${issue.message}`}>{issue.message}</li>
          ))}
        </ul>
      ) : null}
      <ol class="outline">
        {[...byIndex.entries()]
          .sort(([a], [b]) => a - b)
          .map(([index, list]) => {
            const item = items[index] as { id?: unknown } | undefined;
            const name = typeof item?.id === 'string' ? item.id : (list[0]?.ruleId ?? `#${index + 1}`);
            return (
              <li key={index} value={index + 1}>
                {noun} <code>{name}</code> ({collection}[{index}])
                <ul>
                  {list.map((issue) => (
                    <li key={`${issue.path}:${issue.message}`}>
                      {issue.at ? <code>{issue.at}</code> : null} {issue.message}
                    </li>
                  ))}
                </ul>
              </li>
            );
          })}
      </ol>
    </div>
  );
}
