import { Octokit } from '@octokit/rest';
import type { AdapterCall, AdapterIo, ProbeOutcome } from './adapter.js';
import { type AdapterOutcome, describeTransportFailure, transportFailure } from './adapter-outcome.js';
import type { GithubSecrets, GithubSettings } from './connector-config.js';
import { egressFetch } from './egress-fetch.js';
import { type GithubOperation, isCommitSha, parseGithubArgs } from './github-operation.js';

/** The REST API version the adapter is written against, sent on every request. */
export const GITHUB_API_VERSION = '2022-11-28';

const silent = () => undefined;

/**
 * An Octokit whose every request leaves through the egress client (Octokit's documented
 * `request.fetch` option), against `baseUrl` (GitHub Enterprise too), authenticated with the
 * connector's token. Octokit's own logging is off: its debug lines carry request options.
 */
function octokitFor(settings: GithubSettings, secrets: GithubSecrets, io: AdapterIo): Octokit {
  const octokit = new Octokit({
    auth: secrets.token,
    baseUrl: settings.baseUrl,
    userAgent: io.userAgent,
    log: { debug: silent, info: silent, warn: silent, error: silent },
    request: { fetch: egressFetch(io.egress, io.deadline) },
  });
  octokit.hook.before('request', (options) => {
    options.headers['x-github-api-version'] = GITHUB_API_VERSION;
  });
  // Octokit passes 3xx answers through as success; redirects are never followed, so they fail.
  octokit.hook.after('request', (response) => {
    if (response.status >= 300) {
      throw Object.assign(new Error(`GitHub answered ${response.status}`), {
        response: { status: response.status, data: response.data },
      });
    }
  });
  return octokit;
}

/** The status and GitHub's message when the error is an HTTP answer, not a transport failure. */
function httpAnswer(error: unknown): { statusCode: number; message: string | null } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const response = (error as { response?: { status?: unknown; data?: unknown } }).response;
  if (response === undefined || typeof response.status !== 'number') return undefined;
  const data = response.data;
  const message =
    typeof data === 'object' && data !== null && typeof (data as { message?: unknown }).message === 'string'
      ? (data as { message: string }).message
      : null;
  return { statusCode: response.status, message };
}

function repoOf(targetSystem: string): { owner: string; repo: string } {
  const slash = targetSystem.indexOf('/');
  return { owner: targetSystem.slice(0, slash), repo: targetSystem.slice(slash + 1) };
}

async function defaultBranch(octokit: Octokit, repo: { owner: string; repo: string }): Promise<string> {
  return (await octokit.rest.repos.get(repo)).data.default_branch;
}

async function perform(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  op: GithubOperation,
): Promise<Record<string, unknown>> {
  switch (op.operation) {
    case 'merge_pr': {
      const { data } = await octokit.rest.pulls.merge({
        ...repo,
        pull_number: op.pullNumber,
        ...(op.commitMessage === null ? {} : { commit_message: op.commitMessage }),
      });
      return { operation: op.operation, pullNumber: op.pullNumber, merged: data.merged, sha: data.sha };
    }
    case 'comment': {
      const { data } = await octokit.rest.issues.createComment({
        ...repo,
        issue_number: op.issueNumber,
        body: op.body,
      });
      return { operation: op.operation, issueNumber: op.issueNumber, commentId: data.id, url: data.html_url };
    }
    case 'create_branch': {
      let sha = op.fromRef !== null && isCommitSha(op.fromRef) ? op.fromRef : undefined;
      if (sha === undefined) {
        const from = op.fromRef ?? (await defaultBranch(octokit, repo));
        sha = (await octokit.rest.git.getRef({ ...repo, ref: `heads/${from}` })).data.object.sha;
      }
      const { data } = await octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${op.branch}`, sha });
      return { operation: op.operation, branch: op.branch, ref: data.ref, sha: data.object.sha };
    }
    case 'delete_branch':
      await octokit.rest.git.deleteRef({ ...repo, ref: `heads/${op.branch}` });
      return { operation: op.operation, branch: op.branch, deleted: true };
    case 'dispatch_workflow': {
      const ref = op.ref ?? (await defaultBranch(octokit, repo));
      await octokit.rest.actions.createWorkflowDispatch({
        ...repo,
        workflow_id: op.workflow,
        ref,
        inputs: op.inputs,
      });
      return { operation: op.operation, workflow: op.workflow, ref };
    }
  }
}

/**
 * The github adapter (contract §8): performs `args.operation` on the repository `targetSystem`
 * through the GitHub REST API with Octokit. Arguments that do not describe an operation fail with
 * INVALID_ARGS before any request; a GitHub error answer fails with HTTP_ERROR and its status.
 */
export async function executeGithub(
  settings: GithubSettings,
  secrets: GithubSecrets,
  call: AdapterCall,
  io: AdapterIo,
): Promise<AdapterOutcome> {
  const parsed = parseGithubArgs(call.args);
  if (!parsed.ok) return { status: 'failed', reason: 'INVALID_ARGS', result: { error: parsed.message } };
  try {
    const result = await perform(
      octokitFor(settings, secrets, io),
      repoOf(call.targetSystem),
      parsed.operation,
    );
    return { status: 'executed', result };
  } catch (error) {
    const answered = httpAnswer(error);
    if (answered) return { status: 'failed', reason: 'HTTP_ERROR', result: answered };
    return {
      status: 'failed',
      reason: transportFailure(error),
      result: { error: describeTransportFailure(error, io.timeoutMs) },
    };
  }
}

/** A real round trip: GET /repos/{owner}/{repo} with the token; 200 means the token reaches the repository. */
export async function probeGithub(
  settings: GithubSettings,
  secrets: GithubSecrets,
  targetSystem: string,
  io: AdapterIo,
): Promise<ProbeOutcome> {
  try {
    await octokitFor(settings, secrets, io).rest.repos.get(repoOf(targetSystem));
    return { answered: true, ok: true };
  } catch (error) {
    const answered = httpAnswer(error);
    if (answered) {
      return {
        answered: true,
        ok: false,
        error: `HTTP ${answered.statusCode}${answered.message ? `: ${answered.message}` : ''}`,
      };
    }
    return { answered: false, ok: false, error: describeTransportFailure(error, io.timeoutMs) };
  }
}
