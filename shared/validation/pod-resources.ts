/**
 * Upstream's resource rules of a pod: ValidateContainerResourceRequirements (resource names,
 * quantities, requests within limits and equal to them for resources that cannot be overcommitted,
 * i.e. extended resources and hugepages; hugepages in whole pages and only with cpu or memory;
 * claims that name a pod resource claim), validatePodResourceClaims, validateOverhead and
 * validateResizePolicy.
 */
import { append } from '../api/append.ts';
import { duplicate, forbidden, invalid, notFound, notSupported, required, type FieldError, type FieldPath } from '../api/field.ts';
import type { ResourceList, ResourceRequirements } from '../api/pod-container.ts';
import type { PodSpec } from '../api/pod.ts';
import { parseQuantity, quantityString } from '../api/quantity.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from './names.ts';
import { validateResourceQuantityValue } from './resource-quantity.ts';

const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);

const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
/** helper.IsNativeResource: no domain, or a kubernetes.io one. */
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
/** helper.IsOvercommitAllowed: native resources other than hugepages. */
const overcommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);

/** validateContainerResourceName: qualified, and standard for containers or an extended resource. */
function validateContainerResourceName(name: string, path: FieldPath): FieldError[] {
  const errors = isQualifiedName(name).map((msg) => invalid(path, name, msg));
  if (!name.includes('/')) {
    if (!standardContainerResources.has(name) && !isHugePages(name)) errors.push(invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNative(name) && isQualifiedName(`requests.${name}`).length > 0) {
    errors.push(invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errors;
}

/** validateResourceQuantityHugePageValue: a whole, positive number of pages of the size the name gives. */
function validateHugePageValue(name: string, quantity: string | number, path: FieldPath): FieldError[] {
  const pageSize = parseQuantity(name.slice('hugepages-'.length));
  const value = parseQuantity(quantity);
  if (value === null) return [];
  const divisible = pageSize !== null && pageSize > 0 && Number.isInteger(pageSize) && Math.ceil(value) % pageSize === 0;
  const text = quantityString(quantity);
  return divisible ? [] : [invalid(path, text, `${text} is not positive integer multiple of ${name}`)];
}

/** validateResourceClaimNames: each claim a pod claim, referenced once (whole, or request by request). */
function validateResourceClaimNames(claims: ResourceRequirements['claims'], podClaimNames: ReadonlySet<string>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (claims ?? []).forEach((claim, i) => {
    const at = path.index(i);
    const name = claim.name ?? '';
    if (!name) {
      errors.push(required(at));
      return;
    }
    if (seen.has(name)) {
      errors.push(duplicate(at, name));
    } else {
      const request = claim.request ?? '';
      let key = name;
      if (request) {
        for (const msg of isDNS1123Label(request)) errors.push(invalid(at.child('request'), request, msg));
        key += `/${request}`;
      }
      if (seen.has(key)) errors.push(duplicate(at, key));
      else if (!request) for (const other of seen) if (other.startsWith(`${name}/`)) errors.push(duplicate(at, name));
      seen.add(key);
    }
    if (!podClaimNames.has(name)) {
      const names = [...podClaimNames].sort();
      const detail = `must be one of the names in pod.spec.resourceClaims${names.length === 0 ? ' which is empty' : `: ${names.join(', ')}`}`;
      errors.push({ ...notFound(at, name), detail });
    }
  });
  return errors;
}

/** ValidateContainerResourceRequirements, at `path` (a container's `resources`). */
export function validateResourceRequirements(resources: ResourceRequirements | undefined, podClaimNames: ReadonlySet<string>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const limits: ResourceList = resources?.limits ?? {};
  const requests: ResourceList = resources?.requests ?? {};
  const limitsPath = path.child('limits');
  const requestsPath = path.child('requests');
  let cpuOrMemory = false;
  let hugePages = false;
  for (const [name, quantity] of Object.entries(limits)) {
    const at = limitsPath.key(name);
    append(errors, validateContainerResourceName(name, at));
    append(errors, validateResourceQuantityValue(name, quantity, at));
    if (isHugePages(name)) {
      hugePages = true;
      append(errors, validateHugePageValue(name, quantity, at));
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  for (const [name, quantity] of Object.entries(requests)) {
    const at = requestsPath.key(name);
    append(errors, validateContainerResourceName(name, at));
    append(errors, validateResourceQuantityValue(name, quantity, at));
    const limit = limits[name];
    if (limit !== undefined) {
      const request = parseQuantity(quantity);
      const max = parseQuantity(limit);
      if (request !== null && max !== null) {
        // Upstream reports both at the requests, not at the resource.
        if (request !== max && !overcommitAllowed(name))
          errors.push(invalid(requestsPath, quantityString(quantity), `must be equal to ${name} limit of ${quantityString(limit)}`));
        else if (request > max)
          errors.push(invalid(requestsPath, quantityString(quantity), `must be less than or equal to ${name} limit of ${quantityString(limit)}`));
      }
    } else if (!overcommitAllowed(name)) {
      errors.push(required(limitsPath, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePages(name)) {
      hugePages = true;
      append(errors, validateHugePageValue(name, quantity, at));
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  if (hugePages && !cpuOrMemory) errors.push(forbidden(path, 'HugePages require cpu or memory'));
  append(errors, validateResourceClaimNames(resources?.claims, podClaimNames, path.child('claims')));
  return errors;
}

/** validateOverhead: the overhead as the limits of a container. */
export function validateOverhead(overhead: ResourceList, path: FieldPath): FieldError[] {
  return validateResourceRequirements({ limits: overhead }, new Set(), path);
}

/** The non-empty names of the pod's resource claims (gatherPodResourceClaimNames). */
export function podClaimNames(spec: PodSpec): Set<string> {
  return new Set((spec.resourceClaims ?? []).map((c) => c.name ?? '').filter((name) => name !== ''));
}

/** validatePodResourceClaims: unique DNS label names, each with exactly one source. */
export function validatePodResourceClaims(claims: PodSpec['resourceClaims'], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  (claims ?? []).forEach((claim, i) => {
    const at = path.index(i);
    const name = claim.name ?? '';
    if (!name) errors.push(required(at.child('name')));
    else if (names.has(name)) errors.push(duplicate(at.child('name'), name));
    else {
      for (const msg of isDNS1123Label(name)) errors.push(invalid(at.child('name'), name, msg));
      names.add(name);
    }
    const claimName = claim.resourceClaimName ?? undefined;
    const templateName = claim.resourceClaimTemplateName ?? undefined;
    if (claimName !== undefined && templateName !== undefined)
      errors.push(invalid(at, claim, 'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified'));
    if (claimName === undefined && templateName === undefined)
      errors.push(invalid(at, claim, 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'));
    if (claimName !== undefined) for (const msg of isDNS1123Subdomain(claimName)) errors.push(invalid(at.child('resourceClaimName'), claimName, msg));
    if (templateName !== undefined)
      for (const msg of isDNS1123Subdomain(templateName)) errors.push(invalid(at.child('resourceClaimTemplateName'), templateName, msg));
  });
  return errors;
}

/** validateResizePolicy: cpu and memory once each, a known policy, and NotRequired under restartPolicy Never. */
export function validateResizePolicy(
  policies: readonly { resourceName?: string; restartPolicy?: string }[],
  podRestartPolicy: string,
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  policies.forEach((policy, i) => {
    const resource = policy.resourceName ?? '';
    if (seen.has(resource)) errors.push(duplicate(path.index(i), resource));
    seen.add(resource);
    if (!resource) errors.push(required(path));
    else if (resource !== 'cpu' && resource !== 'memory') errors.push(notSupported(path, resource, ['cpu', 'memory']));
    const restart = policy.restartPolicy ?? '';
    if (!restart) errors.push(required(path));
    else if (restart !== 'NotRequired' && restart !== 'RestartContainer') errors.push(notSupported(path, restart, ['NotRequired', 'RestartContainer']));
    if (podRestartPolicy === 'Never' && restart !== 'NotRequired') errors.push(invalid(path, restart, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
  });
  return errors;
}
