import type { Connector, ConnectorCreateRequest, ConnectorTestResult } from '../wire/connectors.js';
import { WIRE_ROUTES as R } from '../wire/routes.js';
import { Resource } from './resource.js';
import type { CallOptions } from './transport.js';

/** Connectors: the adapters that execute approved intents (contract §8). */
export class ConnectorsResource extends Resource {
  /**
   * `POST /connectors`: one per target system; its `id` becomes the `adapterId` of the target's tokens.
   *
   * @example
   * ```ts
   * const connector = await client.connectors.create({
   *   type: 'http',
   *   name: 'payments deployer',
   *   targetSystem: 'acme/payments',
   *   config: { url: 'https://deployer.internal/execute' },
   *   autoExecute: true,
   * });
   * ```
   */
  create(request: ConnectorCreateRequest, options?: CallOptions): Promise<Connector> {
    return this.expect({ route: R.createConnector, body: request, retry: 'unprocessed', options }, [201]);
  }

  /**
   * `GET /connectors`: with their health, never their secrets.
   *
   * @example
   * ```ts
   * const down = (await client.connectors.list()).filter((c) => c.status === 'down');
   * ```
   */
  async list(options?: CallOptions): Promise<Connector[]> {
    const list = await this.expect<{ connectors: Connector[] }>({
      route: R.listConnectors,
      retry: 'safe',
      options,
    });
    return list.connectors;
  }

  /**
   * `DELETE /connectors/:id`.
   *
   * @example
   * ```ts
   * await client.connectors.remove(connectorId);
   * ```
   */
  async remove(connectorId: string, options?: CallOptions): Promise<void> {
    await this.expect(
      { route: R.deleteConnector, params: { id: connectorId }, retry: 'safe', options },
      [204],
    );
  }

  /**
   * `POST /connectors/:id/test`: one real round trip now.
   *
   * @example
   * ```ts
   * const { ok, latencyMs, error } = await client.connectors.test(connectorId);
   * ```
   */
  test(connectorId: string, options?: CallOptions): Promise<ConnectorTestResult> {
    return this.expect({ route: R.testConnector, params: { id: connectorId }, retry: 'safe', options });
  }
}
