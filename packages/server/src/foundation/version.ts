import { createRequire } from 'node:module';

/** The server package's version; the path works from src/ (tsx) and from dist/ (built). */
export const VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string })
  .version;
