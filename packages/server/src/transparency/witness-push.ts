import {
  cosignatureVerifier,
  formatAddCheckpointRequest,
  formatSignatureLine,
  hashToHex,
  parseAddCheckpointResponse,
  parseSignedNote,
} from '@authority-runtime/sdk';
import { type EgressClient, EgressRefusedError, EgressTimeoutError } from '../egress/egress-client.js';
import type { Clock } from '../foundation/clock.js';
import { createPoller } from '../foundation/poller.js';
import { VERSION } from '../foundation/version.js';
import type { Storage } from '../storage/database.js';
import type { AuditWitnessesTable } from '../storage/witness-schema.js';
import { nextRetryDelay } from '../webhooks/retry-schedule.js';
import { witnessRepository } from './witness-repository.js';

/** A tenant's latest checkpoint note, signed by its log key, with the tree it states. */
export interface LatestCheckpoint {
  note: string;
  size: number;
  rootHash: Uint8Array;
}

/** What the pusher needs of the log: its latest checkpoint and consistency proofs between sizes. */
export interface CheckpointSource {
  latest(tenantId: string): Promise<LatestCheckpoint | undefined>;
  consistencyProof(tenantId: string, fromSize: number, toSize: number): Promise<Uint8Array[]>;
}

export interface WitnessPusherDeps {
  storage: Storage;
  clock: Clock;
  /** The one outbound client: a witness at a private address is refused unless the operator allows it. */
  egress: EgressClient;
  source: CheckpointSource;
  /** The backoff steps after failed pushes (the webhook schedule); the last step repeats. */
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  /** Tenants handled per round. */
  batchSize?: number;
  random?: () => number;
  onError: (error: unknown) => void;
}

const USER_AGENT = `authority-runtime-witness-push/${VERSION}`;
/** 409 answers followed within one push: a witness that keeps changing its size is retried later. */
const MAX_SIZE_CORRECTIONS = 2;

class PushFailed extends Error {}

function describe(error: unknown): string {
  if (error instanceof PushFailed) return error.message;
  if (error instanceof EgressRefusedError) return `egress refused: ${error.message}`;
  if (error instanceof EgressTimeoutError) return `timeout: ${error.message}`;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/** `<url>/add-checkpoint`: the path extended, a query string the witness's URL carries kept after it. */
export function addCheckpointUrl(base: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/add-checkpoint`;
  url.hash = '';
  return url.href;
}

/**
 * Pushes each tenant's latest checkpoint to its witnesses (C2SP tlog-witness `add-checkpoint`,
 * contract §15): `old` is the size the witness last cosigned, with the consistency proof from it;
 * a 409 names the witness's own size and the push is retried from there; a cosignature is kept
 * only once it verifies under the witness's configured key. Failures back off on the retry
 * schedule. Every instance may run one: a duplicate push is answered 409 or cosigned again.
 */
export function createWitnessPusher(deps: WitnessPusherDeps) {
  const { storage, clock, egress, source, retryScheduleMs, timeoutMs } = deps;
  const batchSize = deps.batchSize ?? 25;
  const random = deps.random ?? Math.random;
  let cursor = '';

  async function exchange(
    witness: AuditWitnessesTable,
    oldSize: number,
    tenantId: string,
    latest: LatestCheckpoint,
  ) {
    const proof = oldSize === 0 ? [] : await source.consistencyProof(tenantId, oldSize, latest.size);
    const response = await egress.request({
      method: 'POST',
      url: addCheckpointUrl(witness.url),
      headers: { 'content-type': 'text/plain; charset=utf-8', 'user-agent': USER_AGENT },
      body: formatAddCheckpointRequest({ oldSize, proof, checkpoint: latest.note }),
      timeoutMs,
    });
    try {
      return parseAddCheckpointResponse(
        response.status,
        response.body,
        response.headers['content-type'] ?? null,
      );
    } catch (error) {
      throw new PushFailed(
        `the witness answered HTTP ${response.status} malformed: ${(error as Error).message}`,
      );
    }
  }

  /**
   * One witness: pushes until it cosigns (its signature line), finds the push overtaken by a later
   * checkpoint another instance pushed (undefined: nothing to record), or throws PushFailed / a
   * transport error.
   */
  async function cosign(
    tenantId: string,
    witness: AuditWitnessesTable,
    latest: LatestCheckpoint,
  ): Promise<string | undefined> {
    const verifier = cosignatureVerifier(witness.verifier_key);
    const body = parseSignedNote(latest.note).text;
    let oldSize = witness.cosigned_size > latest.size ? 0 : witness.cosigned_size;
    for (let corrections = 0; ; corrections++) {
      const answer = await exchange(witness, oldSize, tenantId, latest);
      if (answer.status === 200 && 'signatures' in answer) {
        const mine = answer.signatures.find(
          (s) => s.name === verifier.name && s.keyId === verifier.keyId && verifier.verify(body, s.signature),
        );
        if (!mine) throw new PushFailed('the witness answered no cosignature that verifies under its key');
        return formatSignatureLine(mine);
      }
      if (answer.status === 409 && 'latestSize' in answer) {
        if (answer.latestSize > latest.size) {
          // Another instance pushed a later checkpoint of this log meanwhile: this push is stale,
          // not a failure. Only a witness ahead of the log as it stands now is one.
          if (((await source.latest(tenantId))?.size ?? 0) >= answer.latestSize) return undefined;
          throw new PushFailed(
            `the witness has cosigned size ${answer.latestSize}, larger than this log's ${latest.size}`,
          );
        }
        if (corrections >= MAX_SIZE_CORRECTIONS || answer.latestSize === oldSize) {
          throw new PushFailed(`the witness keeps answering 409 (its size ${answer.latestSize})`);
        }
        oldSize = answer.latestSize;
        continue;
      }
      throw new PushFailed(`HTTP ${answer.status}: ${'message' in answer ? answer.message : ''}`);
    }
  }

  async function pushWitness(tenantId: string, witness: AuditWitnessesTable, latest: LatestCheckpoint) {
    try {
      const line = await cosign(tenantId, witness, latest);
      if (line === undefined) return;
      const at = clock();
      await storage.writeTransaction((trx) =>
        witnessRepository.recordCosignature(
          trx,
          tenantId,
          { name: witness.name, verifierKey: witness.verifier_key },
          { treeSize: latest.size, rootHash: hashToHex(latest.rootHash), signatureLine: line, at },
        ),
      );
    } catch (error) {
      const attempts = witness.attempts + 1;
      const step = Math.min(attempts, retryScheduleMs.length);
      const delay = step === 0 ? 0 : (nextRetryDelay(retryScheduleMs, step, random) ?? 0);
      const now = clock();
      await witnessRepository.recordFailure(storage.db, tenantId, witness.name, {
        attempts,
        nextAttemptAt: now + delay,
        error: describe(error),
        now,
      });
    }
  }

  /** The tenants being pushed now (by a poll round or a prompt push), so that one push runs at a time. */
  const pushing = new Map<string, Promise<void>>();

  /**
   * Pushes the tenant's latest checkpoint to each witness that is due and has not cosigned it; when
   * a push of the tenant is running already, waits for that one instead.
   */
  function pushTenant(tenantId: string): Promise<void> {
    const running = pushing.get(tenantId);
    if (running) return running;
    const push = pushTenantNow(tenantId).finally(() => pushing.delete(tenantId));
    pushing.set(tenantId, push);
    return push;
  }

  async function pushTenantNow(tenantId: string): Promise<void> {
    const set = await witnessRepository.get(storage.db, tenantId);
    if (!set || set.witnesses.length === 0) return;
    const latest = await source.latest(tenantId);
    if (!latest) return;
    const now = clock();
    const due = set.witnesses.filter((w) => w.next_attempt_at <= now && w.cosigned_size !== latest.size);
    await Promise.all(due.map((witness) => pushWitness(tenantId, witness, latest)));
  }

  /** One round: the next tenants (by id, wrapping around) with a witness due; resolves with their count. */
  async function runOnce(): Promise<number> {
    const tenants = await witnessRepository.dueTenants(storage.db, clock(), batchSize, cursor);
    cursor = tenants.length < batchSize ? '' : (tenants[tenants.length - 1] as string);
    const results = await Promise.allSettled(tenants.map(pushTenant));
    for (const result of results) if (result.status === 'rejected') deps.onError(result.reason);
    return tenants.length;
  }

  const poller = createPoller({ runOnce, batchSize, onError: deps.onError });
  /** Tenants with a prompt push queued or running; `again` when another checkpoint came meanwhile. */
  const prompt = new Map<string, { again: boolean }>();
  const promptRuns = new Set<Promise<void>>();
  let stopped = false;

  /**
   * A checkpoint of the tenant was just signed: pushes the tenant's latest checkpoint to its due
   * witnesses soon, on a later turn of the event loop, so the request that signed it neither waits
   * for the witnesses nor sees their failures (those back off on the retry schedule as in a poll
   * round; a witness waiting out its backoff is not pushed). Checkpoints signed while a push of the
   * tenant runs are covered by one more push after it. Returns at once and never throws.
   */
  function checkpointSigned(tenantId: string): void {
    if (stopped) return;
    const queued = prompt.get(tenantId);
    if (queued) {
      queued.again = true;
      return;
    }
    const state = { again: true };
    prompt.set(tenantId, state);
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(async () => {
        while (state.again && !stopped) {
          state.again = false;
          const running = pushing.get(tenantId);
          if (running) {
            // A push that started before this checkpoint may not carry it: push once more after it.
            await running.catch(() => undefined);
            state.again = true;
            continue;
          }
          await pushTenant(tenantId);
        }
      })
      .catch(deps.onError)
      .finally(() => {
        prompt.delete(tenantId);
        promptRuns.delete(run);
      });
    promptRuns.add(run);
  }

  return {
    runOnce,
    pushTenant,
    checkpointSigned,
    /** Polls every `pollMs` (the safety net: pushes that failed, other instances' checkpoints). */
    start(pollMs: number): void {
      stopped = false;
      poller.start(pollMs);
    },
    /** Stops polling and prompt pushes, and waits for the pushes in progress. */
    async stop(): Promise<void> {
      stopped = true;
      await poller.stop();
      await Promise.all([...promptRuns]);
    },
  };
}

export type WitnessPusher = ReturnType<typeof createWitnessPusher>;
