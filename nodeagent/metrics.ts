/**
 * The node agent's /metrics: the process's own metrics (CPU, memory, event loop) and
 * `kubelet_node_name`, which upstream's kubelet exports so that dashboards can join a node's
 * series to its name. Other kubelet series (pod workers, PLEG, cAdvisor) describe a container
 * runtime corral's agent does not have; it does not invent them.
 */
import { Gauge, Registry } from 'prom-client';
import { collectProcessMetrics } from '../shared/http/process-metrics.ts';

export function nodeAgentMetrics(nodeName: string): Registry {
  const registry = new Registry();
  collectProcessMetrics(registry);
  const name = new Gauge({ name: 'kubelet_node_name', help: "The node's name. The count is always 1.", labelNames: ['node'], registers: [registry] });
  name.set({ node: nodeName }, 1);
  return registry;
}
