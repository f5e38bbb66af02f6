import { createHash } from 'node:crypto';
import {
  checkAddCheckpoint,
  formatSignatureLine,
  formatSignedNote,
  type NoteSigner,
  type NoteVerifier,
  TLOG_SIZE_CONTENT_TYPE,
} from '@authority-runtime/sdk';
import Fastify, { type FastifyInstance } from 'fastify';
import type { WitnessStateFile } from './witness-state.js';

/** Request bodies above this are refused with 413: a checkpoint and 63 proof lines fit many times. */
export const WITNESS_BODY_LIMIT = 64 * 1024;

export interface WitnessServerOptions {
  /** The witness's cosigner (type 0x04). */
  cosigner: NoteSigner;
  /** Trusted log keys, by origin. */
  logs: ReadonlyMap<string, readonly NoteVerifier[]>;
  state: WitnessStateFile;
  clock: () => number;
  /** Where refusals of checkpoints that a trusted log key signed are reported (evidence). */
  report(line: string): void;
}

const TEXT = 'text/plain; charset=utf-8';

/**
 * The C2SP `tlog-witness` HTTP interface: `POST /add-checkpoint` and the monitoring read
 * `GET /<hex SHA-256 of the origin>/checkpoint`. Requests are handled one at a time, so checking
 * `old` against the state and persisting the new state are one atomic step.
 */
export function buildWitnessServer(options: WitnessServerOptions): FastifyInstance {
  const app = Fastify({ bodyLimit: WITNESS_BODY_LIMIT, logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(task: () => T): Promise<T> => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };

  app.post('/add-checkpoint', async (request, reply) => {
    const body = Buffer.isBuffer(request.body) ? new Uint8Array(request.body) : new Uint8Array();
    return serialized(() => {
      const decision = checkAddCheckpoint(body, {
        logs: options.logs,
        latest: (origin) => options.state.latest(origin),
      });
      if (decision.status !== 200) {
        if (decision.status === 409) {
          // Routine: the log's idea of the size last cosigned is stale (a restart, another
          // instance); it retries with the size answered. Not evidence against the log.
          options.report(
            JSON.stringify({
              level: 'info',
              msg: 'answered a stale old size with the size last cosigned',
              latestSize: decision.latestSize,
              time: new Date(options.clock()).toISOString(),
            }),
          );
        } else if (decision.signed) {
          options.report(
            JSON.stringify({
              level: 'warn',
              msg: 'refused a checkpoint signed by a trusted log key',
              status: decision.status,
              reason: decision.message,
              time: new Date(options.clock()).toISOString(),
              request: Buffer.from(body).toString('utf8'),
            }),
          );
        }
        if (decision.status === 409) {
          return reply.code(409).type(TLOG_SIZE_CONTENT_TYPE).send(`${decision.latestSize}\n`);
        }
        return reply.code(decision.status).type(TEXT).send(`${decision.message}\n`);
      }
      const { cosigner } = options;
      const cosignature = {
        name: cosigner.name,
        keyId: cosigner.keyId,
        signature: cosigner.sign(decision.note.text),
      };
      const note = formatSignedNote({
        text: decision.note.text,
        signatures: [...decision.logSignatures, cosignature],
      });
      options.state.save(decision.checkpoint.origin, {
        size: decision.checkpoint.size,
        rootHash: decision.checkpoint.rootHash,
        note,
        cosignedAt: new Date(options.clock()).toISOString(),
      });
      return reply.code(200).type(TEXT).send(formatSignatureLine(cosignature));
    });
  });

  app.get<{ Params: { originHash: string } }>('/:originHash/checkpoint', async (request, reply) => {
    for (const origin of options.logs.keys()) {
      if (createHash('sha256').update(origin, 'utf8').digest('hex') !== request.params.originHash) continue;
      const latest = options.state.latest(origin);
      if (latest) return reply.code(200).type(TEXT).send(latest.note);
    }
    return reply.code(404).type(TEXT).send('no checkpoint cosigned for this log\n');
  });

  app.setNotFoundHandler((_request, reply) => reply.code(404).type(TEXT).send('not found\n'));
  app.setErrorHandler((error: { statusCode?: number; message?: string }, _request, reply) => {
    const status =
      error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500
        ? error.statusCode
        : 500;
    return reply
      .code(status)
      .type(TEXT)
      .send(`${status === 500 ? 'internal error' : (error.message ?? 'bad request')}\n`);
  });
  return app;
}
