/**
 * PEM as Go's encoding/pem reads and writes it, the one PEM reader of corral. What upstream accepts
 * decides what corral accepts (tls.X509KeyPair, a CSR's request and certificate), so this follows
 * pem.Decode step by step rather than a looser pattern:
 * - `-----BEGIN TYPE-----` must start the input or a line, and its line may end in spaces or tabs
 *   only; text before, between and after blocks is ignored;
 * - leading `Key: value` lines of the body are headers (trimmed);
 * - `-----END TYPE-----` must start a line (or follow the BEGIN line directly when there are no
 *   headers), name the same type and end its line;
 * - the body is strict padded base64 once spaces, tabs and line breaks are dropped; a block whose
 *   body is not is skipped, as is a BEGIN without its END: the search goes on after its BEGIN line.
 * Go indexes bytes: the reader works on one character per byte (latin1) and gives types and
 * headers back as UTF-8 text.
 */

export interface PemBlock {
  /** The type of the BEGIN line, e.g. `CERTIFICATE`. */
  type: string;
  /** The headers, in order (Go keeps the last value of a repeated key). */
  headers: Map<string, string>;
  bytes: Buffer;
}

const pemStart = '\n-----BEGIN ';
const pemEnd = '\n-----END ';
const pemEndOfLine = '-----';

/** Go's getLine: the first line without its line break and trailing spaces or tabs, and what follows. */
function getLine(data: string): [line: string, rest: string] {
  const newline = data.indexOf('\n');
  if (newline < 0) return [trimRight(data), ''];
  const end = newline > 0 && data[newline - 1] === '\r' ? newline - 1 : newline;
  return [trimRight(data.slice(0, end)), data.slice(newline + 1)];
}

const trimRight = (s: string): string => s.replace(/[ \t]+$/, '');
/** bytes.TrimSpace over ASCII whitespace (the bytes of a latin1 string). */
const trimSpace = (s: string): string => s.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, '');
const utf8 = (latin1: string): string => Buffer.from(latin1, 'latin1').toString('utf8');

/** base64.StdEncoding.Decode: padding required, line breaks ignored; null where Go returns an error. */
function decodeBase64(text: string): Buffer | null {
  const data = text.replace(/[\r\n]/g, '');
  if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(data)) return null;
  return Buffer.from(data, 'base64');
}

/** pem.Decode over latin1 text: the first block and the text after it, or null when there is none. */
function decode(data: string): { block: PemBlock; rest: string } | null {
  let rest = data;
  for (;;) {
    if (rest.startsWith(pemStart.slice(1))) rest = rest.slice(pemStart.length - 1);
    else {
      const at = rest.indexOf(pemStart);
      if (at < 0) return null;
      rest = rest.slice(at + pemStart.length);
    }
    let typeLine: string;
    [typeLine, rest] = getLine(rest);
    if (!typeLine.endsWith(pemEndOfLine)) continue;
    typeLine = typeLine.slice(0, -pemEndOfLine.length);

    const headers = new Map<string, string>();
    for (;;) {
      // A BEGIN line with nothing after its headers ends the search, as in Go.
      if (rest.length === 0) return null;
      const [line, next] = getLine(rest);
      const colon = line.indexOf(':');
      if (colon < 0) break;
      headers.set(utf8(trimSpace(line.slice(0, colon))), utf8(trimSpace(line.slice(colon + 1))));
      rest = next;
    }

    let endIndex: number;
    let endTrailerIndex: number;
    if (headers.size === 0 && rest.startsWith(pemEnd.slice(1))) {
      endIndex = 0;
      endTrailerIndex = pemEnd.length - 1;
    } else {
      endIndex = rest.indexOf(pemEnd);
      endTrailerIndex = endIndex + pemEnd.length;
    }
    if (endIndex < 0) continue;
    const endTrailerLength = typeLine.length + pemEndOfLine.length;
    const endTrailer = rest.slice(endTrailerIndex, endTrailerIndex + endTrailerLength);
    if (endTrailer.length < endTrailerLength || !endTrailer.startsWith(typeLine) || !endTrailer.endsWith(pemEndOfLine)) continue;
    if (getLine(rest.slice(endTrailerIndex + endTrailerLength))[0].length !== 0) continue;
    const bytes = decodeBase64(rest.slice(0, endIndex).replace(/[ \t]/g, ''));
    if (!bytes) continue;
    return { block: { type: utf8(typeLine), headers, bytes }, rest: getLine(rest.slice(endIndex + pemEnd.length - 1))[1] };
  }
}

/** pem.Decode: the first block of `data` and the bytes after it; `block` is null when there is none. */
export function decodePem(data: Uint8Array): { block: PemBlock | null; rest: Buffer } {
  const found = decode(Buffer.from(data).toString('latin1'));
  return found ? { block: found.block, rest: Buffer.from(found.rest, 'latin1') } : { block: null, rest: Buffer.from(data) };
}

/** Every block of `data` in order, as a loop over pem.Decode finds them. */
export function pemBlocks(data: Uint8Array): PemBlock[] {
  const blocks: PemBlock[] = [];
  let rest = Buffer.from(data).toString('latin1');
  for (let found = decode(rest); found; found = decode(rest)) {
    blocks.push(found.block);
    rest = found.rest;
  }
  return blocks;
}

/** pem.EncodeToMemory of a header-less block: base64 in lines of 64 characters, a final line break. */
export function encodePem(type: string, der: ArrayBuffer | Uint8Array): string {
  const bytes = der instanceof ArrayBuffer ? new Uint8Array(der) : der;
  const lines =
    Buffer.from(bytes)
      .toString('base64')
      .match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.map((line) => `${line}\n`).join('')}-----END ${type}-----\n`;
}
