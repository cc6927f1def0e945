/**
 * ComponentStatus (v1, deprecated): the health of control-plane components, computed on each read
 * by probing them; never stored. Only get and list are served.
 */
import { describe, kindSchema, mergedByType, named, object, pb, string, type Schema } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { defineResource, type ResourceDefinition } from '../definition.ts';
import { nameColumn } from '../table.ts';

export interface ComponentCondition {
  /** Always `Healthy`. */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: string;
  message?: string;
  error?: string;
}

export interface ComponentStatus extends KubeObject {
  conditions?: ComponentCondition[];
}

const componentCondition = (): Schema =>
  named(
    'io.k8s.api.core.v1.ComponentCondition',
    'The outcome of one health check of a component.',
    object(
      {
        type: pb(1, string('What was checked; always Healthy.'), 'keepZero'),
        status: pb(2, string('True when the component is healthy, False when not, Unknown when the check could not tell.'), 'keepZero'),
        message: pb(3, string('What the component answered to the check.')),
        error: pb(4, string('Why the check failed, when it did.')),
      },
      ['type', 'status'],
    ),
  );

export const componentStatusSchema = describe(
  kindSchema({ conditions: pb(2, describe(mergedByType(componentCondition()), 'Results of the health checks of the component.')) }),
  'Deprecated: the health of one control-plane component (etcd members here), probed on every read and never stored.',
);

/**
 * The status upstream reports for an etcd member (`etcd-0`, `etcd-1`, ...): a successful probe
 * says "ok"; a failed one carries only the probe's error.
 */
export function etcdComponentStatus(name: string, healthy: boolean, error?: string): ComponentStatus {
  const condition: ComponentCondition = healthy
    ? { type: 'Healthy', status: 'True', message: 'ok' }
    : { type: 'Healthy', status: 'False', ...(error ? { error } : {}) };
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name }, conditions: [condition] };
}

export function componentStatusDefinition(probe: () => Promise<ComponentStatus[]>): ResourceDefinition<ComponentStatus> {
  return defineResource<ComponentStatus>({
    group: '',
    version: 'v1',
    kind: 'ComponentStatus',
    plural: 'componentstatuses',
    singular: 'componentstatus',
    shortNames: ['cs'],
    namespaced: false,
    verbs: ['get', 'list'],
    schema: componentStatusSchema,
    deprecationWarning: 'v1 ComponentStatus is deprecated in v1.19+',
    computed: { list: probe },
    strategy: {
      // Never written: the kind serves no write verbs.
      validate: () => [],
    },
    table: {
      columns: [
        nameColumn,
        { name: 'Status', type: 'string', description: 'Status of the component conditions' },
        { name: 'Message', type: 'string', description: 'Message of the component conditions' },
        { name: 'Error', type: 'string', description: 'Error of the component conditions' },
      ],
      cells: (cs) => {
        const healthy = cs.conditions?.find((c) => c.type === 'Healthy');
        const status = healthy ? (healthy.status === 'True' ? 'Healthy' : 'Unhealthy') : 'Unknown';
        return [cs.metadata.name, status, healthy?.message ?? '', healthy?.error ?? ''];
      },
    },
  });
}
