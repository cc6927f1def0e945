/**
 * Upstream's security context rules: validatePodSpecSecurityContext (user and group IDs, sysctls,
 * fsGroupChangePolicy, seccomp, AppArmor, Windows options, supplementalGroupsPolicy,
 * seLinuxChangePolicy), ValidateSecurityContext for a container (IDs, procMount, seccomp,
 * allowPrivilegeEscalation against privileged and CAP_SYS_ADMIN, Windows options, AppArmor) and
 * validateHostUsers. Upstream has no rule on seLinuxOptions or capability names here.
 *
 * Privileged containers are allowed, as with kube-apiserver's --allow-privileged=true that every
 * usual cluster sets, so "disallowed by cluster policy" never comes up. SELinuxMount is off in 1.32,
 * so only the Recursive seLinuxChangePolicy is accepted.
 */
import { Buffer } from 'node:buffer';
import { append } from '../api/append.ts';
import { duplicate, forbidden, invalid, notSupported, required, tooLong, type FieldError, type FieldPath } from '../api/field.ts';
import type { AppArmorProfile, PodSpec, SeccompProfile, SecurityContext, Sysctl, WindowsSecurityContextOptions } from '../api/pod.ts';
import { isDNS1123Subdomain } from './names.ts';
import { validateLocalDescendingPath } from './volume.ts';

const idRange = 'must be between 0 and 2147483647, inclusive';

/** IsValidUserID and IsValidGroupID: 0 to MaxInt32. */
function validateID(value: number | undefined, path: FieldPath): FieldError[] {
  return value !== undefined && (value < 0 || value > 2 ** 31 - 1) ? [invalid(path, value, idRange)] : [];
}

const seccompTypes = ['Localhost', 'RuntimeDefault', 'Unconfined'];

/** validateSeccompProfileField. */
export function validateSeccompProfile(profile: SeccompProfile | undefined, path: FieldPath): FieldError[] {
  if (!profile) return [];
  const errors: FieldError[] = [];
  const type = profile.type ?? '';
  if (!type) errors.push(required(path.child('type'), 'type is required when seccompProfile is set'));
  else if (!seccompTypes.includes(type)) errors.push(notSupported(path.child('type'), type, seccompTypes));
  const localhost = profile.localhostProfile;
  if (type === 'Localhost') {
    if (localhost === undefined) errors.push(required(path.child('localhostProfile'), 'must be set when seccomp type is Localhost'));
    else append(errors, validateLocalDescendingPath(localhost, path.child('localhostProfile')));
  } else if (localhost !== undefined) {
    errors.push(invalid(path.child('localhostProfile'), profile, 'can only be set when seccomp type is Localhost'));
  }
  return errors;
}

/** ValidateAppArmorProfileField. */
export function validateAppArmorProfile(profile: AppArmorProfile | undefined, path: FieldPath): FieldError[] {
  if (!profile) return [];
  const errors: FieldError[] = [];
  const type = profile.type ?? '';
  const localhost = profile.localhostProfile;
  switch (type) {
    case 'Localhost':
      if (localhost === undefined) {
        errors.push(required(path.child('localhostProfile'), 'must be set when AppArmor type is Localhost'));
        break;
      }
      if (localhost.trim() !== localhost) errors.push(invalid(path.child('localhostProfile'), localhost, 'must not be padded with whitespace'));
      else if (localhost === '') errors.push(required(path.child('localhostProfile'), 'must be set when AppArmor type is Localhost'));
      if (Buffer.byteLength(localhost) > 4095) errors.push(tooLong(path.child('localhostProfile'), '', 4095));
      break;
    case 'RuntimeDefault':
    case 'Unconfined':
      if (localhost !== undefined) errors.push(invalid(path.child('localhostProfile'), localhost, 'can only be set when AppArmor type is Localhost'));
      break;
    case '':
      errors.push(required(path.child('type'), 'type is required when appArmorProfile is set'));
      break;
    default:
      errors.push(notSupported(path.child('type'), type, seccompTypes));
  }
  return errors;
}

const netBiosRe = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/;
const windowsDomainRe = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

function runAsUserNameProblems(name: string): string[] {
  if (name.length === 0) return ['runAsUserName cannot be an empty string'];
  // Go's [[:cntrl:]]: ASCII 0–31 and 127.
  if ([...name].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127)) return ['runAsUserName cannot contain control characters'];
  const parts = name.split('\\');
  if (parts.length > 2) return ['runAsUserName cannot contain more than one backslash'];
  const problems: string[] = [];
  const [domain, user] = parts.length === 1 ? ['', parts[0] ?? ''] : [parts[0] ?? '', parts[1] ?? ''];
  if (Buffer.byteLength(domain) >= 256) problems.push("runAsUserName's Domain length must be under 256 characters");
  if (parts.length === 2 && !(netBiosRe.test(domain) || windowsDomainRe.test(domain)))
    problems.push("runAsUserName's Domain doesn't match the NetBios nor the DNS format");
  if (user.length === 0) problems.push("runAsUserName's User cannot be empty");
  else if (Buffer.byteLength(user) > 104) problems.push("runAsUserName's User length must not be longer than 104 characters");
  if (/^[. ]+$/.test(user)) problems.push("runAsUserName's User cannot contain only periods or spaces");
  if (/["/\\:;|=,+*?<>@[\]]/.test(user)) problems.push(`runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`);
  return problems;
}

/** validateWindowsSecurityContextOptions. */
function validateWindowsOptions(options: WindowsSecurityContextOptions | undefined, path: FieldPath): FieldError[] {
  if (!options) return [];
  const errors: FieldError[] = [];
  const specName = options.gmsaCredentialSpecName;
  if (specName !== undefined) for (const msg of isDNS1123Subdomain(specName)) errors.push(invalid(path.child('gmsaCredentialSpecName'), specName, msg));
  const spec = options.gmsaCredentialSpec;
  if (spec !== undefined) {
    if (spec.length === 0) errors.push(invalid(path.child('gmsaCredentialSpec'), spec, 'gmsaCredentialSpec cannot be an empty string'));
    else if (Buffer.byteLength(spec) > 64 * 1024) errors.push(invalid(path.child('gmsaCredentialSpec'), spec, 'gmsaCredentialSpec size must be under 64 KiB'));
  }
  const userName = options.runAsUserName;
  if (userName !== undefined) for (const msg of runAsUserNameProblems(userName)) errors.push(invalid(path.child('runAsUserName'), userName, msg));
  return errors;
}

const sysctlRe = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;
const sysctlMessage = 'must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$';

/** utilsysctl.GetNamespace after NormalizeName: the namespace a sysctl belongs to, if it is namespaced there. */
function sysctlNamespace(name: string): 'net' | 'ipc' | undefined {
  const firstSep = name.search(/[./]/);
  // A name that uses '/' as its first separator swaps the two separators.
  const normalized = firstSep >= 0 && name[firstSep] === '/' ? name.replace(/[./]/g, (c) => (c === '/' ? '.' : '/')) : name;
  if (normalized.startsWith('net.')) return 'net';
  if (normalized === 'kernel.sem' || ['kernel.shm', 'kernel.msg', 'fs.mqueue.'].some((prefix) => normalized.startsWith(prefix))) return 'ipc';
  return undefined;
}

function validateSysctls(sysctls: readonly Sysctl[], spec: PodSpec, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  sysctls.forEach((sysctl, i) => {
    const at = path.index(i).child('name');
    const name = sysctl.name ?? '';
    if (!name) errors.push(required(at));
    else if (name.length > 253 || !sysctlRe.test(name)) errors.push(invalid(at, name, sysctlMessage));
    else if (names.has(name)) errors.push(duplicate(at, name));
    const namespace = sysctlNamespace(name);
    if (spec.hostNetwork === true && namespace === 'net') errors.push(invalid(at, name, "may not be specified when 'hostNetwork' is true"));
    else if (spec.hostIPC === true && namespace === 'ipc') errors.push(invalid(at, name, "may not be specified when 'hostIPC' is true"));
    names.add(name);
  });
  return errors;
}

/** A policy field: when set, one of `supported` (sorted, as upstream lists a set). */
function validatePolicy(value: string | undefined, supported: readonly string[], path: FieldPath): FieldError[] {
  return value !== undefined && !supported.includes(value) ? [notSupported(path, value, supported)] : [];
}

/** validatePodSpecSecurityContext, at `spec.securityContext`. */
export function validatePodSecurityContext(spec: PodSpec, path: FieldPath): FieldError[] {
  const context = spec.securityContext ?? {};
  const errors: FieldError[] = [];
  append(errors, validateID(context.fsGroup, path.child('fsGroup')));
  append(errors, validateID(context.runAsUser, path.child('runAsUser')));
  append(errors, validateID(context.runAsGroup, path.child('runAsGroup')));
  (context.supplementalGroups ?? []).forEach((gid, i) => append(errors, validateID(gid, path.child('supplementalGroups').index(i))));
  // Upstream keeps shareProcessNamespace in its internal security context, and reports it there.
  if (spec.shareProcessNamespace === true && spec.hostPID === true)
    errors.push(invalid(path.child('shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  append(errors, validateSysctls(context.sysctls ?? [], spec, path.child('sysctls')));
  append(errors, validatePolicy(context.fsGroupChangePolicy, ['Always', 'OnRootMismatch'], path.child('fsGroupChangePolicy')));
  append(errors, validateSeccompProfile(context.seccompProfile, path.child('seccompProfile')));
  append(errors, validateWindowsOptions(context.windowsOptions, path.child('windowsOptions')));
  append(errors, validateAppArmorProfile(context.appArmorProfile, path.child('appArmorProfile')));
  append(errors, validatePolicy(context.supplementalGroupsPolicy, ['Merge', 'Strict'], path.child('supplementalGroupsPolicy')));
  append(errors, validatePolicy(context.seLinuxChangePolicy, ['Recursive'], path.child('seLinuxChangePolicy')));
  return errors;
}

const procMountTypes = ['Default', 'Unmasked'];

/** ValidateSecurityContext for a container; `hostUsers` is false when the pod has its own user namespace. */
export function validateContainerSecurityContext(context: SecurityContext | undefined, hostUsers: boolean, path: FieldPath): FieldError[] {
  if (!context) return [];
  const errors: FieldError[] = [];
  append(errors, validateID(context.runAsUser, path.child('runAsUser')));
  append(errors, validateID(context.runAsGroup, path.child('runAsGroup')));
  const procMount = context.procMount;
  if (procMount !== undefined) {
    if (!procMountTypes.includes(procMount)) errors.push(notSupported(path.child('procMount'), procMount, procMountTypes));
    if (hostUsers && procMount === 'Unmasked') errors.push(invalid(path.child('procMount'), procMount, '`hostUsers` must be false to use `Unmasked`'));
  }
  append(errors, validateSeccompProfile(context.seccompProfile, path.child('seccompProfile')));
  if (context.allowPrivilegeEscalation === false) {
    if (context.privileged === true) errors.push(invalid(path, context, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    for (const capability of context.capabilities?.add ?? [])
      if (capability === 'CAP_SYS_ADMIN')
        errors.push(invalid(path, context, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
  }
  append(errors, validateWindowsOptions(context.windowsOptions, path.child('windowsOptions')));
  append(errors, validateAppArmorProfile(context.appArmorProfile, path.child('appArmorProfile')));
  return errors;
}

/** validateHostUsers: a pod in its own user namespace shares no other namespace with the host (upstream's paths). */
export function validateHostUsers(spec: PodSpec, path: FieldPath): FieldError[] {
  if (spec.hostUsers !== false) return [];
  const errors: FieldError[] = [];
  const message = 'when `pod.Spec.HostUsers` is false';
  if (spec.hostNetwork === true) errors.push(forbidden(path.child('hostNetwork'), message));
  if (spec.hostPID === true) errors.push(forbidden(path.child('HostPID'), message));
  if (spec.hostIPC === true) errors.push(forbidden(path.child('HostIPC'), message));
  return errors;
}
