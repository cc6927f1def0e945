/**
 * ComponentStatus (v1, deprecated): the health of control-plane components, computed on each read
 * by probing them; never stored. Only get and list are served.
 */
import { kindSchema, object, pb, string } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { defineResource, type ResourceDefinition } from '../definition.ts';
import { nameColumn } from '../../endpoints/table.ts';
import { mergedByType } from './shared-validation.ts';

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

export const componentStatusSchema = kindSchema({
  conditions: pb(
    2,
    mergedByType(object({ type: pb(1, string()), status: pb(2, string()), message: pb(3, string()), error: pb(4, string()) }, ['type', 'status'])),
  ),
});

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
