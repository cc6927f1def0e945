/**
 * A pod's quality of service class (upstream's ComputePodQOS), which the API server records in
 * status.qosClass on create and the node agent uses to place containers in cgroups and to choose
 * whom to evict: BestEffort without any cpu or memory request or limit, Guaranteed when every
 * container limits both cpu and memory and all requests equal the limits, Burstable otherwise.
 * Only cpu and memory count; zero amounts count as absent.
 */
import type { Container } from './pod-container.ts';
import type { Pod } from './pod.ts';
import { parseQuantity } from './quantity.ts';

export type PodQOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const qosResources = ['cpu', 'memory'];

/** Adds the positive cpu and memory amounts of `list` to `sums`; returns the resources found. */
function addPositive(list: Record<string, string | number> | undefined, sums: Map<string, number>): Set<string> {
  const found = new Set<string>();
  for (const [name, raw] of Object.entries(list ?? {})) {
    if (!qosResources.includes(name)) continue;
    const value = parseQuantity(raw);
    if (value === null || value <= 0) continue;
    found.add(name);
    sums.set(name, (sums.get(name) ?? 0) + value);
  }
  return found;
}

export function computePodQOS(pod: Pod): PodQOSClass {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  const containers: Container[] = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  for (const container of containers) {
    addPositive(container.resources?.requests, requests);
    const limited = addPositive(container.resources?.limits, limits);
    if (!qosResources.every((name) => limited.has(name))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, request] of requests) {
      if (limits.get(name) !== request) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
