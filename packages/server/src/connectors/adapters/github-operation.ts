/** The operations of the github adapter (contract §8), with their arguments checked. */
export type GithubOperation =
  | { operation: 'merge_pr'; pullNumber: number; commitMessage: string | null }
  | { operation: 'comment'; issueNumber: number; body: string }
  | { operation: 'create_branch'; branch: string; fromRef: string | null }
  | { operation: 'delete_branch'; branch: string }
  | {
      operation: 'dispatch_workflow';
      workflow: string | number;
      ref: string | null;
      inputs: Record<string, string | number | boolean>;
    };

export const GITHUB_OPERATIONS = [
  'merge_pr',
  'comment',
  'create_branch',
  'delete_branch',
  'dispatch_workflow',
] as const;

/** Every member `args` may carry; each operation accepts only its own. */
const MEMBERS: Record<GithubOperation['operation'], readonly string[]> = {
  merge_pr: ['pullNumber', 'body'],
  comment: ['issueNumber', 'pullNumber', 'body'],
  create_branch: ['branch', 'fromRef'],
  delete_branch: ['branch'],
  dispatch_workflow: ['workflow', 'ref', 'inputs'],
};

const MAX_BODY = 65_536;
const MAX_INPUTS = 25;
const MAX_INPUT_VALUE = 10_000;
const SHA = /^[0-9a-f]{40}$/;
const WORKFLOW_FILE = /^[A-Za-z0-9._-]{1,255}$/;
const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,99}$/;

export type ParsedGithubArgs = { ok: true; operation: GithubOperation } | { ok: false; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/**
 * A branch or tag name git would accept (the rules of `git check-ref-format` for one ref name):
 * no control characters, spaces or `~^:?*[\`, no `..` or `@{`, no empty, leading-dot or `.lock`
 * component, not `@` alone, at most 255 characters.
 */
export function isRefName(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 255) return false;
  if (value === '@' || value.includes('..') || value.includes('@{')) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(value)) return false;
  if (value.endsWith('.')) return false;
  return value
    .split('/')
    .every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}

const fail = (message: string): ParsedGithubArgs => ({ ok: false, message });

/**
 * Checks the `args` of an intent executed through the github adapter. Pure: it never throws, and
 * it refuses members that do not belong to the operation rather than ignoring them, so a mistaken
 * field never changes what runs.
 */
export function parseGithubArgs(args: unknown): ParsedGithubArgs {
  if (!isRecord(args)) return fail('args must be an object with an operation');
  const operation = args.operation;
  if (typeof operation !== 'string' || !(GITHUB_OPERATIONS as readonly string[]).includes(operation)) {
    return fail(`args.operation must be one of ${GITHUB_OPERATIONS.join(', ')}`);
  }
  const op = operation as GithubOperation['operation'];
  for (const key of Object.keys(args)) {
    if (key !== 'operation' && !MEMBERS[op].includes(key)) {
      return fail(`args.${key} does not apply to ${op}`);
    }
  }
  const body = args.body;
  if (body !== undefined && (typeof body !== 'string' || body.length === 0 || body.length > MAX_BODY)) {
    return fail(`args.body must be a string of 1 to ${MAX_BODY} characters`);
  }

  switch (op) {
    case 'merge_pr':
      if (!isPositiveInteger(args.pullNumber))
        return fail('merge_pr needs args.pullNumber, a positive integer');
      return {
        ok: true,
        operation: { operation: op, pullNumber: args.pullNumber, commitMessage: body ?? null },
      };
    case 'comment': {
      const hasIssue = args.issueNumber !== undefined;
      const hasPull = args.pullNumber !== undefined;
      if (hasIssue === hasPull)
        return fail('comment needs exactly one of args.issueNumber and args.pullNumber');
      const number = hasIssue ? args.issueNumber : args.pullNumber;
      if (!isPositiveInteger(number))
        return fail('the issue or pull request number must be a positive integer');
      if (body === undefined) return fail('comment needs args.body');
      return { ok: true, operation: { operation: op, issueNumber: number, body } };
    }
    case 'create_branch': {
      if (!isRefName(args.branch)) return fail('create_branch needs args.branch, a valid branch name');
      const fromRef = args.fromRef;
      if (fromRef !== undefined && !isRefName(fromRef)) {
        return fail('args.fromRef must be a branch name or a commit SHA');
      }
      return { ok: true, operation: { operation: op, branch: args.branch, fromRef: fromRef ?? null } };
    }
    case 'delete_branch':
      if (!isRefName(args.branch)) return fail('delete_branch needs args.branch, a valid branch name');
      return { ok: true, operation: { operation: op, branch: args.branch } };
    case 'dispatch_workflow': {
      const workflow = args.workflow;
      if (!isPositiveInteger(workflow) && !(typeof workflow === 'string' && WORKFLOW_FILE.test(workflow))) {
        return fail('dispatch_workflow needs args.workflow, a workflow file name or numeric id');
      }
      const ref = args.ref;
      if (ref !== undefined && !isRefName(ref)) return fail('args.ref must be a branch or tag name');
      const inputs = args.inputs ?? {};
      if (!isRecord(inputs)) return fail('args.inputs must be an object');
      const entries = Object.entries(inputs);
      if (entries.length > MAX_INPUTS) return fail(`args.inputs holds at most ${MAX_INPUTS} inputs`);
      const checked: Record<string, string | number | boolean> = {};
      for (const [name, value] of entries) {
        if (!INPUT_NAME.test(name)) return fail(`args.inputs.${name} is not a valid input name`);
        const valid =
          typeof value === 'boolean' ||
          (typeof value === 'number' && Number.isFinite(value)) ||
          (typeof value === 'string' && value.length <= MAX_INPUT_VALUE);
        if (!valid) return fail(`args.inputs.${name} must be a string, a finite number or a boolean`);
        checked[name] = value as string | number | boolean;
      }
      return { ok: true, operation: { operation: op, workflow, ref: ref ?? null, inputs: checked } };
    }
  }
}

/** True when `ref` names a commit directly rather than a branch. */
export function isCommitSha(ref: string): boolean {
  return SHA.test(ref);
}
