import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { PUBLIC } from '../access.js';

/** Contract §14: scripts, styles and connections from the service's own origin only. */
export const CONSOLE_CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'";
/** Vite names every asset by its content hash, so a cached copy never goes stale. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * Where the console's build is: the `dist` folder of the `@authority-runtime/console` workspace,
 * or undefined when the package is absent.
 */
export function defaultConsoleDir(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('@authority-runtime/console/package.json');
    return path.join(path.dirname(manifest), 'dist');
  } catch {
    return undefined;
  }
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

function consoleHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
}

/**
 * The web console (contract §14) under `/console/`: the build's files as they are, and the
 * application's `index.html` for every other path, so that each page (an `approvalUrl` above all)
 * is deep-linkable. Public (the application signs in through the API); no cookie is ever set.
 */
export const consoleRoutes: FastifyPluginAsyncTypebox<{ root: string | undefined }> = async (
  app,
  { root },
) => {
  const built = root !== undefined && (await isFile(path.join(root, 'index.html')));
  if (built) await app.register(fastifyStatic, { root, serve: false, etag: true, lastModified: true });

  app.get('/console', { config: { access: PUBLIC }, schema: { hide: true } }, async (_request, reply) =>
    consoleHeaders(reply).redirect('/console/', 308),
  );

  app.get<{ Params: { '*': string } }>(
    '/console/*',
    {
      config: { access: PUBLIC },
      schema: { hide: true },
    },
    async (request, reply) => {
      consoleHeaders(reply);
      if (!built || root === undefined) {
        throw new AppError('NOT_FOUND', 'The console is not built: run `npm run build`');
      }
      const wanted = request.params['*'];
      const file = path.resolve(root, wanted);
      const inside = file.startsWith(root + path.sep);
      if (inside && (await isFile(file))) {
        const asset = wanted.startsWith('assets/');
        return reply
          .header('cache-control', asset ? ASSET_CACHE : 'no-cache')
          .sendFile(path.relative(root, file), { cacheControl: false });
      }
      // A missing asset is a 404, never the page (a script tag must not receive HTML).
      if (wanted.startsWith('assets/')) throw new AppError('NOT_FOUND', 'No such console asset');
      return reply.header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false });
    },
  );
};
