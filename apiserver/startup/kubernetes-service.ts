/**
 * Start-up step "kubernetes-service": how pods find the API servers, as upstream's
 * kubernetesservice controller and lease endpoint reconciler (apiserver/services/kubernetes-service.ts):
 * the `kubernetes` Service in `default` and its Endpoints and EndpointSlice listing exactly the live
 * replicas, each replica renewing its own lease. Runs after bootstrap (it needs `default`), unless
 * --endpoint-reconciler-type=none or the core API is off. Stopping it (graceful shutdown) removes
 * this replica from the endpoints.
 */
import type { Logger } from 'pino';
import type { ApiServerConfig } from '../config.ts';
import type { Registry } from '../registry/registry.ts';
import { discoveryGroup } from '../../shared/api/endpointslice.ts';
import type { Storage } from '../storage/storage.ts';
import { defaultAdvertiseAddress } from '../services/advertise-address.ts';
import { KubernetesServiceController, masterLeaseTTLSeconds } from '../services/kubernetes-service.ts';
import { MasterLeases } from '../services/master-leases.ts';

export function startKubernetesService(
  config: ApiServerConfig,
  port: number,
  serviceIP: string,
  registry: Registry,
  storage: Storage,
  logger: Logger,
): KubernetesServiceController | undefined {
  if (config.endpointReconcilerType === 'none') return undefined;
  const services = registry.lookup('', 'v1', 'services')?.store;
  if (!services) return undefined;
  const publicIP = defaultAdvertiseAddress(config.advertiseAddress, config.bindAddress);
  const publicPort = config.advertisePort ?? port;
  const controller = new KubernetesServiceController({
    publicIP,
    publicPort,
    serviceIP,
    leases: new MasterLeases(storage, masterLeaseTTLSeconds),
    stores: {
      services,
      endpoints: registry.lookup('', 'v1', 'endpoints')?.store,
      endpointslices: registry.lookup(discoveryGroup, 'v1', 'endpointslices')?.store,
    },
    logger,
  });
  logger.info({ advertiseAddress: publicIP, advertisePort: publicPort, serviceIP }, 'keeping the kubernetes service');
  controller.start();
  return controller;
}
