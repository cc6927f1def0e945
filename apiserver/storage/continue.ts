/**
 * Continue tokens of chunked lists, in upstream's format (base64url-free standard base64 of
 * `{"v":"meta.k8s.io/v1","rv":<list revision>,"start":"<next key, relative to the collection>"}`),
 * so a token names the snapshot revision and where the next page begins.
 */
import { badRequest } from '../../shared/api/errors.ts';

export interface ContinueToken {
  /** The snapshot's revision; negative (upstream writes -1) means the newest revision. */
  revision: number;
  /** The key to start the next page at, relative to the collection prefix. */
  start: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.revision, start: token.start })).toString('base64');
}

/** Parses a token; a malformed one is a 400 with upstream's wording. */
export function decodeContinue(text: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
  } catch {
    throw badRequest('invalid continue token: continue key is not valid: illegal base64 data at input byte 0');
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw badRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  const { v, rv, start } = parsed as Record<string, unknown>;
  if (v !== 'meta.k8s.io/v1') throw badRequest('invalid continue token: continue key is not valid: server does not recognize this encoded key');
  if (typeof rv !== 'number' || !Number.isInteger(rv) || rv === 0) {
    throw badRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof start !== 'string' || start.length === 0)
    throw badRequest('invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  // A token may not climb out of its collection.
  if (start.startsWith('/') || start.split('/').includes('..'))
    throw badRequest('invalid continue token: continue key is not valid: path traversal not allowed');
  return { revision: rv, start };
}
