/**
 * Every admission plugin name the server knows, in one registry: upstream's names in upstream's
 * order (the chain runs enabled plugins in this order, mutating phase first, then validating), with
 * the spec's default set plus NodeRestriction, the kinds each acts on, and how corral builds it.
 *
 * A plugin whose kinds corral does not serve (pods, services, volumes claims...) is known, so that
 * flags written for kube-apiserver keep working, but it has nothing to act on: `--help` says so and
 * enabling it builds nothing. Unknown names stop the server with upstream's message.
 */
import { forbidden } from '../../shared/api/errors.ts';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.ts';
import type { Authorizer } from '../authorization/authorizer.ts';
import { certificateApproval, certificateSigning, certificateSubjectRestriction } from './certificates/plugins.ts';
import { parseEventRateLimitConfiguration } from './event-rate-limit/config.ts';
import { eventRateLimit } from './event-rate-limit/plugin.ts';
import { nodeRestriction } from './node-restriction.ts';
import { taintNodesByCondition } from './taint-nodes-by-condition.ts';

/** What plugins are built from; each plugin takes what it needs. */
export interface AdmissionDependencies {
  namespaceLifecycle(): AdmissionPlugin;
  /** The server's authorizer (the certificate plugins check `approve` and `sign` with it). */
  authorizer: Authorizer;
  /** A plugin's document from --admission-control-config-file, if it has one. */
  configuration(plugin: string): Record<string, unknown> | undefined;
}

export interface AdmissionPluginDefinition {
  name: string;
  /** The kinds it acts on, for --help. */
  actsOn: string;
  /** On unless disabled (the spec's default set). */
  enabledByDefault: boolean;
  /** Absent: the plugin's kinds are not served by corral, so it has nothing to do. */
  build?(dependencies: AdmissionDependencies): AdmissionPlugin;
  /** Logged at start when the plugin is enabled (upstream's deprecation notices). */
  warning?: string;
}

const deprecatedSince113 = (name: string): string =>
  `${name} admission controller is deprecated. Please remove this controller from your configuration files and scripts.`;

/** Upstream's AllOrderedPlugins, restricted to the plugins of its release corral follows. */
export const admissionPlugins: readonly AdmissionPluginDefinition[] = [
  {
    name: 'AlwaysAdmit',
    actsOn: 'every write (admits all)',
    enabledByDefault: false,
    build: () => ({ name: 'AlwaysAdmit', admit: async () => {} }),
    warning: deprecatedSince113('AlwaysAdmit'),
  },
  { name: 'NamespaceAutoProvision', actsOn: 'namespaced writes', enabledByDefault: false },
  { name: 'NamespaceLifecycle', actsOn: 'every namespaced write and namespace deletion', enabledByDefault: true, build: (d) => d.namespaceLifecycle() },
  { name: 'NamespaceExists', actsOn: 'namespaced writes', enabledByDefault: false },
  { name: 'LimitPodHardAntiAffinityTopology', actsOn: 'pods', enabledByDefault: false },
  { name: 'LimitRanger', actsOn: 'pods, persistentvolumeclaims (LimitRange)', enabledByDefault: true },
  { name: 'ServiceAccount', actsOn: 'pods', enabledByDefault: true },
  // On by default in corral (kubeadm enables it too): the Node authorizer relies on it.
  { name: 'NodeRestriction', actsOn: 'nodes, leases, csinodes (writes by nodes)', enabledByDefault: true, build: () => nodeRestriction() },
  { name: 'TaintNodesByCondition', actsOn: 'nodes', enabledByDefault: true, build: () => taintNodesByCondition() },
  { name: 'AlwaysPullImages', actsOn: 'pods', enabledByDefault: false },
  { name: 'ImagePolicyWebhook', actsOn: 'pods', enabledByDefault: false },
  { name: 'PodSecurity', actsOn: 'pods, namespaces', enabledByDefault: true },
  { name: 'PodNodeSelector', actsOn: 'pods', enabledByDefault: false },
  { name: 'Priority', actsOn: 'pods', enabledByDefault: true },
  { name: 'DefaultTolerationSeconds', actsOn: 'pods', enabledByDefault: true },
  { name: 'PodTolerationRestriction', actsOn: 'pods', enabledByDefault: false },
  {
    name: 'EventRateLimit',
    actsOn: 'events (configured in --admission-control-config-file)',
    enabledByDefault: false,
    build: (d) => eventRateLimit(parseEventRateLimitConfiguration(d.configuration('EventRateLimit'))),
  },
  { name: 'ExtendedResourceToleration', actsOn: 'pods', enabledByDefault: false },
  { name: 'DefaultStorageClass', actsOn: 'persistentvolumeclaims', enabledByDefault: true },
  { name: 'StorageObjectInUseProtection', actsOn: 'persistentvolumes, persistentvolumeclaims', enabledByDefault: true },
  { name: 'OwnerReferencesPermissionEnforcement', actsOn: 'every write with ownerReferences', enabledByDefault: false },
  { name: 'PersistentVolumeClaimResize', actsOn: 'persistentvolumeclaims', enabledByDefault: true },
  { name: 'RuntimeClass', actsOn: 'pods', enabledByDefault: true },
  { name: 'CertificateApproval', actsOn: 'certificatesigningrequests/approval', enabledByDefault: true, build: (d) => certificateApproval(d.authorizer) },
  { name: 'CertificateSigning', actsOn: 'certificatesigningrequests/status', enabledByDefault: true, build: (d) => certificateSigning(d.authorizer) },
  { name: 'ClusterTrustBundleAttest', actsOn: 'clustertrustbundles', enabledByDefault: false },
  { name: 'CertificateSubjectRestriction', actsOn: 'certificatesigningrequests', enabledByDefault: true, build: () => certificateSubjectRestriction() },
  { name: 'DefaultIngressClass', actsOn: 'ingresses', enabledByDefault: true },
  { name: 'DenyServiceExternalIPs', actsOn: 'services', enabledByDefault: false },
  { name: 'MutatingAdmissionWebhook', actsOn: 'every write (MutatingWebhookConfiguration)', enabledByDefault: true },
  { name: 'ValidatingAdmissionPolicy', actsOn: 'every write (ValidatingAdmissionPolicy)', enabledByDefault: true },
  { name: 'ValidatingAdmissionWebhook', actsOn: 'every write (ValidatingWebhookConfiguration)', enabledByDefault: true },
  { name: 'ResourceQuota', actsOn: 'every write counted by a ResourceQuota', enabledByDefault: true },
  {
    name: 'AlwaysDeny',
    actsOn: 'every write (rejects all)',
    enabledByDefault: false,
    build: () => ({
      name: 'AlwaysDeny',
      admit: async (a: AdmissionAttributes) => {
        throw forbidden({ group: a.definition.group, resource: a.definition.plural }, a.name, 'admission control is denying all modifications');
      },
    }),
    warning: deprecatedSince113('AlwaysDeny'),
  },
];

/** The enabled plugin names in chain order, or every problem with the flags in upstream's words. */
export function enabledAdmissionPlugins(enable: readonly string[], disable: readonly string[]): { names: string[]; errors: string[] } {
  const known = new Set(admissionPlugins.map((p) => p.name));
  const errors: string[] = [];
  for (const name of enable) if (!known.has(name)) errors.push(`enable-admission-plugins plugin "${name}" is unknown`);
  for (const name of disable) if (!known.has(name)) errors.push(`disable-admission-plugins plugin "${name}" is unknown`);
  const overlap = [...new Set(enable.filter((name) => disable.includes(name)))].sort();
  if (overlap.length) errors.push(`[${overlap.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  const names = admissionPlugins.filter((p) => (p.enabledByDefault || enable.includes(p.name)) && !disable.includes(p.name)).map((p) => p.name);
  return { names, errors };
}

/** The chain's plugins, in order; enabled plugins with nothing to act on build nothing. */
export function buildAdmissionPlugins(names: readonly string[], dependencies: AdmissionDependencies): { plugins: AdmissionPlugin[]; warnings: string[] } {
  const plugins: AdmissionPlugin[] = [];
  const warnings: string[] = [];
  for (const definition of admissionPlugins) {
    if (!names.includes(definition.name)) continue;
    if (definition.warning) warnings.push(definition.warning);
    if (definition.build) plugins.push(definition.build(dependencies));
  }
  return { plugins, warnings };
}

/** The --help section: every plugin, what it acts on, whether it is on by default and whether corral serves its kinds. */
export function admissionPluginsHelp(): string {
  const width = Math.max(...admissionPlugins.map((p) => p.name.length)) + 2;
  return admissionPlugins
    .map((p) => {
      const state = p.enabledByDefault ? 'default on' : 'default off';
      const served = p.build ? '' : '; corral serves none of these kinds, so it has nothing to do';
      return `  ${p.name.padEnd(width)}${p.actsOn} (${state}${served})`;
    })
    .join('\n');
}
