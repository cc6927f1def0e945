/**
 * Service (v1, namespaced), as upstream's service strategy and REST storage: defaults on every
 * write (service-defaults.ts), upstream's validation, the status subresource (the main resource
 * keeps status, `status` keeps spec), PUT creates a missing service, and cluster IPs and node
 * ports are reserved and freed by the allocation (allocation.ts) the server gives it; without one
 * (definitions built for schemas alone) services get none.
 */
import { applyServiceCreateDefaults, applyServiceUpdateDefaults } from '../../../../shared/api/service-defaults.ts';
import { serviceSchema, type Service } from '../../../../shared/api/service.ts';
import { serviceNameRule, validateService, validateServiceStatusUpdate, validateServiceUpdate } from '../../../../shared/validation/service.ts';

import { allVerbs, defineResource, type ResourceDefinition } from '../../definition.ts';
import { keepStatus, statusSubresource } from '../../status-subresource.ts';
import { serviceAllocation, type ServiceAllocators } from './allocation.ts';
import { serviceTable } from './table.ts';

export function serviceDefinition(allocators?: ServiceAllocators): ResourceDefinition<Service> {
  return defineResource<Service>({
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    singular: 'service',
    shortNames: ['svc'],
    categories: ['all'],
    namespaced: true,
    verbs: allVerbs,
    schema: serviceSchema(),
    nameRule: serviceNameRule,
    strategy: {
      prepareForCreate: (svc) => {
        // A new service has no load balancer yet: Go serializes the empty status struct.
        svc.status = { loadBalancer: {} };
        applyServiceCreateDefaults(svc);
      },
      validate: (svc) => validateService(svc),
      prepareForUpdate: (svc, old) => {
        keepStatus(svc, old);
        applyServiceUpdateDefaults(svc, old);
      },
      validateUpdate: (svc, old) => validateServiceUpdate(svc, old),
      allowCreateOnUpdate: true,
    },
    subresources: {
      status: statusSubresource<Service>({
        prepareForUpdate: (svc) => {
          // upstream's default: an ingress IP without ipMode is a VIP.
          for (const ingress of svc.status?.loadBalancer?.ingress ?? []) if (ingress.ip && ingress.ipMode === undefined) ingress.ipMode = 'VIP';
        },
        validateUpdate: (svc) => validateServiceStatusUpdate(svc),
      }),
    },
    ...(allocators ? { allocation: serviceAllocation(allocators) } : {}),
    table: serviceTable,
  });
}
