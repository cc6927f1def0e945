/**
 * A static pod manifest (a file's text or a URL's body) turned into the pods the agent runs, as the
 * kubelet's pkg/kubelet/config/common.go does: tryDecodeSinglePod, tryDecodePodList and
 * applyDefaults, with their error texts, because people read them in the agent's log to fix a
 * manifest (`<file>: couldn't parse as pod(...), please check config file`, `invalid pod: [...]`).
 *
 * Order of steps (upstream's): decode (JSON or YAML, must be a v1 Pod or PodList); a name is
 * required; the API's defaults (injected: the API server's own defaulter); then the static pod
 * rules: a UID hashed from the pod and its origin (kept when the manifest sets one), the name
 * suffixed with `-<node name in lower case>`, namespace `default` when empty, spec.nodeName, the
 * config hash annotation (= the UID), for files the "tolerate every NoExecute taint" toleration,
 * phase Pending; then validation (injected: the API server's pod validation, so that a static pod
 * is held to the same rules as a created one); then the checks only static pods get (no
 * ClusterTrustBundle projections, no ResourceClaims: they would reach API objects the node may not read).
 *
 * The UID: upstream hashes the decoded Go struct with md5 through go-spew's printing, which has no
 * counterpart here; corral hashes the pod's canonical JSON (keys sorted) with md5, then
 * `host:<node>file:<path>` or `url:<url>`, as upstream appends after the object. The result is the
 * same kind of value (32 hex digits, stable for an unchanged manifest, new for any change), not the
 * same digits as a kubelet would compute.
 */
import { createHash } from 'node:crypto';
import { fieldErrorString, type FieldError } from '../../shared/api/field.ts';
import { isObject, type KubeObject } from '../../shared/api/types.ts';
import { parseBody } from '../../shared/codec/body.ts';
import { podSchema } from '../../shared/api/pod.ts';
import { listSchema, type Schema } from '../../shared/api/schema.ts';
import { checkAgainstSchema, SchemaTypeError } from '../../shared/codec/schema-check.ts';
import { isStatusError } from '../../shared/api/errors.ts';
import { configHashAnnotation, type Pod, type Toleration } from './pod.ts';

/** Where static pods come from: a file (or a directory's files) or a URL. */
export type StaticPodSourceKind = 'file' | 'http';

/** Upstream's maxConfigLength: a manifest file or URL body larger than 10 MiB is refused. */
export const maxManifestBytes = 10 * (1 << 20);

/** k8s.io/utils/io.ErrLimitReached, what upstream reports for a manifest over maxManifestBytes. */
export const readLimitReachedMessage = 'the read limit is reached';

export interface StaticPodRules {
  nodeName: string;
  /** The API server's defaulting of a Pod, applied in place (as decoding applies v1 defaults upstream). */
  applyDefaults: (pod: KubeObject) => void;
  /** The API server's validation of a Pod on create. */
  validate: (pod: KubeObject) => FieldError[];
}

/** Upstream's (parsed, pods, err) triple: `parsed` is false when the text is not a Pod (or PodList) at all. */
export type DecodeResult = { parsed: false; error: string } | { parsed: true; error: string } | { parsed: true; pods: Pod[] };

/** Upstream's error for a ClusterTrustBundle projected volume in a static pod. */
export const clusterTrustBundleMessage = 'static pods may not use ClusterTrustBundle projected volume sources';
/** Upstream's error for ResourceClaims in a static pod. */
export const resourceClaimsMessage = 'static pods may not use ResourceClaims';

/** tryDecodeSinglePod: the text as one Pod, defaulted, made static and validated. */
export function decodeSinglePod(text: string, kind: StaticPodSourceKind, origin: string, rules: StaticPodRules): DecodeResult {
  const object = decodeObject(text, 'Pod');
  if ('error' in object) return { parsed: false, error: object.error };
  const pod = object.value as Pod;
  const error = makeStaticPod(pod, kind, origin, rules);
  return error === undefined ? { parsed: true, pods: [pod] } : { parsed: true, error };
}

/** tryDecodePodList: the text as a PodList, each item defaulted, made static and validated; the first failure fails them all. */
export function decodePodList(text: string, kind: StaticPodSourceKind, origin: string, rules: StaticPodRules): DecodeResult {
  const object = decodeObject(text, 'PodList');
  if ('error' in object) return { parsed: false, error: object.error };
  const items = Array.isArray(object.value['items']) ? (object.value['items'] as unknown[]) : [];
  const pods: Pod[] = [];
  for (const item of items) {
    if (!isObject(item)) return { parsed: true, error: 'invalid pod: an item of the list is not an object' };
    const pod = { ...item, metadata: isObject(item['metadata']) ? item['metadata'] : {} } as Pod;
    const error = makeStaticPod(pod, kind, origin, rules);
    if (error !== undefined) return { parsed: true, error };
    pods.push(pod);
  }
  return { parsed: true, pods };
}

/** A file's manifest: one Pod, or upstream's "couldn't parse" error naming the file. */
export function decodeManifestFile(text: string, path: string, rules: StaticPodRules): { pod: Pod } | { error: string } {
  const result = decodeSinglePod(text, 'file', path, rules);
  if ('pods' in result && result.pods[0]) return { pod: result.pods[0] };
  if (result.parsed) return { error: 'error' in result ? result.error : 'invalid pod' };
  return { error: `${path}: couldn't parse as pod(${result.error}), please check config file` };
}

/** A URL's body: one Pod, else a PodList; upstream's combined error when it is neither. */
export function decodeManifestBody(text: string, url: string, rules: StaticPodRules): { pods: Pod[] } | { error: string } {
  const single = decodeSinglePod(text, 'http', url, rules);
  if (single.parsed) return 'pods' in single ? { pods: single.pods } : { error: single.error };
  const list = decodePodList(text, 'http', url, rules);
  if (list.parsed) return 'pods' in list ? { pods: list.pods } : { error: list.error };
  return { error: `${url}: received '${text}', but couldn't parse as single (${single.error}) or multiple pods (${list.error})` };
}

/**
 * Upstream's JSON-or-YAML decoding of one object to a registered kind: the text's syntax errors,
 * then a missing kind or apiVersion, then the kind must be the one wanted in core v1.
 */
function decodeObject(text: string, want: 'Pod' | 'PodList'): { value: Record<string, unknown> } | { error: string } {
  const json = /^\s*\{/.test(text);
  let value: unknown;
  try {
    value = parseBody(text, json ? 'json' : 'yaml', false).value;
  } catch (err) {
    // utilyaml.ToJSON returns the YAML parser's error as is (one line; this parser adds an excerpt
    // of the text below it); the JSON decoder's carries its "couldn't get version/kind" prefix.
    if (isStatusError(err)) return { error: (err.message.split('\n')[0] ?? '').replace(/^error converting YAML to JSON: /, '') };
    throw err;
  }
  const shown = json ? text : JSON.stringify(sortKeys(value ?? null));
  if (!isObject(value) || typeof value['kind'] !== 'string' || value['kind'] === '') return { error: `Object 'Kind' is missing in '${shown}'` };
  if (typeof value['apiVersion'] !== 'string' || value['apiVersion'] === '') return { error: `Object 'apiVersion' is missing in '${shown}'` };
  const kind = value['kind'];
  const apiVersion = value['apiVersion'];
  if (apiVersion !== 'v1')
    return { error: `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "pkg/api/legacyscheme/scheme.go:30"` };
  // Upstream prints the decoded object with %#v here; its kind says what was found instead.
  if (kind !== want) return { error: `${want === 'Pod' ? 'invalid pod' : 'invalid pods list'}: kind ${JSON.stringify(kind)}` };
  if (value['metadata'] !== undefined && !isObject(value['metadata'])) return { error: 'invalid pod: metadata must be an object' };
  if (value['spec'] !== undefined && !isObject(value['spec'])) return { error: 'invalid pod: spec must be an object' };
  // Go's typed decoding: a field of the wrong type fails it, nulls become zero values; what follows relies on the types.
  try {
    checkAgainstSchema(value, kindSchemas()[want], want);
  } catch (err) {
    if (err instanceof SchemaTypeError) return { error: err.message };
    throw err;
  }
  return { value: { ...value, metadata: value['metadata'] ?? {} } };
}

let schemas: { Pod: Schema; PodList: Schema } | undefined;

/** The schemas of Pod and PodList, built once: checks are compiled per schema object. */
function kindSchemas(): { Pod: Schema; PodList: Schema } {
  if (!schemas) {
    const pod = podSchema();
    schemas = { Pod: pod, PodList: listSchema(pod) };
  }
  return schemas;
}

/** Everything after decoding, in upstream's order; the error text, or undefined when the pod may run. */
function makeStaticPod(pod: Pod, kind: StaticPodSourceKind, origin: string, rules: StaticPodRules): string | undefined {
  if (!pod.metadata.name) return 'invalid pod: name is needed for the pod';
  rules.applyDefaults(pod);
  applyStaticPodDefaults(pod, kind, origin, rules.nodeName);
  const errors = rules.validate(pod);
  if (errors.length > 0) return invalidPodMessage(errors);
  for (const volume of pod.spec?.volumes ?? []) {
    if ((volume.projected?.sources ?? []).some((source) => source['clusterTrustBundle'] !== undefined && source['clusterTrustBundle'] !== null)) {
      return clusterTrustBundleMessage;
    }
  }
  if ((pod.spec?.resourceClaims ?? []).length > 0) return resourceClaimsMessage;
  return undefined;
}

/** Upstream's `invalid pod: %v` of a field.ErrorList: the errors in brackets, separated by spaces. */
export function invalidPodMessage(errors: readonly FieldError[]): string {
  return `invalid pod: [${errors.map(fieldErrorString).join(' ')}]`;
}

/** Upstream's generatePodName: the manifest's name, a dash, the node name in lower case. */
export function staticPodName(name: string, nodeName: string): string {
  return `${name}-${nodeName.toLowerCase()}`;
}

/** The UID of a static pod: md5 of the pod's canonical JSON and its origin (see the header). */
export function staticPodUid(pod: Pod, kind: StaticPodSourceKind, origin: string, nodeName: string): string {
  const hash = createHash('md5');
  hash.update(JSON.stringify(sortKeys(pod)));
  hash.update(kind === 'file' ? `host:${nodeName}file:${origin}` : `url:${origin}`);
  return hash.digest('hex');
}

/** The toleration every file static pod gets, so that node problems never evict it. */
export const tolerateNoExecute: Toleration = { operator: 'Exists', effect: 'NoExecute' };

/** Upstream's applyDefaults of pkg/kubelet/config/common.go, in place. */
export function applyStaticPodDefaults(pod: Pod, kind: StaticPodSourceKind, origin: string, nodeName: string): void {
  if (!pod.metadata.uid) pod.metadata.uid = staticPodUid(pod, kind, origin, nodeName);
  pod.metadata.name = staticPodName(pod.metadata.name ?? '', nodeName);
  if (!pod.metadata.namespace) pod.metadata.namespace = 'default';
  pod.spec = { ...(pod.spec ?? {}), nodeName };
  pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [configHashAnnotation]: pod.metadata.uid };
  if (kind === 'file') addOrUpdateToleration(pod, tolerateNoExecute);
  pod.status = { ...(pod.status ?? {}), phase: 'Pending' };
}

/**
 * Upstream's helper.AddOrUpdateTolerationInPod: a toleration matching on key, operator, value and
 * effect is replaced (tolerationSeconds may differ), otherwise the toleration is appended.
 */
function addOrUpdateToleration(pod: Pod, toleration: Toleration): void {
  const spec = pod.spec ?? {};
  const same = (t: Toleration): boolean =>
    (t.key ?? '') === (toleration.key ?? '') &&
    (t.operator ?? '') === (toleration.operator ?? '') &&
    (t.value ?? '') === (toleration.value ?? '') &&
    (t.effect ?? '') === (toleration.effect ?? '');
  const tolerations = [...(spec.tolerations ?? [])];
  const at = tolerations.findIndex(same);
  if (at >= 0) tolerations[at] = { ...toleration };
  else tolerations.push({ ...toleration });
  pod.spec = { ...spec, tolerations };
}

/** A JSON value with every object's keys sorted, so that equal pods serialize (and hash) alike. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
  return out;
}
