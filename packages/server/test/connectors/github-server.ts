import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it arrived on the wire. */
export interface GithubRequest {
  method: string;
  /** The raw request target, exactly as sent (percent-encoding included). */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface GithubServer {
  /** The API root to configure as the connector's baseUrl. */
  baseUrl: string;
  requests: GithubRequest[];
  /** Branch name → head commit SHA, as the server holds them now. */
  branches: Map<string, string>;
  /** Delays every answer by this many ms (a slow GitHub). */
  delay(ms: number): void;
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-github-request-id': 'TEST:1' })
    .end(JSON.stringify(body));
};
const DOCS = 'https://docs.github.com/rest';

/**
 * A local peer implementing the few GitHub REST routes the github adapter uses (contract §12), with
 * GitHub's request and response shapes: GET a repository, merge a pull request, comment on an
 * issue, read, create and delete a branch ref, dispatch a workflow. It accepts only
 * `authorization: token <token>` and mounts under `prefix` (GitHub Enterprise serves `/api/v3`).
 */
export async function startGithubServer(options: {
  owner: string;
  repo: string;
  token: string;
  prefix?: string;
  defaultBranch?: string;
  /** Pull request numbers that can be merged; any other answers 405 as GitHub does. */
  mergeable?: number[];
  /** A former name of the repository: its routes answer 301, as GitHub does after a rename. */
  renamedFrom?: string;
}): Promise<GithubServer> {
  const prefix = options.prefix ?? '';
  const defaultBranch = options.defaultBranch ?? 'main';
  const mergeable = new Set(options.mergeable ?? []);
  const branches = new Map<string, string>([[defaultBranch, 'a'.repeat(40)]]);
  const requests: GithubRequest[] = [];
  let delayMs = 0;
  let commentIds = 1000;
  const repoPath = `/repos/${options.owner}/${options.repo}`;

  function refObject(branch: string, sha: string) {
    return {
      ref: `refs/heads/${branch}`,
      node_id: 'REF_node',
      url: `http://api${repoPath}/git/refs/heads/${branch}`,
      object: { sha, type: 'commit', url: `http://api${repoPath}/git/commits/${sha}` },
    };
  }

  /** GitHub's answer to one request: a status and a JSON body, or none (204). */
  function route(method: string, path: string, body: unknown): { status: number; body?: unknown } {
    const notFound = { status: 404, body: { message: 'Not Found', documentation_url: DOCS } };
    if (options.renamedFrom && path.startsWith(`${prefix}/repos/${options.owner}/${options.renamedFrom}`)) {
      return {
        status: 301,
        body: {
          message: 'Moved Permanently',
          url: `http://api${prefix}/repositories/1296269`,
          documentation_url: DOCS,
        },
      };
    }
    if (!path.startsWith(`${prefix}${repoPath}`)) return notFound;
    const rest = path.slice(`${prefix}${repoPath}`.length);
    const input = (body ?? {}) as Record<string, unknown>;
    const merge = rest.match(/^\/pulls\/(\d+)\/merge$/);
    const comment = rest.match(/^\/issues\/(\d+)\/comments$/);
    const getRef = rest.match(/^\/git\/ref\/(.+)$/);
    const deleteRef = rest.match(/^\/git\/refs\/(.+)$/);

    if (method === 'GET' && rest === '') {
      return {
        status: 200,
        body: {
          id: 1296269,
          name: options.repo,
          full_name: `${options.owner}/${options.repo}`,
          owner: { login: options.owner },
          private: false,
          default_branch: defaultBranch,
        },
      };
    }
    if (method === 'PUT' && merge) {
      if (!mergeable.has(Number(merge[1]))) {
        return { status: 405, body: { message: 'Pull Request is not mergeable', documentation_url: DOCS } };
      }
      return {
        status: 200,
        body: { sha: 'b'.repeat(40), merged: true, message: 'Pull Request successfully merged' },
      };
    }
    if (method === 'POST' && comment) {
      const id = commentIds++;
      return {
        status: 201,
        body: {
          id,
          node_id: 'IC_node',
          html_url: `https://github.test/${options.owner}/${options.repo}/issues/${comment[1]}#issuecomment-${id}`,
          body: input.body,
          user: { login: 'authority-bot' },
        },
      };
    }
    if (method === 'GET' && getRef) {
      const ref = decodeURIComponent(getRef[1] as string);
      const sha = ref.startsWith('heads/') ? branches.get(ref.slice('heads/'.length)) : undefined;
      if (sha === undefined) return notFound;
      return { status: 200, body: refObject(ref.slice('heads/'.length), sha) };
    }
    if (method === 'POST' && rest === '/git/refs') {
      const branch = String(input.ref).replace(/^refs\/heads\//, '');
      if (branches.has(branch)) {
        return { status: 422, body: { message: 'Reference already exists', documentation_url: DOCS } };
      }
      branches.set(branch, String(input.sha));
      return { status: 201, body: refObject(branch, String(input.sha)) };
    }
    if (method === 'DELETE' && deleteRef) {
      const branch = decodeURIComponent(deleteRef[1] as string).replace(/^heads\//, '');
      if (!branches.delete(branch)) {
        return { status: 422, body: { message: 'Reference does not exist', documentation_url: DOCS } };
      }
      return { status: 204 };
    }
    if (method === 'POST' && /^\/actions\/workflows\/[^/]+\/dispatches$/.test(rest)) return { status: 204 };
    return notFound;
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text === '' ? undefined : (JSON.parse(text) as unknown);
      const path = req.url ?? '/';
      const method = req.method ?? '';
      requests.push({ method, path, headers: req.headers, body });
      setTimeout(() => {
        const answer =
          req.headers.authorization === `token ${options.token}`
            ? route(method, path, body)
            : { status: 401, body: { message: 'Bad credentials', documentation_url: DOCS } };
        if (answer.body === undefined) res.writeHead(answer.status).end();
        else json(res, answer.status, answer.body);
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    requests,
    branches,
    delay(ms) {
      delayMs = ms;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
