import { v7 as uuidv7 } from 'uuid';
import { principalEvent } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { type EgressClient, EgressRefusedError, withoutQuery } from '../egress/egress-client.js';
import { AppError, validationError } from '../errors/app-error.js';
import type { Clock } from '../foundation/clock.js';
import { decodeIdCursor, encodeIdCursor } from '../foundation/cursor.js';
import type { Principal } from '../identity/principal.js';
import type { Executor, Storage } from '../storage/database.js';
import { deliveryRepository } from './delivery-repository.js';
import { endpointRepository } from './endpoint-repository.js';
import { ALL_EVENTS } from './events.js';
import {
  type DeliveryStatus,
  deliveryView,
  type EndpointStatus,
  endpointView,
  newWebhookSecret,
  secretContext,
  type WebhookDeliveryView,
  type WebhookEndpointView,
} from './webhook-views.js';

/** Endpoints per tenant: each event fans out to every one, so the fan-out stays bounded. */
export const MAX_ENDPOINTS_PER_TENANT = 20;
export const DELIVERIES_DEFAULT_LIMIT = 50;
export const DELIVERIES_MAX_LIMIT = 200;

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string | undefined;
}

export interface EndpointChange {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | null | undefined;
  status?: EndpointStatus | undefined;
}

export type EndpointWithSecret = WebhookEndpointView & { secret: string };

function checkEvents(events: readonly string[]): void {
  if (events.includes(ALL_EVENTS) && events.length > 1) {
    throw validationError([{ path: '/events', message: 'events is either ["*"] or a list of event kinds' }]);
  }
}

/**
 * Webhook endpoints (contract §7): create (the secret is shown once), list, change, delete, rotate
 * the secret (shown once again), list deliveries, redeliver. Every change commits with its audit
 * entry.
 */
export function createWebhookEndpoints(deps: {
  storage: Storage;
  clock: Clock;
  secretBox: SecretBox;
  egress: EgressClient;
}) {
  const { storage, clock, secretBox, egress } = deps;

  /** A URL the egress guard would let the worker reach; refused with 400 when saved otherwise. */
  async function checkUrl(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw validationError([{ path: '/url', message: 'url must be an absolute http or https URL' }]);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw validationError([{ path: '/url', message: 'url must be an absolute http or https URL' }]);
    }
    if (url.username !== '' || url.password !== '') {
      throw validationError([{ path: '/url', message: 'url must not carry a user name or password' }]);
    }
    try {
      await egress.checkTarget(url.href);
    } catch (error) {
      const message =
        error instanceof EgressRefusedError
          ? 'url points to a private, loopback or link-local address; the operator can allow it with EGRESS_ALLOW_CIDRS or ALLOW_PRIVATE_EGRESS'
          : 'the host of url could not be resolved';
      throw validationError([{ path: '/url', message }]);
    }
    return url.href;
  }

  async function lockedEndpoint(trx: Executor, tenantId: string, id: string) {
    const row = await endpointRepository.get(trx, tenantId, id, { forUpdate: true });
    if (!row) throw new AppError('NOT_FOUND', 'No such webhook endpoint');
    return row;
  }

  async function existingEndpoint(tenantId: string, id: string) {
    const row = await endpointRepository.get(storage.db, tenantId, id);
    if (!row) throw new AppError('NOT_FOUND', 'No such webhook endpoint');
    return row;
  }

  return {
    async create(tenantId: string, principal: Principal, input: EndpointInput): Promise<EndpointWithSecret> {
      checkEvents(input.events);
      const url = await checkUrl(input.url);
      const id = uuidv7();
      const secret = newWebhookSecret();
      const now = clock();
      const row = {
        tenant_id: tenantId,
        id,
        url,
        events: JSON.stringify(input.events),
        description: input.description ?? null,
        status: 'active',
        secret: secretBox.seal(secret, secretContext(tenantId, id)),
        disabled_reason: null,
        created_at: now,
        updated_at: now,
      };
      await storage.writeTransaction(async (trx) => {
        // The head lock serializes concurrent creates (PostgreSQL reads the count without one).
        await chainRepository.lockHead(trx, tenantId, now);
        const count = await endpointRepository.count(trx, tenantId);
        if (count >= MAX_ENDPOINTS_PER_TENANT) {
          throw new AppError(
            'CONFLICT',
            `A tenant has at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints`,
            {
              limit: MAX_ENDPOINTS_PER_TENANT,
            },
          );
        }
        await endpointRepository.insert(trx, row);
        await chainRepository.append(
          trx,
          tenantId,
          [
            principalEvent(principal, 'webhook.created', {
              webhookId: id,
              url: withoutQuery(url),
              events: input.events,
              description: row.description,
            }),
          ],
          now,
        );
      });
      return { ...endpointView(row), secret };
    },

    async list(tenantId: string): Promise<WebhookEndpointView[]> {
      const rows = await endpointRepository.list(storage.db, tenantId);
      return rows.map(endpointView);
    },

    async get(tenantId: string, id: string): Promise<WebhookEndpointView> {
      return endpointView(await existingEndpoint(tenantId, id));
    },

    async update(
      tenantId: string,
      principal: Principal,
      id: string,
      change: EndpointChange,
    ): Promise<WebhookEndpointView> {
      if (change.events !== undefined) checkEvents(change.events);
      const url = change.url === undefined ? undefined : await checkUrl(change.url);
      const now = clock();
      return storage.writeTransaction(async (trx) => {
        const before = await lockedEndpoint(trx, tenantId, id);
        const status = change.status ?? (before.status as EndpointStatus);
        const set = {
          url: url ?? before.url,
          events: change.events === undefined ? before.events : JSON.stringify(change.events),
          description: change.description === undefined ? before.description : change.description,
          status,
          disabled_reason:
            change.status === undefined
              ? before.disabled_reason
              : status === 'disabled'
                ? 'disabled by a user'
                : null,
          updated_at: now,
        };
        await endpointRepository.update(trx, tenantId, id, set);
        await chainRepository.append(
          trx,
          tenantId,
          [
            principalEvent(principal, 'webhook.updated', {
              webhookId: id,
              url: withoutQuery(set.url),
              events: JSON.parse(set.events) as string[],
              description: set.description,
              status,
              previousStatus: before.status,
            }),
          ],
          now,
        );
        return endpointView({ ...before, ...set });
      });
    },

    /** Deletes the endpoint with its deliveries; deliveries still queued are dropped. */
    async remove(tenantId: string, principal: Principal, id: string): Promise<void> {
      const now = clock();
      await storage.writeTransaction(async (trx) => {
        const before = await lockedEndpoint(trx, tenantId, id);
        await deliveryRepository.deleteForEndpoint(trx, tenantId, id);
        await endpointRepository.delete(trx, tenantId, id);
        await chainRepository.append(
          trx,
          tenantId,
          [principalEvent(principal, 'webhook.deleted', { webhookId: id, url: withoutQuery(before.url) })],
          now,
        );
      });
    },

    /** A new secret, effective for every attempt from now on (queued ones included); shown once. */
    async rotateSecret(tenantId: string, principal: Principal, id: string): Promise<EndpointWithSecret> {
      const secret = newWebhookSecret();
      const now = clock();
      return storage.writeTransaction(async (trx) => {
        const before = await lockedEndpoint(trx, tenantId, id);
        const sealed = secretBox.seal(secret, secretContext(tenantId, id));
        await endpointRepository.update(trx, tenantId, id, { secret: sealed, updated_at: now });
        await chainRepository.append(
          trx,
          tenantId,
          [principalEvent(principal, 'webhook.secret.rotated', { webhookId: id })],
          now,
        );
        return { ...endpointView(before), secret };
      });
    },

    /** An endpoint's deliveries, newest first, with keyset pagination. */
    async deliveries(
      tenantId: string,
      id: string,
      query: { status?: DeliveryStatus | undefined; limit?: number | undefined; cursor?: string | undefined },
    ): Promise<{ deliveries: WebhookDeliveryView[]; nextCursor: string | null }> {
      const limit = Math.min(query.limit ?? DELIVERIES_DEFAULT_LIMIT, DELIVERIES_MAX_LIMIT);
      const before = decodeIdCursor(query.cursor);
      await existingEndpoint(tenantId, id);
      const rows = await deliveryRepository.list(storage.db, tenantId, id, {
        status: query.status,
        before,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        deliveries: page.map(deliveryView),
        nextCursor: rows.length > limit && last ? encodeIdCursor(last.id) : null,
      };
    },

    /**
     * Queues the delivery's event again as a new delivery (same eventId, fresh attempts), due at
     * once; the original keeps its history. 409 when the endpoint is disabled.
     */
    async redeliver(
      tenantId: string,
      principal: Principal,
      id: string,
      deliveryId: string,
    ): Promise<WebhookDeliveryView> {
      const now = clock();
      return storage.writeTransaction(async (trx) => {
        const endpoint = await lockedEndpoint(trx, tenantId, id);
        const source = await deliveryRepository.get(trx, tenantId, id, deliveryId);
        if (!source) throw new AppError('NOT_FOUND', 'No such delivery');
        if (endpoint.status !== 'active') {
          throw new AppError('CONFLICT', 'The webhook endpoint is disabled', { status: endpoint.status });
        }
        const row = {
          ...source,
          id: uuidv7(),
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          last_status_code: null,
          last_error: null,
          lease_token: null,
          lease_until: null,
          created_at: now,
          updated_at: now,
        };
        await deliveryRepository.insert(trx, [row]);
        await chainRepository.append(
          trx,
          tenantId,
          [
            principalEvent(principal, 'webhook.redelivered', {
              webhookId: id,
              deliveryId: row.id,
              sourceDeliveryId: source.id,
              eventId: source.event_id,
            }),
          ],
          now,
        );
        return deliveryView(row);
      });
    },
  };
}

export type WebhookEndpoints = ReturnType<typeof createWebhookEndpoints>;
