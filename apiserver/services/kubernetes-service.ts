/**
 * The `kubernetes` Service in `default` and its endpoints, kept by every replica as upstream's
 * kubernetesservice controller and lease endpoint reconciler keep them:
 *
 * - the Service: port `https` 443 → the secure port, TCP, ClusterIP, the first address of the
 *   service range, labels component=apiserver and provider=kubernetes; created when missing, and
 *   its ports and type reset when someone changed them;
 * - the leases: each replica renews `<prefix>/masterleases/<advertise address>` under a time to live
 *   (master-leases.ts); the storage expires the key of a replica that stopped;
 * - the Endpoints `kubernetes` (label endpointslice.kubernetes.io/skip-mirror=true): one subset
 *   listing exactly the addresses of the unexpired leases, with the `https` port; rewritten when
 *   its addresses, ports or format differ (upstream's checkEndpointSubsetFormatWithLease). An empty
 *   lease list is taken for a storage problem: upstream refuses to erase every endpoint then;
 * - the EndpointSlice `kubernetes` (label kubernetes.io/service-name=kubernetes), made from the
 *   Endpoints as upstream's EndpointsAdapter makes it.
 *
 * Every interval (upstream: 10 s) one sync does all of it; on graceful shutdown the replica removes
 * its lease and reconciles once more, dropping itself from the endpoints. Writes go through the
 * registry as system:apiserver, validation and admission included.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { Endpoints, EndpointPort } from '../../shared/api/endpoints.ts';
import { discoveryGroup, serviceNameLabel, type EndpointSlice } from '../../shared/api/endpointslice.ts';
import { isStatusError } from '../../shared/api/errors.ts';
import type { Service, ServicePort } from '../../shared/api/service.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import type { RequestContext } from '../registry/definition.ts';
import type { GenericStore } from '../registry/store.ts';
import type { MasterLeases } from './master-leases.ts';

export const kubernetesServiceName = 'kubernetes';
const namespace = 'default';
/** The Endpoints label keeping the EndpointSlice mirroring controller away (upstream's discovery.LabelSkipMirror). */
export const skipMirrorLabel = 'endpointslice.kubernetes.io/skip-mirror';
/** upstream's DefaultEndpointReconcilerInterval and DefaultEndpointReconcilerTTL. */
export const endpointReconcileIntervalMs = 10_000;
export const masterLeaseTTLSeconds = 15;

const apiserverUser = { username: 'system:apiserver', groups: ['system:masters'] };
const context = (): RequestContext => ({ user: apiserverUser, now: new Date() });
const writeOptions = { dryRun: false, manager: 'kube-apiserver' };

type Stores = Record<'services' | 'endpoints' | 'endpointslices', Pick<GenericStore, 'get' | 'create' | 'update' | 'delete'> | undefined>;

export interface KubernetesServiceOptions {
  /** The replica's --advertise-address. */
  publicIP: string;
  /** The secure port: the service's target port and the endpoints' port. */
  publicPort: number;
  /** The first address of --service-cluster-ip-range. */
  serviceIP: string;
  leases: MasterLeases;
  stores: Stores;
  logger: Logger;
  intervalMs?: number;
}

async function getOrUndefined<T extends KubeObject>(store: Pick<GenericStore, 'get'>, name: string): Promise<T | undefined> {
  try {
    return (await store.get(namespace, name)) as T;
  } catch (err) {
    if (isStatusError(err, 'NotFound')) return undefined;
    throw err;
  }
}

/** upstream's endpointSliceFromEndpoints (single stack: one subset at most). */
export function endpointSliceFromEndpoints(endpoints: Endpoints): EndpointSlice {
  const subset = endpoints.subsets?.[0];
  const addresses = [...(subset?.addresses ?? []), ...(subset?.notReadyAddresses ?? [])];
  const ipv6 = addresses.length > 0 && addresses.every((a) => (a.ip ?? '').includes(':'));
  const endpoint = (ip: string, ready: boolean): NonNullable<EndpointSlice['endpoints']>[number] => ({ addresses: [ip], conditions: { ready } });
  return {
    apiVersion: `${discoveryGroup}/v1`,
    kind: 'EndpointSlice',
    metadata: { name: endpoints.metadata.name ?? '', namespace, labels: { [serviceNameLabel]: endpoints.metadata.name ?? '' } },
    addressType: ipv6 ? 'IPv6' : 'IPv4',
    endpoints: [
      ...(subset?.addresses ?? []).map((a) => endpoint(a.ip ?? '', true)),
      ...(subset?.notReadyAddresses ?? []).map((a) => endpoint(a.ip ?? '', false)),
    ],
    ports: (subset?.ports ?? []).map((p) => ({ name: p.name ?? '', protocol: p.protocol ?? 'TCP', port: p.port ?? 0 })),
  };
}

export class KubernetesServiceController {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: KubernetesServiceOptions) {}

  private get servicePorts(): ServicePort[] {
    return [{ name: 'https', protocol: 'TCP', port: 443, targetPort: this.options.publicPort }];
  }

  private get endpointPorts(): EndpointPort[] {
    return [{ name: 'https', port: this.options.publicPort, protocol: 'TCP' }];
  }

  /** Syncs now, then every interval until stopped; a failed sync is logged and tried again at the next. */
  start(): void {
    const tick = (): void => {
      this.running = this.sync()
        .catch((err: unknown) => this.options.logger.warn({ err }, 'reconciling the kubernetes service failed'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.options.intervalMs ?? endpointReconcileIntervalMs);
        });
    };
    tick();
  }

  /** Stops syncing, removes this replica's lease and drops it from the endpoints (graceful shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    try {
      await this.options.leases.remove(this.options.publicIP);
      await this.reconcileEndpoints();
    } catch (err) {
      // The last replica to stop always ends here (the endpoints are never emptied): a message, not a stack.
      this.options.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'unable to remove endpoints from kubernetes service');
    }
  }

  /** One round: the Service, this replica's lease, the Endpoints and the EndpointSlice. */
  async sync(): Promise<void> {
    await this.ensureService();
    await this.options.leases.update(this.options.publicIP);
    await this.reconcileEndpoints();
  }

  /** upstream's CreateOrUpdateMasterServiceIfNeeded with reconcile on. */
  async ensureService(): Promise<void> {
    const store = this.options.stores.services;
    if (!store) return;
    const existing = await getOrUndefined<Service>(store, kubernetesServiceName);
    if (existing) {
      const ports = existing.spec?.ports ?? [];
      const wanted = this.servicePorts[0]!;
      const correct =
        ports.length === 1 &&
        ports[0]?.name === wanted.name &&
        ports[0]?.port === wanted.port &&
        ports[0]?.protocol === wanted.protocol &&
        ports[0]?.targetPort === wanted.targetPort &&
        existing.spec?.type === 'ClusterIP';
      if (correct) return;
      this.options.logger.warn({ service: kubernetesServiceName }, 'resetting the kubernetes service');
      const reset = structuredClone(existing);
      reset.spec = { ...reset.spec, ports: this.servicePorts, type: 'ClusterIP' };
      await store.update(namespace, kubernetesServiceName, '', { replacement: () => structuredClone(reset) }, context(), writeOptions);
      return;
    }
    const service: Service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: kubernetesServiceName, namespace, labels: { provider: 'kubernetes', component: 'apiserver' } },
      spec: { ports: this.servicePorts, clusterIP: this.options.serviceIP, ipFamilyPolicy: 'SingleStack', sessionAffinity: 'None', type: 'ClusterIP' },
    };
    try {
      await store.create(namespace, service, context(), writeOptions);
    } catch (err) {
      // Another replica created it meanwhile (replicas start together): its create took the
      // service address first, so ours failed on the address (Invalid) or on the name.
      if (isStatusError(err, 'AlreadyExists') || (await getOrUndefined<Service>(store, kubernetesServiceName))) return;
      throw err;
    }
  }

  /** upstream's leaseEndpointReconciler.doReconcile with ports reconciled, then the EndpointSlice. */
  async reconcileEndpoints(): Promise<void> {
    const store = this.options.stores.endpoints;
    if (!store) return;
    const existing = await getOrUndefined<Endpoints>(store, kubernetesServiceName);
    const ips = await this.options.leases.list();
    if (ips.length === 0) throw new Error('no API server IP addresses were listed in storage, refusing to erase all endpoints for the kubernetes Service');
    const endpoints: Endpoints = existing
      ? structuredClone(existing)
      : { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: kubernetesServiceName, namespace } };
    const labels = (endpoints.metadata.labels ??= {});
    const mirrorChanged = labels[skipMirrorLabel] !== 'true';
    labels[skipMirrorLabel] = 'true';
    const subsets = endpoints.subsets ?? [];
    const formatCorrect = subsets.length === 1 && (subsets[0]?.notReadyAddresses ?? []).length === 0;
    const addresses = (subsets[0]?.addresses ?? []).map((a) => a.ip);
    const ipsCorrect = formatCorrect && isDeepStrictEqual([...addresses].sort(), [...ips].sort()) && addresses.length === ips.length;
    const portsCorrect = formatCorrect && isDeepStrictEqual(subsets[0]?.ports ?? [], this.endpointPorts);
    if (existing && !mirrorChanged && ipsCorrect && portsCorrect) {
      await this.ensureEndpointSlice(existing);
      return;
    }
    endpoints.subsets = [{ addresses: ips.map((ip) => ({ ip })), ports: this.endpointPorts }];
    if (existing) {
      this.options.logger.info({ addresses: ips }, 'resetting the endpoints of the kubernetes service');
      delete endpoints.metadata.resourceVersion;
      const written = await store.update(namespace, kubernetesServiceName, '', { replacement: () => structuredClone(endpoints) }, context(), writeOptions);
      await this.ensureEndpointSlice(written.object);
      return;
    }
    try {
      await store.create(namespace, endpoints, context(), writeOptions);
    } catch (err) {
      if (!isStatusError(err, 'AlreadyExists')) throw err;
    }
    await this.ensureEndpointSlice(endpoints);
  }

  /** upstream's EnsureEndpointSliceFromEndpoints: create, update, or replace when the address type changed. */
  private async ensureEndpointSlice(endpoints: Endpoints): Promise<void> {
    const store = this.options.stores.endpointslices;
    if (!store) return;
    const wanted = endpointSliceFromEndpoints(endpoints);
    const current = await getOrUndefined<EndpointSlice>(store, kubernetesServiceName);
    if (!current) {
      try {
        await store.create(namespace, wanted, context(), writeOptions);
      } catch (err) {
        if (!isStatusError(err, 'AlreadyExists')) throw err;
      }
      return;
    }
    const same =
      isDeepStrictEqual(current.endpoints ?? [], wanted.endpoints) &&
      isDeepStrictEqual(current.ports ?? [], wanted.ports) &&
      current.metadata.labels?.[serviceNameLabel] === kubernetesServiceName;
    if (same && current.addressType === wanted.addressType) return;
    if (current.addressType !== wanted.addressType) {
      await store.delete(namespace, kubernetesServiceName, context(), { dryRun: false });
      await store.create(namespace, wanted, context(), writeOptions);
      return;
    }
    const updated: EndpointSlice = { ...structuredClone(current), endpoints: wanted.endpoints ?? [], ports: wanted.ports ?? [] };
    updated.metadata.labels = { ...current.metadata.labels, [serviceNameLabel]: kubernetesServiceName };
    delete updated.metadata.resourceVersion;
    await store.update(namespace, kubernetesServiceName, '', { replacement: () => structuredClone(updated) }, context(), writeOptions);
  }
}
