/**
 * The cluster IPs and node ports of Services (upstream's RESTAllocStuff: allocateCreate,
 * allocateUpdate, releaseAllocatedResources) as the generic store's ExternalAllocation: a service
 * that holds a cluster IP gets the one it asks for or a free one, NodePort and LoadBalancer
 * services get their node ports likewise, each with upstream's errors; what a write stops holding
 * (a deletion, a change to ExternalName or ClusterIP) is freed once it is stored. Single stack: one
 * cluster IP per service. Dry runs check requested values without reserving and leave the others
 * unset.
 */
import { internalError, invalid as invalidStatus } from '../../../../shared/api/errors.ts';
import { FieldPath, invalid, type FieldError } from '../../../../shared/api/field.ts';
import { isHeadless, type Service } from '../../../../shared/api/service.ts';
import type { ExternalAllocation } from '../../definition.ts';
import type { ClusterIPAllocator } from '../../../services/cluster-ip-allocator.ts';
import type { NodePortAllocator } from '../../../services/node-port-allocator.ts';
import { goStringSlice } from '../../../../shared/validation/service.ts';

export interface ServiceAllocators {
  clusterIPs: ClusterIPAllocator;
  nodePorts: NodePortAllocator;
}

const serviceKind = { group: '', kind: 'Service' };

/** The cluster IP a service holds, if any. */
function heldClusterIP(svc: Service | undefined): string | undefined {
  if (!svc || svc.spec?.type === 'ExternalName' || isHeadless(svc)) return undefined;
  return svc.spec?.clusterIPs?.[0] ?? (svc.spec?.clusterIP || undefined);
}

/** Types whose ports hold node ports (LoadBalancer unless allocateLoadBalancerNodePorts is false). */
function holdsNodePorts(svc: Service | undefined): boolean {
  const type = svc?.spec?.type;
  return type === 'NodePort' || (type === 'LoadBalancer' && svc?.spec?.allocateLoadBalancerNodePorts !== false);
}

function heldNodePorts(svc: Service | undefined): Set<number> {
  const ports = new Set<number>();
  if (!holdsNodePorts(svc)) return ports;
  for (const port of svc?.spec?.ports ?? []) if (port.nodePort) ports.add(port.nodePort);
  return ports;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function invalidService(svc: Service, errors: FieldError[]): never {
  throw invalidStatus(serviceKind, svc.metadata.name ?? '', errors);
}

export function serviceAllocation(allocators: ServiceAllocators): ExternalAllocation<Service> {
  const { clusterIPs, nodePorts } = allocators;
  return {
    async reserve(svc, old, dryRun) {
      const taken: (() => Promise<void>)[] = [];
      const undo = async (): Promise<void> => {
        for (const release of taken.reverse()) await release();
      };
      try {
        const spec = (svc.spec ??= {});
        if (svc.spec.type !== 'ExternalName' && !isHeadless(svc) && !heldClusterIP(old)) {
          const requested = spec.clusterIP;
          if (requested) {
            try {
              if (dryRun) await clusterIPs.check(requested);
              else await clusterIPs.allocate(requested);
            } catch (err) {
              const errors = [
                {
                  ...invalid(FieldPath.root('spec').child('clusterIPs'), spec.clusterIPs, `failed to allocate IP ${requested}: ${message(err)}`),
                  valueText: goStringSlice(spec.clusterIPs ?? []),
                },
              ];
              invalidService(svc, errors);
            }
            if (!dryRun) taken.push(() => clusterIPs.release(requested));
          } else if (!dryRun) {
            let ip: string;
            try {
              ip = await clusterIPs.allocateNext();
            } catch (err) {
              throw internalError(`failed to allocate a serviceIP: ${message(err)}`);
            }
            taken.push(() => clusterIPs.release(ip));
            spec.clusterIP = ip;
            spec.clusterIPs = [ip];
          }
        }
        if (holdsNodePorts(svc)) {
          const before = heldNodePorts(old);
          const ports = spec.ports ?? [];
          for (const [i, port] of ports.entries()) {
            if (port.nodePort && before.has(port.nodePort)) continue;
            if (port.nodePort) {
              const requested = port.nodePort;
              // Ports of one service that share a number (TCP and UDP) share the node port too.
              if (ports.slice(0, i).some((p) => p.nodePort === requested)) continue;
              try {
                if (dryRun) await nodePorts.check(requested);
                else await nodePorts.allocate(requested);
              } catch (err) {
                invalidService(svc, [invalid(FieldPath.root('spec').child('ports').index(i).child('nodePort'), requested, message(err))]);
              }
              if (!dryRun) taken.push(() => nodePorts.release(requested));
            } else if (!dryRun) {
              const sibling = ports.slice(0, i).find((p) => p.port === port.port && p.nodePort);
              if (sibling?.nodePort) {
                port.nodePort = sibling.nodePort;
                continue;
              }
              let allocated: number;
              try {
                allocated = await nodePorts.allocateNext();
              } catch (err) {
                throw internalError(`failed to allocate a nodePort: ${message(err)}`);
              }
              taken.push(() => nodePorts.release(allocated));
              port.nodePort = allocated;
            }
          }
        }
      } catch (err) {
        await undo();
        throw err;
      }
      return undo;
    },
    async release(svc, old) {
      const ip = heldClusterIP(old);
      if (ip && heldClusterIP(svc) !== ip) await clusterIPs.release(ip);
      const kept = heldNodePorts(svc);
      for (const port of heldNodePorts(old)) if (!kept.has(port)) await nodePorts.release(port);
    },
  };
}
