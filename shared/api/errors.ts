/**
 * The one error type of the API: a StatusError *is* the wire Status. Build it only through the
 * factories below; their messages follow upstream's formats exactly because clients parse them
 * (kubectl matches "not found", "already exists", "the object has been modified", ...).
 */
import type { ListMeta, Status, StatusCause, StatusDetails } from './types.ts';
import { fieldErrorBody, fieldErrorString, type FieldError } from './field.ts';

export interface GroupResource {
  group: string;
  resource: string;
}

export interface GroupKind {
  group: string;
  kind: string;
}

export class StatusError extends Error {
  readonly status: Status;
  /** The HTTP status code, also in the body. */
  readonly code: number;
  /** Seconds for a Retry-After header, when the client should try again later. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    status: Omit<Status, 'kind' | 'apiVersion' | 'metadata' | 'status' | 'code'> & { code: number; metadata?: ListMeta },
    retryAfterSeconds?: number,
  ) {
    super(status.message);
    this.name = 'StatusError';
    this.status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...status };
    this.code = status.code;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  get reason(): string | undefined {
    return this.status.reason;
  }
}

export function isStatusError(err: unknown, reason?: string): err is StatusError {
  return err instanceof StatusError && (reason === undefined || err.status.reason === reason);
}

/** StatusDetails naming an object; empty name and group are omitted, as Go's omitempty does. */
function objectDetails(name: string, group: string, kind: string, causes?: StatusCause[]): StatusDetails {
  return { ...(name ? { name } : {}), ...(group ? { group } : {}), ...(kind ? { kind } : {}), ...(causes ? { causes } : {}) };
}

/** `configmaps` for the core group, `csidrivers.storage.k8s.io` otherwise. */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function qualifiedKind(gk: GroupKind): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError({
    message: `${qualifiedResource(gr)} "${name}" not found`,
    reason: 'NotFound',
    details: objectDetails(name, gr.group, gr.resource),
    code: 404,
  });
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError({
    message: `${qualifiedResource(gr)} "${name}" already exists`,
    reason: 'AlreadyExists',
    details: objectDetails(name, gr.group, gr.resource),
    code: 409,
  });
}

export const optimisticLockMessage = 'the object has been modified; please apply your changes to the latest version and try again';

export function conflict(gr: GroupResource, name: string, detail: string): StatusError {
  return new StatusError({
    message: `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${detail}`,
    reason: 'Conflict',
    details: objectDetails(name, gr.group, gr.resource),
    code: 409,
  });
}

/**
 * The most distinct errors a 422 lists. Upstream lists them all: 500,000 null items in a list
 * that a client can send in 3 MiB become 1.5 million causes and an answer of hundreds of MB,
 * built while the server serves nobody else. Past this many, the Status says how many it left out.
 */
export const maxListedFieldErrors = 1000;

export function invalid(gk: GroupKind, name: string, errors: readonly FieldError[]): StatusError {
  // Upstream keeps every cause, identical ones included (an error per item of a list whose path
  // has no index, such as ownerReferences). Identical causes tell a client nothing more, so each
  // is kept once.
  const seen = new Set<string>();
  const causes: StatusCause[] = [];
  let omitted = 0;
  for (const e of errors) {
    const cause = { reason: e.type, message: fieldErrorBody(e), field: e.field };
    const identity = `${cause.reason}\u0000${cause.field}\u0000${cause.message}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    if (causes.length < maxListedFieldErrors) causes.push(cause);
    else omitted++;
  }
  // Like upstream's ToAggregate, the message names each distinct error once.
  const texts = [...new Set(errors.map(fieldErrorString))].slice(0, maxListedFieldErrors);
  if (omitted > 0) texts.push(`and ${omitted} more errors`);
  const aggregate = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  return new StatusError({
    message: `${qualifiedKind(gk)} "${name}" is invalid: ${aggregate}`,
    reason: 'Invalid',
    details: objectDetails(name, gk.group, gk.kind, causes),
    code: 422,
  });
}

/** A 422 that names no object, e.g. a JSON patch that cannot be applied. */
export function unprocessableEntity(message: string): StatusError {
  return new StatusError({ message, reason: 'Invalid', code: 422 });
}

export function badRequest(message: string): StatusError {
  return new StatusError({ message, reason: 'BadRequest', code: 400 });
}

export function unauthorized(message = 'Unauthorized'): StatusError {
  return new StatusError({ message, reason: 'Unauthorized', code: 401 });
}

export function forbidden(gr: GroupResource, name: string, detail: string): StatusError {
  const resource = qualifiedResource(gr);
  // Upstream's NewForbidden: a request that names no resource (a non-resource path) says only "forbidden".
  const message = !gr.resource ? `forbidden: ${detail}` : name ? `${resource} "${name}" is forbidden: ${detail}` : `${resource} is forbidden: ${detail}`;
  return new StatusError({
    message,
    reason: 'Forbidden',
    details: objectDetails(name, gr.group, gr.resource),
    code: 403,
  });
}

/** A body naming another namespace than the request's path (upstream's create and update handlers). */
export function namespaceMismatch(): StatusError {
  return badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

export function pathNotFound(): StatusError {
  return new StatusError({ message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 });
}

/** 405 for a verb the resource has no route for (upstream's mux answers this for unregistered methods). */
export function methodNotAllowed(): StatusError {
  return new StatusError({ message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405 });
}

export function notAcceptable(accepted: readonly string[]): StatusError {
  return new StatusError({
    message: `only the following media types are accepted: ${accepted.join(', ')}`,
    reason: 'NotAcceptable',
    code: 406,
  });
}

export function unsupportedMediaType(accepted: readonly string[]): StatusError {
  return new StatusError({
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    reason: 'UnsupportedMediaType',
    code: 415,
  });
}

export function requestEntityTooLarge(limitBytes: number): StatusError {
  return entityTooLarge(`limit is ${limitBytes}`);
}

/** upstream NewRequestEntityTooLargeError: 413 `Request entity too large: <detail>`. */
export function entityTooLarge(detail: string): StatusError {
  return new StatusError({ message: `Request entity too large: ${detail}`, reason: 'RequestEntityTooLarge', code: 413 });
}

/** A request line or header block beyond the server's limit (upstream: Go's plain-text 431). */
export function requestHeaderFieldsTooLarge(): StatusError {
  return new StatusError({ message: 'Request Header Fields Too Large', code: 431 });
}

export function gone(message: string): StatusError {
  return new StatusError({ message, reason: 'Gone', code: 410 });
}

/** 410 with reason Expired: a compacted revision or an expired continue token. */
export function resourceExpired(message: string): StatusError {
  return new StatusError({ message, reason: 'Expired', code: 410 });
}

/**
 * A continue token whose snapshot revision is compacted. `resume` is a token for the same position
 * at the newest revision, for clients that accept an inconsistent list (upstream puts it in the
 * Status's metadata.continue).
 */
export function continueExpired(resume: string): StatusError {
  return new StatusError({
    message:
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    reason: 'Expired',
    code: 410,
    metadata: { continue: resume },
  });
}

export function internalError(detail: string): StatusError {
  return new StatusError({
    message: `Internal error occurred: ${detail}`,
    reason: 'InternalError',
    details: { causes: [{ message: detail }] },
    code: 500,
  });
}

export function timeout(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError({ message: `Timeout: ${message}`, reason: 'Timeout', details: { retryAfterSeconds }, code: 504 }, retryAfterSeconds);
}

/** 504 for a read of a version the server has not seen yet; the client retries after a second. */
export function tooLargeResourceVersion(requested: number, current: number): StatusError {
  return new StatusError(
    {
      message: `Timeout: Too large resource version: ${requested}, current: ${current}`,
      reason: 'Timeout',
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
      code: 504,
    },
    1,
  );
}

export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError({ message, reason: 'TooManyRequests', details: { retryAfterSeconds }, code: 429 }, retryAfterSeconds);
}

export function serviceUnavailable(message: string): StatusError {
  return new StatusError({ message, reason: 'ServiceUnavailable', code: 503 });
}

/** Anything that is not a StatusError becomes a 500 whose message hides internals. */
export function toStatusError(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return internalError(detail);
}
