import type {
  AcknowledgeBreakRequest,
  BreakAcknowledgement,
  ChainVerification,
  Checkpoint,
  CheckpointList,
  CheckpointQuery,
  ExportLine,
  ExportQuery,
  Timeline,
  TimelineEvent,
  TimelineQuery,
  VerifyChainRequest,
} from '../wire/audit.js';
import { WIRE_ROUTES as R } from '../wire/routes.js';
import type {
  ConsistencyProof,
  ConsistencyProofQuery,
  InclusionProof,
  InclusionProofQuery,
} from '../wire/transparency.js';
import type { WitnessConfig, WitnessConfigRequest } from '../wire/witnesses.js';
import { AuthorityApiError } from './api-error.js';
import { nextCursorOf, PagedList } from './paged-list.js';
import { Resource } from './resource.js';
import type { CallOptions } from './transport.js';

const DEFAULT_CHECKPOINT_LIMIT = 100;

/**
 * The tenant's audit chain: timeline, export, checkpoints, verification (contract §6), and its
 * transparency log: log key, checkpoint note, inclusion and consistency proofs (§15).
 */
export class AuditResource extends Resource {
  /**
   * `GET /audit/:tenantId/timeline`, newest first: await it for a page, iterate it for every event.
   *
   * @example
   * ```ts
   * for await (const event of client.audit.timeline({ eventType: 'intent.decided' })) {
   *   console.log(event.index, event.summary);
   * }
   * ```
   */
  timeline(query: TimelineQuery = {}, options?: CallOptions): PagedList<TimelineEvent, Timeline> {
    return new PagedList(
      (cursor) =>
        this.expect<Timeline>({
          route: R.getTimeline,
          params: { tenantId: this.tenantId },
          query: { ...query, cursor: cursor ?? query.cursor },
          retry: 'safe',
          options,
        }),
      (page) => page.events,
      nextCursorOf,
    );
  }

  /**
   * `GET /audit/:tenantId/checkpoints`, oldest first: await it for a page, iterate it for every
   * checkpoint from `from` (pages follow on from the last index seen).
   *
   * @example
   * ```ts
   * const all = await client.audit.checkpoints().all();
   * ```
   */
  checkpoints(query: CheckpointQuery = {}, options?: CallOptions): PagedList<Checkpoint, CheckpointList> {
    const limit = query.limit ?? DEFAULT_CHECKPOINT_LIMIT;
    return new PagedList(
      (cursor) =>
        this.expect<CheckpointList>({
          route: R.listCheckpoints,
          params: { tenantId: this.tenantId },
          query: { ...query, limit, from: cursor === undefined ? query.from : Number(cursor) },
          retry: 'safe',
          options,
        }),
      (page) => page.checkpoints,
      (page) => {
        const last = page.checkpoints[page.checkpoints.length - 1];
        return last !== undefined && page.checkpoints.length >= limit ? String(last.index + 1) : undefined;
      },
    );
  }

  /**
   * `GET /audit/:tenantId/export` as raw NDJSON lines, ready for `verifyChainExport`.
   *
   * @example
   * ```ts
   * import { verifyChainExport } from '@authority-runtime/sdk';
   *
   * const result = await verifyChainExport(client.audit.exportLines(), { jwks });
   * ```
   */
  async *exportLines(
    query: ExportQuery = {},
    options?: CallOptions,
  ): AsyncGenerator<string, void, undefined> {
    const response = await this.transport.stream({
      route: R.exportAudit,
      params: { tenantId: this.tenantId },
      query,
      retry: 'safe',
      options,
    });
    if (!response.body) return;
    let rest = '';
    try {
      for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) if (line !== '') yield line;
      }
    } catch (error) {
      throw new AuthorityApiError({
        status: 0,
        code: options?.signal?.aborted ? 'ABORTED' : 'NETWORK_ERROR',
        message: 'The export stream broke off',
        retryable: !options?.signal?.aborted,
        cause: error,
      });
    }
    if (rest !== '') yield rest;
  }

  /**
   * `GET /audit/:tenantId/export`, each line parsed: an entry, or a checkpoint right after its entry.
   *
   * @example
   * ```ts
   * for await (const line of client.audit.export({ fromIndex: 0, toIndex: 99 })) {
   *   if ('entry' in line) console.log(line.entry.eventType);
   * }
   * ```
   */
  async *export(query: ExportQuery = {}, options?: CallOptions): AsyncGenerator<ExportLine, void, undefined> {
    for await (const line of this.exportLines(query, options)) yield JSON.parse(line) as ExportLine;
  }

  /**
   * `GET /audit/witnesses`: the log's witnesses and quorum, each with `cosignedSize` (the tree size
   * it last cosigned) and `lastError` (why its last push failed, or null). Permission `tenant:admin`.
   *
   * @example
   * ```ts
   * const { witnesses } = await client.audit.witnesses();
   * const failing = witnesses.filter((w) => w.lastError !== null);
   * ```
   */
  witnesses(options?: CallOptions): Promise<WitnessConfig> {
    return this.expect({ route: R.getWitnesses, retry: 'safe', options });
  }

  /**
   * `PUT /audit/witnesses`: replace the log's witnesses and quorum (contract §15); each new
   * checkpoint is then pushed to them with a consistency proof and their cosignatures are served
   * with the checkpoint. Permission `tenant:admin`.
   *
   * @example
   * ```ts
   * await client.audit.setWitnesses({
   *   witnesses: [{ name: 'witness.example/w1', url: 'https://witness.example/w1', verifierKey }],
   *   quorum: 1,
   * });
   * ```
   */
  setWitnesses(request: WitnessConfigRequest, options?: CallOptions): Promise<WitnessConfig> {
    return this.expect({ route: R.setWitnesses, body: request, retry: 'safe', options });
  }

  /**
   * `POST /audit/verify-chain`: verify the chain (or an inclusive index range) and its checkpoints in the service.
   *
   * @example
   * ```ts
   * const { valid, brokenAt, reason } = await client.audit.verifyChain();
   * ```
   */
  verifyChain(range: VerifyChainRequest = {}, options?: CallOptions): Promise<ChainVerification> {
    return this.expect({ route: R.verifyChain, body: range, retry: 'safe', options });
  }

  /**
   * `POST /audit/acknowledge-break`: record the acknowledgement of an open chain break.
   *
   * @example
   * ```ts
   * await client.audit.acknowledgeBreak({ brokenAt: 41, note: 'restored from backup, see ticket 88' });
   * ```
   */
  acknowledgeBreak(request: AcknowledgeBreakRequest, options?: CallOptions): Promise<BreakAcknowledgement> {
    return this.expect({ route: R.acknowledgeBreak, body: request, retry: 'unprocessed', options });
  }

  /**
   * `GET /.well-known/authority/:tenantId/log-key`: the log's verifier key text (public). Pin it
   * once, out of band; never trust a key fetched next to the data it verifies.
   *
   * @example
   * ```ts
   * const logKey = await client.audit.logKey(); // 'audit.example.com/audit/acme+1a2b3c4d+AZ…'
   * ```
   */
  async logKey(options?: CallOptions): Promise<string> {
    const params = { tenantId: this.tenantId };
    const text = await this.expect<string>({ route: R.getLogKey, params, retry: 'safe', options });
    return text.replace(/\n$/, '');
  }

  /**
   * `GET /audit/:tenantId/checkpoint`: the signed checkpoint note of the current chain length.
   *
   * @example
   * ```ts
   * import { verifyCheckpoint } from '@authority-runtime/sdk';
   *
   * const outcome = verifyCheckpoint(await client.audit.checkpoint(), { logKey });
   * ```
   */
  checkpoint(options?: CallOptions): Promise<string> {
    return this.expect({
      route: R.getLogCheckpoint,
      params: { tenantId: this.tenantId },
      retry: 'safe',
      options,
    });
  }

  /**
   * `GET /audit/:tenantId/proof/inclusion`: the RFC 9162 audit path of entry `index` in the tree of
   * `treeSize` entries.
   *
   * @example
   * ```ts
   * const { leafHash, proof } = await client.audit.inclusionProof({ index: 41, treeSize: checkpoint.size });
   * ```
   */
  inclusionProof(query: InclusionProofQuery, options?: CallOptions): Promise<InclusionProof> {
    const params = { tenantId: this.tenantId };
    return this.expect({ route: R.getInclusionProof, params, query, retry: 'safe', options });
  }

  /**
   * `GET /audit/:tenantId/proof/consistency`: the RFC 9162 proof that the tree of `from` entries is
   * a prefix of the tree of `to` entries.
   *
   * @example
   * ```ts
   * const { proof } = await client.audit.consistencyProof({ from: old.size, to: latest.size });
   * ```
   */
  consistencyProof(query: ConsistencyProofQuery, options?: CallOptions): Promise<ConsistencyProof> {
    const params = { tenantId: this.tenantId };
    return this.expect({ route: R.getConsistencyProof, params, query, retry: 'safe', options });
  }
}
