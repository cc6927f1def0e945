/**
 * NodeConfigSource (v1): where the removed dynamic kubelet configuration came from, still part of
 * Node's spec (configSource) and status (config) for old objects' sake. Field numbers are
 * upstream's generated.proto.
 */
import { describe, named, object, pb, string, type Schema } from './schema.ts';

export interface ConfigMapNodeConfigSource {
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  kubeletConfigKey?: string;
}

export interface NodeConfigSource {
  configMap?: ConfigMapNodeConfigSource;
}

const configMapSourceSchema = (): Schema =>
  named(
    'io.k8s.api.core.v1.ConfigMapNodeConfigSource',
    'A config map holding a kubelet configuration, for the removed dynamic kubelet configuration feature.',
    object(
      {
        namespace: pb(1, string('Namespace of the config map. Required.'), 'keepZero'),
        name: pb(2, string('Name of the config map. Required.'), 'keepZero'),
        uid: pb(3, string('UID of the config map; forbidden in spec, required in status.')),
        resourceVersion: pb(4, string('Resource version of the config map; forbidden in spec, required in status.')),
        kubeletConfigKey: pb(5, string('Key of the config map whose value is the KubeletConfiguration. Required.'), 'keepZero'),
      },
      ['namespace', 'name', 'kubeletConfigKey'],
    ),
  );

/** NodeConfigSource; upstream retired field 1 (configMapRef). */
export const configSourceSchema = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeConfigSource',
    'Where a kubelet configuration comes from; the dynamic kubelet configuration feature that used it is removed.',
    object({ configMap: pb(2, describe(configMapSourceSchema(), 'The config map holding the configuration.'), 'optional') }),
  );
