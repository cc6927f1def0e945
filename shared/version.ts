/**
 * The Kubernetes release whose wire behaviour corral follows, for every process: kubectl checks
 * version skew against it (`/version`), OpenAPI names it, and the rules that depend on the
 * release (metrics deprecated in a release, --show-hidden-metrics-for-version) read it.
 */
export const kubernetesVersion = { major: '1', minor: '32', gitVersion: 'v1.32.0-corral.0' };

/** `major.minor` of kubernetesVersion. */
export const releaseVersion = `${kubernetesVersion.major}.${kubernetesVersion.minor}`;

/** `x.y` (or `x.y.z`) as numbers; throws naming `what` otherwise. */
export function parseMinorVersion(version: string, what: string): { major: number; minor: number } {
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(version);
  if (!m) throw new Error(`${what} ${JSON.stringify(version)} is not a <major>.<minor> version`);
  return { major: Number(m[1]), minor: Number(m[2]) };
}

/** Upstream's check of --show-hidden-metrics-for-version (every component's): empty, or exactly the previous minor release. */
export function validateShowHiddenMetricsVersion(value: string, current = releaseVersion): void {
  if (value === '') return;
  const { major, minor } = parseMinorVersion(current, 'current version');
  const valid = `${major}.${minor - 1}`;
  if (value !== valid)
    throw new Error(`--show-hidden-metrics-for-version must be omitted or have the value '${valid}'. Only the previous minor version is allowed`);
}
