/**
 * Reads a reply body in the representation its Content-Type names (JSON, YAML, or protobuf in the
 * `k8s\0` envelope, decoded as a Status), so that properties can check what a client would
 * decode. Watch streams are framed differently and are not decoded here.
 */
import { parse as parseYaml } from 'yaml';
import { statusSchema } from '../../shared/api/schema.ts';
import { protobufMediaType } from '../../shared/codec/protobuf/envelope.ts';
import { decodeObject } from '../../shared/codec/protobuf/object.ts';

export type Decoded = { ok: true; value: unknown } | { ok: false; error: string };

const statusMessage = statusSchema();

/** The media type without parameters, lower case: `application/json`. */
export function essenceOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * Decodes a whole (not streamed) body. Protobuf is decoded with the Status schema: a body that is
 * not a Status fails or decodes to something without `kind: Status`, which the caller rejects.
 */
export function decodeBody(contentType: string | undefined, body: Buffer): Decoded {
  const essence = essenceOf(contentType);
  try {
    if (essence === 'application/json') return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown };
    if (essence === 'application/yaml') return { ok: true, value: parseYaml(body.toString('utf8')) as unknown };
    if (essence === protobufMediaType) return { ok: true, value: decodeObject(body, statusMessage) };
  } catch (err) {
    return { ok: false, error: `${essence} body does not decode: ${err instanceof Error ? err.message : String(err)}` };
  }
  return { ok: false, error: `unexpected Content-Type ${JSON.stringify(contentType ?? null)}` };
}

/** The fields of a Status that properties check. */
export interface StatusView {
  kind: unknown;
  apiVersion: unknown;
  status: unknown;
  code: unknown;
  reason: unknown;
  message: unknown;
}

export function statusView(value: unknown): StatusView | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  return { kind: v.kind, apiVersion: v.apiVersion, status: v.status, code: v.code, reason: v.reason, message: v.message };
}
