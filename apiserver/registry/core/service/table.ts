/**
 * Service's Table (kubectl get services), as upstream's printer: Name, Type, Cluster-IP (the first
 * of clusterIPs, `<none>`), External-IP (by type: external IPs, the load balancer's ingress,
 * `<pending>`, the external name), Port(s) (`port[:nodePort]/protocol`), Age; with -o wide the
 * Selector.
 */
import type { Service } from '../../../../shared/api/service.ts';
import type { TableDefinition } from '../../definition.ts';
import { age, ageColumn, nameColumn } from '../../table.ts';

function loadBalancerIngress(svc: Service): string {
  // The server prints its rows wide (the Selector column included), so the list is never cut.
  return (svc.status?.loadBalancer?.ingress ?? [])
    .map((i) => i.ip || i.hostname || '')
    .filter((s) => s !== '')
    .join(',');
}

/** upstream's getServiceExternalIP. */
function externalIP(svc: Service): string {
  const spec = svc.spec ?? {};
  const external = spec.externalIPs ?? [];
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = loadBalancerIngress(svc);
      if (external.length) return [...(ingress ? ingress.split(',') : []), ...external].join(',');
      return ingress || '<pending>';
    }
    case 'ExternalName':
      return spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

/** upstream's makePortString. */
function ports(svc: Service): string {
  const text = (svc.spec?.ports ?? [])
    .map((p) => (p.nodePort ? `${p.port ?? 0}:${p.nodePort}/${p.protocol ?? ''}` : `${p.port ?? 0}/${p.protocol ?? ''}`))
    .join(',');
  return text || '<none>';
}

/** labels.FormatLabels: sorted `k=v` pairs, `<none>` when empty. */
export function formatLabels(labels: Record<string, string> | undefined): string {
  const keys = Object.keys(labels ?? {}).sort();
  return keys.length ? keys.map((k) => `${k}=${labels?.[k] ?? ''}`).join(',') : '<none>';
}

export const serviceTable: TableDefinition<Service> = {
  columns: [
    nameColumn,
    {
      name: 'Type',
      type: 'string',
      description:
        'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types',
    },
    {
      name: 'Cluster-IP',
      type: 'string',
      description:
        'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
    },
    {
      name: 'External-IP',
      type: 'string',
      description:
        'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.',
    },
    {
      name: 'Port(s)',
      type: 'string',
      description:
        'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
    },
    ageColumn,
    {
      name: 'Selector',
      type: 'string',
      priority: 1,
      description:
        'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/',
    },
  ],
  cells: (svc, now) => [
    svc.metadata.name,
    svc.spec?.type ?? '',
    svc.spec?.clusterIPs?.[0] ?? '<none>',
    externalIP(svc),
    ports(svc),
    age(svc, now),
    formatLabels(svc.spec?.selector),
  ],
};
