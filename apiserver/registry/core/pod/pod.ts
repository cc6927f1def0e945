/**
 * Pod (v1, namespaced), as upstream's pod strategy: defaults on every write; on create the status
 * is replaced by phase Pending with the computed QoS class (and the SchedulingGated condition when
 * gates are set); the main resource keeps status and `status` keeps spec, owner references and an
 * absent qosClass. Deletion is graceful (checkGracefulDelete): a pod bound to a node that is not
 * terminal gets the request's grace period, else its terminationGracePeriodSeconds; the kubelet
 * removes it with a grace period of 0. DELETE answers with the pod, as upstream.
 */
import { applyPodDefaults } from '../../../../shared/api/pod-defaults.ts';
import { computePodQOS } from '../../../../shared/api/pod-qos.ts';
import { podSchema, type Pod } from '../../../../shared/api/pod.ts';
import { validatePodCreate, validatePodStatusUpdate, validatePodUpdate } from '../../../../shared/validation/pod.ts';
import { allVerbs, defineResource } from '../../definition.ts';
import { keepStatus, statusSubresource } from '../../status-subresource.ts';
import { podTable } from './table.ts';

/** upstream's applySchedulingGatedCondition: a gated pod says so in PodScheduled. */
function applySchedulingGatedCondition(pod: Pod): void {
  if ((pod.spec?.schedulingGates ?? []).length === 0) return;
  const status = (pod.status ??= {});
  const conditions = (status.conditions ??= []);
  if (conditions.some((c) => c.type === 'PodScheduled')) return;
  conditions.push({
    type: 'PodScheduled',
    status: 'False',
    reason: 'SchedulingGated',
    message: 'Scheduling is blocked due to non-empty scheduling gates',
    lastProbeTime: null,
    lastTransitionTime: null,
  });
}

/**
 * upstream's CheckGracefulDelete: the request's grace period, else the pod's; 0 for pods no
 * kubelet runs (unbound) or that have finished; a negative period counts as 1.
 */
export function podGracePeriod(pod: Pod, requested: number | undefined): number {
  let period = requested ?? pod.spec?.terminationGracePeriodSeconds ?? 0;
  if (!pod.spec?.nodeName) period = 0;
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') period = 0;
  return period < 0 ? 1 : period;
}

const boolText = (value: boolean | undefined): string => (value === true ? 'true' : 'false');

export const podDefinition = defineResource<Pod>({
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  singular: 'pod',
  shortNames: ['po'],
  categories: ['all'],
  namespaced: true,
  verbs: allVerbs,
  schema: podSchema(),
  strategy: {
    prepareForCreate: (pod) => {
      applyPodDefaults(pod);
      pod.status = { phase: 'Pending', qosClass: computePodQOS(pod) };
      applySchedulingGatedCondition(pod);
    },
    validate: (pod) => validatePodCreate(pod),
    prepareForUpdate: (pod, old) => {
      applyPodDefaults(pod);
      keepStatus(pod, old);
    },
    validateUpdate: (pod, old) => validatePodUpdate(pod, old),
    checkGracefulDelete: (pod, requested) => podGracePeriod(pod, requested),
  },
  subresources: {
    status: statusSubresource<Pod>({
      prepareForUpdate: (pod, old) => {
        // Old kubelets corrupted owner references through status; the QoS class is fixed at creation.
        if (old.metadata.ownerReferences) pod.metadata.ownerReferences = structuredClone(old.metadata.ownerReferences);
        else delete pod.metadata.ownerReferences;
        const oldQOS = old.status?.qosClass;
        if (oldQOS && !pod.status?.qosClass) (pod.status ??= {}).qosClass = oldQOS;
      },
      validateUpdate: (pod, old) => validatePodStatusUpdate(pod, old),
    }),
  },
  fieldSelectors: {
    'spec.nodeName': (pod) => pod.spec?.nodeName ?? '',
    // Old v1 clients select on spec.host, which upstream reads as spec.nodeName.
    'spec.host': (pod) => pod.spec?.nodeName ?? '',
    'spec.restartPolicy': (pod) => pod.spec?.restartPolicy ?? '',
    'spec.schedulerName': (pod) => pod.spec?.schedulerName ?? '',
    'spec.serviceAccountName': (pod) => pod.spec?.serviceAccountName ?? '',
    'spec.hostNetwork': (pod) => boolText(pod.spec?.hostNetwork),
    'status.phase': (pod) => pod.status?.phase ?? '',
    'status.podIP': (pod) => pod.status?.podIPs?.[0]?.ip ?? '',
    // Accepted as a label, but upstream never fills it in the selectable fields: always empty.
    'status.podIPs': () => '',
    'status.nominatedNodeName': (pod) => pod.status?.nominatedNodeName ?? '',
  },
  deleteReturnsObject: true,
  table: podTable,
});
