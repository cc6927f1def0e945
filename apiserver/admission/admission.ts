/**
 * Admission: plugins that may change (mutating) or reject (validating) a write. Reads never pass
 * through admission. Every plugin must honour dry run: it may not have side effects when
 * `attributes.dryRun` is true.
 *
 * The two phases run where upstream's handlers and generic store run them (see store.ts):
 *
 *   create / update (every subresource): decode → mutating phase → the kind's prepare and
 *     validation → validating phase → storage
 *   delete: preconditions → mutating phase → validating phase (on the stored object; there is no
 *     new object to change) → mark for deletion or remove
 *
 * So whatever a mutating plugin does is validated by the kind, and a validating plugin sees the
 * object exactly as it will be stored.
 */
import type { KubeObject } from '../../shared/api/types.ts';
import type { RequestContext, ResourceDefinition } from '../registry/definition.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  definition: ResourceDefinition;
  subresource: string;
  namespace: string;
  name: string;
  /** The object to be stored (absent for DELETE). */
  object?: KubeObject;
  /** The stored object (UPDATE and DELETE). */
  oldObject?: KubeObject;
  dryRun: boolean;
  context: RequestContext;
}

interface PluginBase {
  readonly name: string;
  /** The operations the plugin takes part in (upstream's Handles); absent: every operation. */
  readonly operations?: readonly Operation[];
}

/**
 * A mutating plugin (upstream's MutationInterface): runs in the first phase, before the kind's
 * prepare and validation, in chain order. It may change `attributes.object` in place (never
 * `oldObject`), or reject the write by throwing a StatusError.
 */
export interface MutatingPlugin extends PluginBase {
  admit(attributes: AdmissionAttributes): Promise<void>;
}

/**
 * A validating plugin (upstream's ValidationInterface): runs in the second phase, after the kind
 * validated the final object, in chain order. It must not change anything it is given; it rejects
 * the write by throwing a StatusError.
 */
export interface ValidatingPlugin extends PluginBase {
  validate(attributes: AdmissionAttributes): Promise<void>;
}

/** Every plugin declares its phases by the methods it has: admit, validate, or both (at least one). */
export type AdmissionPlugin = MutatingPlugin | ValidatingPlugin | (MutatingPlugin & ValidatingPlugin);

function handles(plugin: PluginBase, operation: Operation): boolean {
  return !plugin.operations || plugin.operations.includes(operation);
}

export class AdmissionChain {
  constructor(readonly plugins: readonly AdmissionPlugin[]) {}

  /** The mutating phase: every mutating plugin that handles the operation, in order. */
  async admit(attributes: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) {
      if ('admit' in plugin && handles(plugin, attributes.operation)) await plugin.admit(attributes);
    }
  }

  /** The validating phase: every validating plugin that handles the operation, in order. */
  async validate(attributes: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) {
      if ('validate' in plugin && handles(plugin, attributes.operation)) await plugin.validate(attributes);
    }
  }
}
