/**
 * The node agent's feature gates, as component-base's featuregate holds them: the known gates
 * with their default and maturity (Kubernetes 1.32's values, for the gates the node agent's
 * configuration consults and those kubelet configurations commonly set), `--feature-gates` parsed
 * as cliflag.MapStringBool parses it, and a map of gates applied as SetFromMap applies it:
 * an unknown gate or a locked gate set against its default is an error, and setting a GA or
 * deprecated gate a warning.
 */
import { parseBool, ParseBoolError } from '../../shared/go/parse-bool.ts';

export type PreRelease = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

interface GateSpec {
  default: boolean;
  preRelease: PreRelease;
  lockToDefault?: true;
}

const alpha = (def = false): GateSpec => ({ default: def, preRelease: 'ALPHA' });
const beta = (def: boolean): GateSpec => ({ default: def, preRelease: 'BETA' });
const ga = (lock = true): GateSpec => (lock ? { default: true, preRelease: 'GA', lockToDefault: true } : { default: true, preRelease: 'GA' });

/** The gates corral's node agent knows (upstream's names and 1.32 defaults). */
export const knownFeatureGates: Readonly<Record<string, GateSpec>> = {
  AllAlpha: alpha(),
  AllBeta: alpha(),
  ContextualLogging: beta(true),
  CPUManager: ga(),
  CPUManagerPolicyAlphaOptions: alpha(),
  CPUManagerPolicyBetaOptions: beta(true),
  CPUManagerPolicyOptions: beta(true),
  CustomCPUCFSQuotaPeriod: alpha(),
  DynamicResourceAllocation: beta(false),
  ExecProbeTimeout: ga(false),
  GracefulNodeShutdown: beta(true),
  GracefulNodeShutdownBasedOnPodPriority: beta(true),
  ImageMaximumGCAge: beta(true),
  InPlacePodVerticalScaling: alpha(),
  KubeletCgroupDriverFromCRI: beta(true),
  KubeletCrashLoopBackOffMax: alpha(),
  KubeletFineGrainedAuthz: alpha(),
  KubeletSeparateDiskGC: beta(true),
  KubeletTracing: beta(true),
  LoggingAlphaOptions: alpha(),
  LoggingBetaOptions: beta(true),
  MemoryManager: beta(true),
  MemoryQoS: alpha(),
  NodeLogQuery: beta(false),
  NodeSwap: beta(true),
  PodAndContainerStatsFromCRI: alpha(),
  RecursiveReadOnlyMounts: beta(true),
  RotateKubeletServerCertificate: beta(true),
  SidecarContainers: beta(true),
  TopologyManagerPolicyAlphaOptions: alpha(),
  TopologyManagerPolicyBetaOptions: beta(true),
  TopologyManagerPolicyOptions: beta(true),
  UserNamespacesSupport: beta(false),
};

/**
 * `--feature-gates` text as cliflag.MapStringBool reads it: `name=bool` pairs separated by commas,
 * names and values trimmed, empty items skipped. The error is the flag value's (pflag wraps it).
 */
export function parseFeatureGatesFlag(text: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const item of text.split(',')) {
    if (item === '') continue;
    const at = item.indexOf('=');
    if (at < 0) throw new Error('malformed pair, expect string=bool');
    const name = item.slice(0, at).trim();
    const value = item.slice(at + 1).trim();
    try {
      gates[name] = parseBool(value);
    } catch (err) {
      if (err instanceof ParseBoolError) throw new Error(`invalid value of ${name}: ${value}, err: ${err.message}`);
      throw err;
    }
  }
  return gates;
}

/** The gates in effect: upstream's defaults overridden by `gates`. */
export class FeatureGates {
  private constructor(private readonly state: ReadonlyMap<string, boolean>) {}

  /**
   * The defaults with `gates` applied, and the warnings upstream logs on the way. Throws upstream's
   * error for the first unknown gate or locked gate set against its default.
   */
  static from(gates: Readonly<Record<string, boolean>>): { gates: FeatureGates; warnings: string[] } {
    const enabled = new Map(Object.entries(knownFeatureGates).map(([name, spec]) => [name, spec.default]));
    const warnings: string[] = [];
    for (const [name, value] of Object.entries(gates)) {
      const spec = knownFeatureGates[name];
      if (!spec) throw new Error(`unrecognized feature gate: ${name}`);
      if (spec.lockToDefault && spec.default !== value) throw new Error(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      enabled.set(name, value);
      if (spec.preRelease === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      else if (spec.preRelease === 'GA') warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    }
    // AllAlpha and AllBeta switch every gate of their maturity that is not set explicitly.
    for (const [all, preRelease] of [
      ['AllAlpha', 'ALPHA'],
      ['AllBeta', 'BETA'],
    ] as const) {
      const value = gates[all];
      if (value === undefined) continue;
      for (const [name, spec] of Object.entries(knownFeatureGates)) if (spec.preRelease === preRelease && gates[name] === undefined) enabled.set(name, value);
    }
    return { gates: new FeatureGates(enabled), warnings };
  }

  enabled(name: keyof typeof knownFeatureGates): boolean {
    return this.state.get(name) ?? false;
  }
}
