/**
 * A fuzz request written out so that a person can replay it: protocol, credentials, method,
 * target, headers and body (long bodies shortened, with the note saying how they were made).
 */
import type { FuzzCase } from './arbitraries/request.ts';

const shown = 600;

function quoted(text: string): string {
  const json = JSON.stringify(text);
  return json.length > shown ? `${json.slice(0, shown)}…" (${text.length} chars)` : json;
}

/** The body as text where it is UTF-8, else as hex. */
function bodyText(body: Buffer): string {
  const text = body.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(body)) return quoted(text);
  const hex = body.subarray(0, shown / 2).toString('hex');
  return `hex ${hex}${body.length > shown / 2 ? `… (${body.length} bytes)` : ''}`;
}

export function describeCase(c: FuzzCase): string {
  const lines = [
    `${c.protocol === 'http2' ? 'HTTP/2' : 'HTTP/1.1'} ${c.credentials === 'admin' ? 'with the admin client certificate' : 'without credentials'}`,
    `${c.method} ${quoted(c.target)}`,
    ...Object.entries(c.headers).map(([k, v]) => `${k}: ${quoted(v)}`),
  ];
  if (c.body !== undefined) lines.push(`body (${c.body.length} bytes): ${bodyText(c.body)}`);
  if (c.note) lines.push(`made as: ${c.note.length > shown ? `${c.note.slice(0, shown)}…` : c.note}`);
  return lines.join('\n');
}
