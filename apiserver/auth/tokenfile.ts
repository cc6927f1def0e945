/**
 * The static token file (`--token-auth-file`): CSV records `token,user,uid[,"group1,group2"]`.
 *
 * Parsing follows upstream (k8s.io/apiserver tokenfile.NewCSV over Go's encoding/csv with a variable
 * number of fields): blank lines are skipped, `#` does not start a comment, white space is part of a
 * field, `""` inside a quoted field is a quote, quoted fields may span lines, CRLF reads as LF. A record
 * with fewer than 3 fields is an error; an empty token is skipped with a warning; a duplicate token
 * replaces the earlier one with a warning. Errors and warnings carry upstream's texts.
 */
import { readFileSync } from 'node:fs';
import type { UserInfo } from '../registry/definition.ts';

export interface TokenFileOptions {
  /** Receives upstream's warnings (empty and duplicate tokens); by default they go to stderr. */
  warn?: (message: string) => void;
}

/** Reads and parses a token file; throws on I/O errors, malformed CSV and short records. */
export function loadTokenFile(path: string, opts: TokenFileOptions = {}): Map<string, UserInfo> {
  return parseTokenFile(readFileSync(path), path, opts);
}

/** Parses token file content; `path` only appears in messages. */
export function parseTokenFile(content: Buffer | string, path: string, opts: TokenFileOptions = {}): Map<string, UserInfo> {
  const warn = opts.warn ?? ((message: string) => process.emitWarning(message, 'TokenFileWarning'));
  const tokens = new Map<string, UserInfo>();
  let recordNum = 0;
  for (const record of readCsvRecords(typeof content === 'string' ? Buffer.from(content, 'utf8') : content)) {
    if (record.length < 3) {
      throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    }
    recordNum++;
    const [token, username, uid, groups] = record as [string, string, string, ...string[]];
    if (token === '') {
      warn(`empty token has been found in token file '${path}', record number '${recordNum}'`);
      continue;
    }
    if (tokens.has(token)) {
      warn(`duplicate token has been found in token file '${path}', record number '${recordNum}'`);
    }
    // A present but empty groups field yields one empty group name, as Go's strings.Split does.
    tokens.set(token, { username, uid, groups: groups === undefined ? [] : groups.split(',') });
  }
  return tokens;
}

/** A CSV syntax error, with the text of Go's csv.ParseError. */
export class CsvParseError extends Error {
  constructor(
    readonly startLine: number,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(
      startLine !== line
        ? `record on line ${startLine}; parse error on line ${line}, column ${column}: ${reason}`
        : `parse error on line ${line}, column ${column}: ${reason}`,
    );
    this.name = 'CsvParseError';
  }
}

const ERR_BARE_QUOTE = 'bare " in non-quoted-field';
const ERR_QUOTE = 'extraneous or missing " in quoted-field';
const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Reads CSV records as Go's encoding/csv does with default settings (RFC 4180, LazyQuotes off,
 * no comment character). Columns in errors are 1-based byte offsets, as in Go.
 */
export function* readCsvRecords(input: Buffer): Generator<string[]> {
  const lines = new LineReader(input);
  for (;;) {
    let line = lines.next();
    while (line !== null && line.length === lengthNL(line)) line = lines.next();
    if (line === null) return;

    const recordLine = lines.lineNumber;
    const fields: string[] = [];
    let position = { line: lines.lineNumber, col: 1 };
    for (;;) {
      if (line.length === 0 || line[0] !== QUOTE) {
        const comma = line.indexOf(COMMA);
        const field = comma >= 0 ? line.subarray(0, comma) : line.subarray(0, line.length - lengthNL(line));
        const bareQuote = field.indexOf(QUOTE);
        if (bareQuote >= 0) throw new CsvParseError(recordLine, lines.lineNumber, position.col + bareQuote, ERR_BARE_QUOTE);
        fields.push(field.toString('utf8'));
        if (comma < 0) break;
        line = line.subarray(comma + 1);
        position.col += comma + 1;
        continue;
      }

      // Quoted field: may run over several lines.
      const value: Buffer[] = [];
      line = line.subarray(1);
      position.col += 1;
      let fieldDone = false;
      let recordDone = false;
      while (!fieldDone) {
        const quote = line.indexOf(QUOTE);
        if (quote >= 0) {
          value.push(line.subarray(0, quote));
          line = line.subarray(quote + 1);
          position.col += quote + 1;
          if (line[0] === QUOTE) {
            value.push(line.subarray(0, 1));
            line = line.subarray(1);
            position.col += 1;
          } else if (line[0] === COMMA) {
            line = line.subarray(1);
            position.col += 1;
            fieldDone = true;
          } else if (lengthNL(line) === line.length) {
            fieldDone = recordDone = true;
          } else {
            throw new CsvParseError(recordLine, lines.lineNumber, position.col - 1, ERR_QUOTE);
          }
        } else if (line.length > 0) {
          value.push(line);
          position.col += line.length;
          const next = lines.next();
          if (next === null) {
            line = Buffer.alloc(0);
          } else {
            line = next;
            if (next.length > 0) position = { line: position.line + 1, col: 1 };
          }
        } else {
          throw new CsvParseError(recordLine, position.line, position.col, ERR_QUOTE);
        }
      }
      fields.push(Buffer.concat(value).toString('utf8'));
      if (recordDone) break;
    }
    yield fields;
  }
}

function lengthNL(line: Buffer): number {
  return line.length > 0 && line[line.length - 1] === LF ? 1 : 0;
}

/** Lines with their trailing LF; CRLF becomes LF, and a CR right before the end of input is dropped. */
class LineReader {
  private offset = 0;
  lineNumber = 0;

  constructor(private readonly input: Buffer) {}

  next(): Buffer | null {
    if (this.offset >= this.input.length) return null;
    this.lineNumber++;
    const lf = this.input.indexOf(LF, this.offset);
    let line: Buffer;
    if (lf < 0) {
      line = this.input.subarray(this.offset);
      this.offset = this.input.length;
      if (line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
      return line;
    }
    line = this.input.subarray(this.offset, lf + 1);
    this.offset = lf + 1;
    if (line.length >= 2 && line[line.length - 2] === CR) line = Buffer.concat([line.subarray(0, line.length - 2), Buffer.from([LF])]);
    return line;
  }
}
