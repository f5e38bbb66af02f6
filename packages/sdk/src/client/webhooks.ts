import { WIRE_ROUTES as R } from '../wire/routes.js';
import type {
  DeliveryList,
  DeliveryListQuery,
  WebhookCreateRequest,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookUpdateRequest,
} from '../wire/webhooks.js';
import { nextCursorOf, PagedList } from './paged-list.js';
import { Resource } from './resource.js';
import type { CallOptions } from './transport.js';

/** Webhook endpoints and their deliveries (contract §7). */
export class WebhooksResource extends Resource {
  /**
   * `POST /webhooks`: register an endpoint; its `secret` (`whsec_…`) is in this answer only.
   *
   * @example
   * ```ts
   * const { id, secret } = await client.webhooks.create({ url: 'https://hooks.example.com/authority', events: ['*'] });
   * ```
   */
  create(request: WebhookCreateRequest, options?: CallOptions): Promise<WebhookEndpointWithSecret> {
    return this.expect({ route: R.createWebhook, body: request, retry: 'unprocessed', options }, [201]);
  }

  /**
   * `GET /webhooks`: the tenant's endpoints.
   *
   * @example
   * ```ts
   * const endpoints = await client.webhooks.list();
   * ```
   */
  async list(options?: CallOptions): Promise<WebhookEndpoint[]> {
    const list = await this.expect<{ webhooks: WebhookEndpoint[] }>({
      route: R.listWebhooks,
      retry: 'safe',
      options,
    });
    return list.webhooks;
  }

  /**
   * `GET /webhooks/:id`.
   *
   * @example
   * ```ts
   * const endpoint = await client.webhooks.get(webhookId);
   * ```
   */
  get(webhookId: string, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.expect({ route: R.getWebhook, params: { id: webhookId }, retry: 'safe', options });
  }

  /**
   * `PATCH /webhooks/:id`: change the URL, events, description or status.
   *
   * @example
   * ```ts
   * await client.webhooks.update(webhookId, { status: 'active' });
   * ```
   */
  update(webhookId: string, change: WebhookUpdateRequest, options?: CallOptions): Promise<WebhookEndpoint> {
    // Setting the same fields twice leaves the same endpoint: safe to retry.
    return this.expect({
      route: R.updateWebhook,
      params: { id: webhookId },
      body: change,
      retry: 'safe',
      options,
    });
  }

  /**
   * `DELETE /webhooks/:id`.
   *
   * @example
   * ```ts
   * await client.webhooks.remove(webhookId);
   * ```
   */
  async remove(webhookId: string, options?: CallOptions): Promise<void> {
    await this.expect({ route: R.deleteWebhook, params: { id: webhookId }, retry: 'safe', options }, [204]);
  }

  /**
   * `POST /webhooks/:id/rotate-secret`: a new secret, in this answer only.
   *
   * @example
   * ```ts
   * const { secret } = await client.webhooks.rotateSecret(webhookId);
   * ```
   */
  rotateSecret(webhookId: string, options?: CallOptions): Promise<WebhookEndpointWithSecret> {
    const params = { id: webhookId };
    return this.expect({ route: R.rotateWebhookSecret, params, retry: 'unprocessed', options });
  }

  /**
   * `GET /webhooks/:id/deliveries`, newest first: await it for a page, iterate it for every delivery.
   *
   * @example
   * ```ts
   * for await (const delivery of client.webhooks.deliveries(webhookId, { status: 'dead' })) {
   *   await client.webhooks.redeliver(webhookId, delivery.id);
   * }
   * ```
   */
  deliveries(
    webhookId: string,
    query: DeliveryListQuery = {},
    options?: CallOptions,
  ): PagedList<WebhookDelivery, DeliveryList> {
    return new PagedList(
      (cursor) =>
        this.expect<DeliveryList>({
          route: R.listWebhookDeliveries,
          params: { id: webhookId },
          query: { ...query, cursor: cursor ?? query.cursor },
          retry: 'safe',
          options,
        }),
      (page) => page.deliveries,
      nextCursorOf,
    );
  }

  /**
   * `POST /webhooks/:id/deliveries/:deliveryId/redeliver`: the same event again (same `eventId`), due at once.
   *
   * @example
   * ```ts
   * const queued = await client.webhooks.redeliver(webhookId, deliveryId);
   * ```
   */
  redeliver(webhookId: string, deliveryId: string, options?: CallOptions): Promise<WebhookDelivery> {
    const params = { id: webhookId, deliveryId };
    return this.expect({ route: R.redeliverWebhookDelivery, params, retry: 'unprocessed', options }, [202]);
  }
}
