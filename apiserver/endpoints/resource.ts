/**
 * The verb handlers of resource requests: get, list, create, update, patch, delete and
 * deletecollection, for every kind, driven by its definition. Each handler parses and validates
 * its query, decodes the body, calls the generic store and shapes the answer; the store does the
 * rest (validation, admission, storage).
 */
import fastJsonPatch from 'fast-json-patch';
import {
  badRequest,
  conflict,
  invalid,
  methodNotAllowed,
  namespaceMismatch,
  notFound,
  pathNotFound,
  unprocessableEntity,
  type StatusError,
} from '../../shared/api/errors.ts';
import { FieldPath, forbidden, invalid as invalidField, notSupported, type FieldError } from '../../shared/api/field.ts';
import { isObject, type KubeList, type KubeObject, type Status } from '../../shared/api/types.ts';
import { applyMergePatch } from '../../shared/codec/mergepatch.ts';
import { parseJson } from '../../shared/codec/json.ts';
import { checkResourceVersion } from './resource-version.ts';
import { applyStrategicMergePatch } from '../../shared/codec/strategic-merge-patch.ts';
import { apiVersionOf, type RequestContext, type ResourceDefinition, type ReviewHandler, type Verb } from '../registry/definition.ts';
import type { Registry, ServedResource } from '../registry/registry.ts';
import type { DeleteOptions, GenericStore, ListOptions } from '../registry/store.ts';
import type { RequestInfo } from '../server/requestinfo.ts';
import { checkDecoded, decodeObject, decodeProtobuf, parseBodyYielding, type FieldValidation } from './decode.ts';
import { parseBody } from '../../shared/codec/body.ts';
import { deleteOptionsSchema } from '../../shared/api/schema.ts';
import { checkAgainstSchema, SchemaTypeError } from '../../shared/codec/schema-check.ts';
import type { PropagationPolicy } from '../registry/deletion-finalizers.ts';
import { validateFieldManager } from '../../shared/validation/objectmeta.ts';
import { createFieldManager, managerFromUserAgent, patchOptionsErrors } from '../registry/managed-fields.ts';
import type { Derivation, Replacement, Transform, WriteOptions } from '../registry/store.ts';
import { TimeSlice } from '../../shared/apply/time-slice.ts';

/** The field manager applies go through; it keeps no state between requests. */
const fieldManager = createFieldManager();

const deleteOptionsMessage = deleteOptionsSchema();
import { buildListFilter } from './list-filter.ts';
import { bodyFormat, negotiate, patchType, type PatchType } from './negotiation.ts';
import { partialObjectMetadata, toTable, type IncludeObject } from './table.ts';
import { watchRequest, type WatchResponse } from './watch.ts';
import { listType, objectType, partialMetadataType, serialize, serializeList, serializeStatus, serializeYielding, type Serialized } from './serialize.ts';
import { isTrue } from '../server/requestinfo.ts';
import { queryBool } from '../../shared/go/parse-bool.ts';
import { append } from '../../shared/api/append.ts';

export interface ApiRequest {
  info: RequestInfo;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** Reads the whole body (bounded by the server's size limit). */
  readBody(): Promise<Buffer>;
  context: RequestContext;
}

export interface ApiResponse {
  status: number;
  /** The serialized body and its Content-Type. */
  body: Serialized;
  warnings: string[];
}

const supportedPatchTypes: readonly PatchType[] = ['json-patch', 'merge-patch', 'strategic-merge-patch', 'apply-patch'];

function header(req: ApiRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function optionsInvalid(kind: string, errors: FieldError[]): StatusError {
  return invalid({ group: 'meta.k8s.io', kind }, '', errors);
}

/** dryRun, fieldValidation and fieldManager of a write, validated as upstream validates *Options. */
/** Upstream's ValidateDryRun: one error naming the whole list, printed as Go's %#v of a []string. */
function dryRunErrors(values: readonly string[]): FieldError[] {
  if (values.every((v) => v === 'All')) return [];
  const goSlice = `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
  return [{ ...notSupported(FieldPath.root('dryRun'), values, ['All']), valueText: goSlice }];
}

interface RequestWriteOptions extends WriteOptions {
  fieldValidation: FieldValidation;
}

/**
 * The options of a write, validated in upstream's order (apply's own rules first, then the field
 * manager, dryRun and fieldValidation) and reported together as `<Kind>Options.meta.k8s.io "" is invalid`.
 */
function writeOptions(req: ApiRequest, optionsKind: string, apply?: { isApply: boolean }): RequestWriteOptions {
  const fieldManager = req.query.get('fieldManager');
  const errors: FieldError[] = apply ? patchOptionsErrors(apply.isApply, fieldManager, req.query.has('force')) : [];
  append(errors, validateFieldManager(fieldManager ?? undefined, FieldPath.root('fieldManager')));
  const dryRunValues = req.query.getAll('dryRun');
  append(errors, dryRunErrors(dryRunValues));
  const fieldValidation = req.query.get('fieldValidation') ?? 'Warn';
  if (fieldValidation !== 'Ignore' && fieldValidation !== 'Warn' && fieldValidation !== 'Strict' && fieldValidation !== '') {
    errors.push(notSupported(FieldPath.root('fieldValidation'), fieldValidation, ['', 'Ignore', 'Strict', 'Warn']));
  }
  if (errors.length) throw optionsInvalid(optionsKind, errors);
  return {
    dryRun: dryRunValues.length > 0,
    fieldValidation: (fieldValidation || 'Warn') as FieldValidation,
    manager: fieldManager || managerFromUserAgent(header(req, 'user-agent')),
    ...(apply?.isApply ? { apply: true } : {}),
  };
}

function parseIntParam(req: ApiRequest, name: string): number | undefined {
  const text = req.query.get(name);
  if (text === null || text === '') return undefined;
  if (!/^-?\d+$/.test(text)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Number(text);
}

/** List options from the query, with upstream's checks on their combinations. */
function listOptions(req: ApiRequest, def: ResourceDefinition): ListOptions {
  const resourceVersion = req.query.get('resourceVersion') ?? undefined;
  const resourceVersionMatch = req.query.get('resourceVersionMatch') ?? undefined;
  const continueToken = req.query.get('continue') || undefined;
  const limit = parseIntParam(req, 'limit');
  // Upstream's ValidateListOptions for lists: every problem is reported, in this order.
  const errors: FieldError[] = [];
  const rvm = FieldPath.root('resourceVersionMatch');
  if (resourceVersionMatch) {
    if (!resourceVersion) errors.push(forbidden(rvm, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (continueToken) errors.push(forbidden(rvm, 'resourceVersionMatch is forbidden when continue is provided'));
    if (resourceVersionMatch !== 'Exact' && resourceVersionMatch !== 'NotOlderThan') {
      errors.push(notSupported(rvm, resourceVersionMatch, ['Exact', 'NotOlderThan', '']));
    }
    if (resourceVersionMatch === 'Exact' && resourceVersion === '0')
      errors.push(forbidden(rvm, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (req.query.has('sendInitialEvents')) errors.push(forbidden(FieldPath.root('sendInitialEvents'), 'sendInitialEvents is forbidden for list'));
  if (errors.length) throw optionsInvalid('ListOptions', errors);
  if (continueToken && resourceVersion && resourceVersion !== '0') {
    throw badRequest('specifying resource version is not allowed when using continue');
  }
  checkResourceVersion(resourceVersion);
  return {
    filter: buildListFilter(def, req.query.get('labelSelector') ?? '', req.query.get('fieldSelector') ?? ''),
    ...(limit && limit > 0 ? { limit } : {}),
    ...(continueToken ? { continueToken } : {}),
    ...(resourceVersion ? { resourceVersion } : {}),
    ...(resourceVersionMatch ? { resourceVersionMatch } : {}),
  };
}

function includeObject(req: ApiRequest): IncludeObject {
  const value = req.query.get('includeObject') ?? 'Metadata';
  if (value !== 'None' && value !== 'Metadata' && value !== 'Object' && value !== '') {
    throw optionsInvalid('TableOptions', [notSupported(FieldPath.root('includeObject'), value, ['Metadata', 'None', 'Object'])]);
  }
  return value || 'Metadata';
}

/** Shapes a single object or a list into the representation negotiated for the request. */
async function represent(
  req: ApiRequest,
  def: ResourceDefinition,
  content: KubeObject | KubeList,
  isList: boolean,
  slice: TimeSlice = new TimeSlice(),
): Promise<ApiResponse> {
  const representation = negotiate(header(req, 'accept'), true);
  const { format } = representation;
  const pretty = isTrue(req.query.get('pretty'));
  const ok = (body: Serialized): ApiResponse => ({ status: 200, body, warnings: [] });
  if (representation.kind === 'object') {
    return ok(
      isList
        ? await serializeList(content as KubeList, format, listType(def), pretty, slice)
        : await serializeYielding(content, format, objectType(def), pretty, slice),
    );
  }
  const items = isList ? (content as KubeList).items : [content as KubeObject];
  const listMeta = isList ? (content as KubeList).metadata : { resourceVersion: (content as KubeObject).metadata.resourceVersion ?? '' };
  // A Table carries whole objects with includeObject=Object, and metadata lists can be long: both
  // are written as objects are, in slices when large.
  if (representation.kind === 'table') {
    const table = toTable(def, items, listMeta, includeObject(req), representation.version, req.context.now);
    return ok(await serializeYielding(table, format, undefined, pretty, slice));
  }
  const { version } = representation;
  if (!isList) return ok(serialize(partialObjectMetadata(content as KubeObject, version), format, partialMetadataType(version, false), pretty));
  const list = {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: listMeta,
    items: items.map((o) => partialObjectMetadata(o, version)),
  };
  return ok(await serializeYielding(list, format, partialMetadataType(version, true), pretty, slice));
}

/**
 * A review kind's answer: the request, placed in the request's namespace as any create is (400 for
 * another one), validated by the kind, then completed by its handler. Upstream names no object in
 * a review's 422 (`... "" is invalid`).
 */
async function review(def: ResourceDefinition, object: KubeObject, context: RequestContext, namespace: string): Promise<KubeObject> {
  const sent = object.metadata.namespace;
  if (def.namespaced) {
    if (sent && sent !== namespace) throw namespaceMismatch();
    object.metadata.namespace = namespace;
  } else {
    delete object.metadata.namespace;
  }
  const errors = def.strategy.validate(object, context);
  if (errors.length) throw invalid({ group: def.group, kind: def.kind }, '', errors);
  return (def.review as ReviewHandler).create(object, context, namespace);
}

function requireStore(served: ServedResource): GenericStore {
  if (!served.store) throw methodNotAllowed();
  return served.store;
}

/** Resolves the request to a served kind and checks scope, subresource and verb. */
function resolve(registry: Registry, info: RequestInfo): ServedResource {
  const served = registry.lookup(info.apiGroup, info.apiVersion, info.resource);
  if (!served) throw pathNotFound();
  const def = served.definition;
  // A cluster-scoped kind under /namespaces/<ns>/ does not exist (except namespaces themselves).
  if (!def.namespaced && info.namespace && def.plural !== 'namespaces') throw pathNotFound();
  if (info.parts.length > 3) throw pathNotFound();
  if (info.subresource) {
    const sub = def.subresources?.[info.subresource];
    if (!sub) throw pathNotFound();
    if (!(sub.verbs as readonly string[]).includes(info.verb)) throw methodNotAllowed();
    return served;
  }
  if (!(def.verbs as readonly string[]).includes(info.verb)) throw methodNotAllowed();
  // POST names a collection; PUT and PATCH name an object: other shapes have no route upstream.
  if (info.verb === 'create' && info.name) throw methodNotAllowed();
  if ((info.verb === 'update' || info.verb === 'patch') && !info.name) throw methodNotAllowed();
  // Writes and reads of one object of a namespaced kind need the namespace in the path.
  if (def.namespaced && !info.namespace && !['list', 'watch'].includes(info.verb)) throw pathNotFound();
  return served;
}

export async function handleResource(registry: Registry, req: ApiRequest): Promise<ApiResponse | WatchResponse> {
  const { info } = req;
  const served = resolve(registry, info);
  const def = served.definition;
  const namespace = def.namespaced ? info.namespace : '';
  const verb = info.verb as Verb;
  // An unacceptable Accept fails before anything is read or written.
  if (verb !== 'watch') negotiate(header(req, 'accept'), true);
  const warnings = def.deprecationWarning ? [def.deprecationWarning] : [];
  const response = await dispatch(served, verb, namespace, req);
  if ('warnings' in response) response.warnings.unshift(...warnings);
  return response;
}

async function dispatch(served: ServedResource, verb: Verb, namespace: string, req: ApiRequest): Promise<ApiResponse | WatchResponse> {
  const def = served.definition;
  const { info, context } = req;
  switch (verb) {
    case 'get': {
      if (def.computed) {
        const found = (await def.computed.list()).find((o) => o.metadata.name === info.name);
        if (!found) throw notFound({ group: def.group, resource: def.plural }, info.name);
        return represent(req, def, found, false);
      }
      const resourceVersion = req.query.get('resourceVersion') || undefined;
      checkResourceVersion(resourceVersion);
      return represent(req, def, await requireStore(served).get(namespace, info.name, resourceVersion), false);
    }
    case 'list': {
      const options = listOptions(req, def);
      if (def.computed) {
        const items = (await def.computed.list()).filter((o) => options.filter.matches(o));
        return represent(req, def, { apiVersion: apiVersionOf(def), kind: `${def.kind}List`, metadata: {}, items }, true);
      }
      return represent(req, def, await requireStore(served).list(namespace, options), true);
    }
    case 'watch':
      return watchRequest(def, requireStore(served), namespace, req.query, header(req, 'accept'));
    case 'create': {
      const opts = writeOptions(req, 'CreateOptions');
      const body = await req.readBody();
      // The write's work starts here: one slice from decoding to the store's last step.
      const slice = new TimeSlice();
      const { object, warnings } = await decodeObject(def, body, bodyFormat(header(req, 'content-type')), opts.fieldValidation, slice);
      if (def.review) return { ...(await represent(req, def, await review(def, object, context, namespace), false, slice)), status: 201, warnings };
      const created = await requireStore(served).create(namespace, object, context, { ...opts, slice });
      return {
        ...(await represent(req, def, created, false, slice)),
        status: 201,
        warnings: [...warnings, ...(def.strategy.warnings?.(created, undefined) ?? [])],
      };
    }
    case 'update': {
      const opts = writeOptions(req, 'UpdateOptions');
      const body = await req.readBody();
      const format = bodyFormat(header(req, 'content-type'));
      const slice = new TimeSlice();
      const { object, warnings } = await decodeObject(def, body, format, opts.fieldValidation, slice);
      // The store takes the object over; a retry decodes the body again (its warnings are these).
      const sent: Replacement = {
        replacement: firstThenFresh<KubeObject | Promise<KubeObject>>(object, async () => (await decodeObject(def, body, format, 'Ignore', slice)).object),
      };
      const outcome = await requireStore(served).update(namespace, info.name, info.subresource, sent, context, { ...opts, slice });
      return { ...(await represent(req, def, outcome.object, false, slice)), status: outcome.created ? 201 : 200, warnings };
    }
    case 'patch': {
      const type = patchType(header(req, 'content-type'), supportedPatchTypes);
      const opts = writeOptions(req, 'PatchOptions', { isApply: type === 'apply-patch' });
      const patchText = (await req.readBody()).toString('utf8');
      const slice = new TimeSlice();
      if (type === 'apply-patch') return apply(served, namespace, req, { ...opts, slice }, patchText);
      // The result may share values with the patch, and the store changes the result: each call
      // takes a patch of its own, the one parsed here first, a fresh parse on a retry.
      const nextPatch = firstThenFresh(parsePatch(type, patchText), () => parsePatch(type, patchText));
      await slice.boundary();
      const warnings: string[] = [];
      const patchCurrent = async (current: KubeObject | null): Promise<KubeObject> => {
        if (!current) throw notFound({ group: def.group, resource: def.plural }, info.name);
        const patched = applyPatch(def, type, current, nextPatch());
        await slice.boundary();
        const checked = checkDecoded(def, patched, [], opts.fieldValidation);
        warnings.splice(0, warnings.length, ...checked.warnings);
        return checked.object;
      };
      // A strategic merge patch copies what it patches, so it reads the stored object as it is;
      // merge and JSON patches change (a copy of) it in place.
      const transform: Transform | Derivation = type === 'strategic-merge-patch' ? { derive: patchCurrent } : patchCurrent;
      const outcome = await requireStore(served).update(namespace, info.name, info.subresource, transform, context, { ...opts, slice });
      return { ...(await represent(req, def, outcome.object, false, slice)), status: 200, warnings };
    }
    case 'delete': {
      const opts = await deleteOptions(req);
      const store = requireStore(served);
      const outcome = await store.delete(namespace, info.name, context, opts);
      const format = negotiate(header(req, 'accept'), false).format;
      const body =
        outcome.deleted && !def.deleteReturnsObject
          ? serializeStatus(store.deletedStatus(outcome.object), format)
          : serialize(outcome.object, format, objectType(def));
      // Upstream answers 202 when an object is kept for finalization after the deprecated orphanDependents=false.
      return { status: !outcome.deleted && opts.orphanDependents === false ? 202 : 200, body, warnings: [] };
    }
    case 'deletecollection': {
      const opts = await deleteOptions(req);
      const list = listOptions(req, def);
      await requireStore(served).deleteCollection(namespace, list, context, opts);
      const success: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' };
      return { status: 200, body: serializeStatus(success, negotiate(header(req, 'accept'), false).format), warnings: [] };
    }
  }
}

/**
 * Server-side apply: the applied configuration (YAML or JSON) is merged into the live object by
 * the field manager, which creates the object when it does not exist.
 */
async function apply(
  served: ServedResource,
  namespace: string,
  req: ApiRequest,
  opts: RequestWriteOptions & { slice: TimeSlice },
  text: string,
): Promise<ApiResponse> {
  const def = served.definition;
  const { slice } = opts;
  const { value, duplicates } = await parseApplyBody(text, opts.fieldValidation !== 'Ignore', slice);
  await slice.boundary();
  // The field manager takes the configuration over: each call gets one of its own, the one parsed
  // here first, a fresh parse on a retry.
  const nextConfig = firstThenFresh<Record<string, unknown> | Promise<Record<string, unknown>>>(
    value,
    async () => (await parseApplyBody(text, false, slice)).value,
  );
  const force = queryBool(req.query.get('force'));
  const uid = isObject(value.metadata) && typeof value.metadata.uid === 'string' ? value.metadata.uid : '';
  const outcome = await requireStore(served).update(
    namespace,
    req.info.name,
    req.info.subresource,
    async (current) => {
      if (!current && uid) {
        throw conflict(
          { group: def.group, resource: def.plural },
          req.info.name,
          `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`,
        );
      }
      const applied = await fieldManager.apply(current, (await nextConfig()) as KubeObject, {
        definition: def,
        manager: opts.manager,
        subresource: req.info.subresource,
        now: req.context.now,
        force,
        slice,
      });
      await slice.boundary();
      // Upstream checks strictness after merging, so a conflict is reported first.
      if (duplicates.length && opts.fieldValidation === 'Strict') {
        throw badRequest(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`);
      }
      // The merged object becomes the typed object upstream's decoding makes of it (nulls as Go's zeros).
      return checkDecoded(def, applied, [], 'Ignore').object;
    },
    req.context,
    opts,
  );
  const warnings = opts.fieldValidation === 'Warn' ? duplicates : [];
  return { ...(await represent(req, def, outcome.object, false, slice)), status: outcome.created ? 201 : 200, warnings };
}

/**
 * What a transform starts from, once per call: the first call takes `first` over, and a later one
 * (the store's retry after a lost race, a stale cache or a write too large for etcd) gets a fresh
 * `again()`, decoded from the body once more. Decoding again costs less than a deep copy kept
 * for every request against the retry that few of them make.
 */
function firstThenFresh<T>(first: T, again: () => T): () => T {
  let unused: { value: T } | undefined = { value: first };
  return () => {
    const taken = unused;
    unused = undefined;
    return taken ? taken.value : again();
  };
}

/**
 * An apply body: YAML, which must be an object. JSON is YAML, and kubectl sends JSON, which the
 * JSON parser reads several times faster than the YAML one.
 */
async function parseApplyBody(text: string, wantDuplicates: boolean, slice: TimeSlice): Promise<{ value: Record<string, unknown>; duplicates: string[] }> {
  let parsed;
  try {
    parsed = await parseBodyYielding(text, text.trimStart().startsWith('{') ? 'json' : 'yaml', wantDuplicates, slice);
  } catch (err) {
    throw badRequest(`error decoding YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isObject(parsed.value)) throw badRequest('error decoding YAML: the applied configuration must be an object');
  return { value: parsed.value, duplicates: parsed.duplicates };
}

function parsePatch(type: PatchType, text: string): unknown {
  let patch: unknown;
  try {
    patch = parseJson(text);
  } catch (err) {
    throw badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (type === 'json-patch' && !Array.isArray(patch)) {
    throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  }
  if (type === 'merge-patch' && !isObject(patch)) throw badRequest('json: cannot unmarshal into Go value of type map[string]interface {}');
  return patch;
}

const jsonPatchOps = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

function applyPatch(def: ResourceDefinition, type: PatchType, current: KubeObject, patch: unknown): Record<string, unknown> {
  let result: unknown;
  if (type === 'merge-patch') {
    result = applyMergePatch(current, patch);
  } else if (type === 'strategic-merge-patch') {
    result = applyStrategicMergePatch(current, patch, def.schema);
  } else {
    const operations = patch as unknown[];
    for (const op of operations) {
      if (!isObject(op) || typeof op.op !== 'string' || !jsonPatchOps.has(op.op)) {
        throw badRequest(`the server rejected our request due to an error in our request`);
      }
    }
    // `current` is the transform's own copy, patched in place, but its managedFields entries are
    // shared with the stored object (store.ts, Transform): copied first when an operation reaches
    // into them.
    const entries = current.metadata.managedFields;
    if (entries && operations.some((op) => isObject(op) && [op.path, op.from].some((p) => typeof p === 'string' && p.startsWith('/metadata/managedFields/')))) {
      current.metadata.managedFields = structuredClone(entries);
    }
    try {
      result = fastJsonPatch.applyPatch(current, operations as fastJsonPatch.Operation[], true, true).newDocument;
    } catch (err) {
      const message = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
      throw unprocessableEntity(`the server rejected our request due to an error in our request: ${message}`);
    }
  }
  if (!isObject(result)) throw badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: patch did not produce an object`);
  return result;
}

/** DeleteOptions from the body (optional) and the query; query values win as upstream. */
async function deleteOptions(req: ApiRequest): Promise<DeleteOptions> {
  const body = await req.readBody();
  let options: Record<string, unknown> = {};
  if (body.length > 0) {
    const format = bodyFormat(header(req, 'content-type'));
    const value = format === 'protobuf' ? decodeProtobuf(body, deleteOptionsMessage) : parseBody(body.toString('utf8'), format, false).value;
    if (!isObject(value)) throw badRequest('the body of the request must be a DeleteOptions object');
    if (value.kind !== undefined && value.kind !== 'DeleteOptions') throw badRequest(`the kind of the body (${String(value.kind)}) must be DeleteOptions`);
    try {
      checkAgainstSchema(value, deleteOptionsMessage, 'DeleteOptions');
    } catch (err) {
      // A field of the wrong type (`"orphanDependents": "yes"`): Go's decoding error.
      if (err instanceof SchemaTypeError) throw badRequest(err.message);
      throw err;
    }
    options = value;
  }
  const errors: FieldError[] = [];
  const propagation = req.query.get('propagationPolicy') ?? (typeof options.propagationPolicy === 'string' ? options.propagationPolicy : undefined);
  // The deprecated twin of propagationPolicy; the query reads it as meta/v1's boolean parameters.
  const orphanQuery = req.query.get('orphanDependents');
  const orphanDependents = orphanQuery !== null ? queryBool(orphanQuery) : typeof options.orphanDependents === 'boolean' ? options.orphanDependents : undefined;
  // Upstream's ValidateDeleteOptions, in its order and words.
  if (orphanDependents !== undefined && propagation !== undefined) {
    errors.push(invalidField(FieldPath.root('propagationPolicy'), propagation, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (propagation !== undefined && !isPropagationPolicy(propagation)) {
    errors.push(notSupported(FieldPath.root('propagationPolicy'), propagation, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  const grace = parseIntParam(req, 'gracePeriodSeconds') ?? (typeof options.gracePeriodSeconds === 'number' ? options.gracePeriodSeconds : undefined);
  if (grace !== undefined && grace < 0)
    errors.push({ type: 'FieldValueInvalid', field: 'gracePeriodSeconds', value: grace, detail: 'must be greater than or equal to 0' });
  const dryRun = [...req.query.getAll('dryRun'), ...(Array.isArray(options.dryRun) ? options.dryRun.map(String) : [])];
  append(errors, dryRunErrors(dryRun));
  if (errors.length) throw optionsInvalid('DeleteOptions', errors);
  const pre = isObject(options.preconditions) ? options.preconditions : {};
  const preconditions = {
    ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
    ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
  };
  return {
    dryRun: dryRun.length > 0,
    preconditions,
    ...(propagation !== undefined && isPropagationPolicy(propagation) ? { propagationPolicy: propagation } : {}),
    ...(orphanDependents !== undefined ? { orphanDependents } : {}),
    ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}),
  };
}

function isPropagationPolicy(value: string): value is PropagationPolicy {
  return value === 'Orphan' || value === 'Background' || value === 'Foreground';
}
