import type {
  AuthorityActor,
  AuthorityActorRequest,
  FloorRequest,
  FloorSetting,
  InstalledPacks,
  KillSwitch,
  KillSwitchRequest,
  PackInstallRequest,
  PackInstallResponse,
  PolicyPack,
  PolicySaveRequest,
  PolicyVersion,
  Thresholds,
  ThresholdsUpdate,
} from '../wire/policy.js';
import type {
  PolicyReviewRequest,
  PolicyReviewSetting,
  PolicyReviewSettingRequest,
  SimulationRequest,
  SimulationResult,
} from '../wire/policy-review.js';
import { WIRE_ROUTES as R } from '../wire/routes.js';
import type { IpAllowlistRequest, Tenant } from '../wire/tenant.js';
import { Resource } from './resource.js';
import type { CallOptions } from './transport.js';

/** Policy versions and packs of the intent surface (contract §4.5). */
export class PoliciesResource extends Resource {
  /**
   * `GET /authority/policy`: the active version (the starter pack until changed).
   *
   * @example
   * ```ts
   * const { version, rules } = await client.policies.active();
   * ```
   */
  active(options?: CallOptions): Promise<PolicyVersion> {
    return this.expect({ route: R.getPolicy, retry: 'safe', options });
  }

  /**
   * `GET /authority/policy/versions`: every version, newest first.
   *
   * @example
   * ```ts
   * const versions = await client.policies.versions();
   * ```
   */
  async versions(options?: CallOptions): Promise<PolicyVersion[]> {
    const list = await this.expect<{ versions: PolicyVersion[] }>({
      route: R.listPolicyVersions,
      retry: 'safe',
      options,
    });
    return list.versions;
  }

  /**
   * `POST /authority/policy`: a new version (validated; pack rules kept unless `replacePacks`);
   * `activate` defaults to false.
   *
   * @example
   * ```ts
   * await client.policies.save({
   *   rules: [{ id: 'allow-reads', effect: 'ALLOW', conditions: { all: [{ path: 'risk.operation_type', op: 'EQ', value: 'read' }] } }],
   *   activate: true,
   * });
   * ```
   */
  save(request: PolicySaveRequest, options?: CallOptions): Promise<PolicyVersion> {
    return this.expect({ route: R.savePolicy, body: request, retry: 'unprocessed', options }, [201]);
  }

  /**
   * `POST /authority/policy/versions/:version/activate`: make a stored version the active one (also a rollback).
   *
   * @example
   * ```ts
   * await client.policies.activate(3);
   * ```
   */
  activate(version: number, options?: CallOptions): Promise<PolicyVersion> {
    return this.expect({ route: R.activatePolicyVersion, params: { version }, retry: 'safe', options });
  }

  /**
   * `POST /authority/policy/simulate`: replay recent intents against a draft or a stored version;
   * decides nothing, mints nothing.
   *
   * @example
   * ```ts
   * const { transitions } = await client.policies.simulate({ rules, sample: { limit: 5000 } });
   * ```
   */
  simulate(request: SimulationRequest, options?: CallOptions): Promise<SimulationResult> {
    return this.expect({ route: R.simulatePolicy, body: request, retry: 'safe', options });
  }

  /**
   * `POST /authority/policy/versions/:version/reviews`: approve or reject a version (never your own).
   *
   * @example
   * ```ts
   * await client.policies.review(4, { decision: 'approve', comment: 'replayed last week: 2 changes, both intended' });
   * ```
   */
  review(version: number, request: PolicyReviewRequest, options?: CallOptions): Promise<PolicyVersion> {
    return this.expect(
      { route: R.reviewPolicyVersion, params: { version }, body: request, retry: 'unprocessed', options },
      [201],
    );
  }

  /**
   * `PUT /authority/policy-review/:tenantId`: require review of new versions (owner only).
   *
   * @example
   * ```ts
   * await client.policies.setReview({ required: true, approvals: 2 });
   * ```
   */
  setReview(request: PolicyReviewSettingRequest, options?: CallOptions): Promise<PolicyReviewSetting> {
    const params = { tenantId: this.tenantId };
    return this.expect({ route: R.setPolicyReview, params, body: request, retry: 'safe', options });
  }

  /**
   * `GET /policy-packs`: the catalog.
   *
   * @example
   * ```ts
   * const packs = await client.policies.packs();
   * ```
   */
  async packs(options?: CallOptions): Promise<PolicyPack[]> {
    const list = await this.expect<{ packs: PolicyPack[] }>({
      route: R.listPolicyPacks,
      retry: 'safe',
      options,
    });
    return list.packs;
  }

  /**
   * `POST /policy-packs/install`: a new version with the pack's rules (`activate` defaults to true).
   *
   * @example
   * ```ts
   * const { policy } = await client.policies.installPack({ pack: 'github-safe-merge' });
   * ```
   */
  installPack(request: PackInstallRequest, options?: CallOptions): Promise<PackInstallResponse> {
    return this.expect({ route: R.installPolicyPack, body: request, retry: 'unprocessed', options }, [201]);
  }

  /**
   * `GET /policy-packs/installed`: the packs in the active version.
   *
   * @example
   * ```ts
   * const { packs } = await client.policies.installedPacks();
   * ```
   */
  installedPacks(options?: CallOptions): Promise<InstalledPacks> {
    return this.expect({ route: R.listInstalledPacks, retry: 'safe', options });
  }
}

/** Risk thresholds, modifiers and TTLs (contract §4.4). */
export class ThresholdsResource extends Resource {
  /**
   * `GET /authority/thresholds/:tenantId`.
   *
   * @example
   * ```ts
   * const { escalateAt, denyAt } = await client.thresholds.get();
   * ```
   */
  get(options?: CallOptions): Promise<Thresholds> {
    return this.expect({
      route: R.getThresholds,
      params: { tenantId: this.tenantId },
      retry: 'safe',
      options,
    });
  }

  /**
   * `PUT /authority/thresholds/:tenantId`: change some fields; the merged record is validated.
   *
   * @example
   * ```ts
   * await client.thresholds.update({ escalateAt: 50, modifiers: { production: 30 } });
   * ```
   */
  update(change: ThresholdsUpdate, options?: CallOptions): Promise<Thresholds> {
    return this.expect({
      route: R.updateThresholds,
      params: { tenantId: this.tenantId },
      body: change,
      retry: 'safe',
      options,
    });
  }
}

/** The tenant and its controls: kill switch, catastrophic floor, actor list, IP allowlist (contract §2, §4.5). */
export class TenantResource extends Resource {
  /**
   * `GET /tenant`: the calling credential's tenant.
   *
   * @example
   * ```ts
   * const { plan, killSwitch } = await client.tenant.get();
   * ```
   */
  get(options?: CallOptions): Promise<Tenant> {
    return this.expect({ route: R.getTenant, retry: 'safe', options });
  }

  /**
   * `PUT /tenant/ip-allowlist`: replace the allowlist (empty allows all).
   *
   * @example
   * ```ts
   * await client.tenant.setIpAllowlist({ cidrs: ['203.0.113.0/24'] });
   * ```
   */
  setIpAllowlist(request: IpAllowlistRequest, options?: CallOptions): Promise<Tenant> {
    return this.expect({ route: R.setIpAllowlist, body: request, retry: 'safe', options });
  }

  /**
   * `PUT /authority/kill-switch/:tenantId`: on, every intent is DENIED at gate `kill_switch`.
   *
   * @example
   * ```ts
   * await client.tenant.setKillSwitch({ enabled: true, reason: 'incident 4711' });
   * ```
   */
  setKillSwitch(request: KillSwitchRequest, options?: CallOptions): Promise<KillSwitch> {
    const params = { tenantId: this.tenantId };
    return this.expect({ route: R.setKillSwitch, params, body: request, retry: 'safe', options });
  }

  /**
   * `PUT /authority/floor/:tenantId`: disable (with the agreement version) or re-enable the catastrophic floor; owner only.
   *
   * @example
   * ```ts
   * await client.tenant.setFloor({ enabled: true });
   * ```
   */
  setFloor(request: FloorRequest, options?: CallOptions): Promise<FloorSetting> {
    const params = { tenantId: this.tenantId };
    return this.expect({ route: R.setFloor, params, body: request, retry: 'safe', options });
  }

  /**
   * `GET /authority/actors`: the actor list (blocked actors are DENIED at gate `rbac`).
   *
   * @example
   * ```ts
   * const blocked = (await client.tenant.actors()).filter((a) => a.status === 'blocked');
   * ```
   */
  async actors(options?: CallOptions): Promise<AuthorityActor[]> {
    const list = await this.expect<{ actors: AuthorityActor[] }>({
      route: R.listAuthorityActors,
      retry: 'safe',
      options,
    });
    return list.actors;
  }

  /**
   * `PUT /authority/actors/:actorId`: block or re-activate an actor.
   *
   * @example
   * ```ts
   * await client.tenant.setActor('deploy-bot', { status: 'blocked', reason: 'leaked key' });
   * ```
   */
  setActor(actorId: string, request: AuthorityActorRequest, options?: CallOptions): Promise<AuthorityActor> {
    return this.expect({
      route: R.setAuthorityActor,
      params: { actorId },
      body: request,
      retry: 'safe',
      options,
    });
  }
}
