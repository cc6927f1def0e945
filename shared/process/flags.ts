/**
 * Command-line flags as the Kubernetes components take them (pflag): `--name value` or
 * `--name=value`, booleans read with Go's strconv.ParseBool, durations in Go's syntax, and
 * pflag's wording for a value that does not parse. Each process keeps its own table of flags; this
 * module parses argv against a table, prints the usage, and collects every value error so that a
 * bad command line is reported whole, one problem per line, before anything starts.
 */
import { parseArgs } from 'node:util';
import { goQuote } from '../go/format.ts';
import { parseGoDuration } from '../go/duration.ts';
import { parseBool, ParseBoolError } from '../go/parse-bool.ts';

export interface FlagSpec {
  /**
   * `string`: `--name value` or `--name=value`; `bool`: pflag's boolean, `--name` alone meaning
   * true, else `--name=value` read with strconv.ParseBool (FlagReader.bool); `boolean`: a switch
   * with no value (`--help`).
   */
  type: 'string' | 'bool' | 'boolean';
  help: string;
  default?: string;
}

export type FlagTable = Readonly<Record<string, FlagSpec>>;

export type ParsedFlags = Record<string, string | boolean | undefined>;

/** The usage text: `Usage: <command> [flags]` and one line per flag with its default; `trailer` follows. */
export function flagUsage(command: string, table: FlagTable, trailer = ''): string {
  const width = Math.max(...Object.keys(table).map((name) => name.length)) + 2;
  const lines = Object.entries(table).map(([name, spec]) => {
    const def = spec.default !== undefined && spec.default !== '' ? ` (default ${JSON.stringify(spec.default)})` : '';
    return `  --${name.padEnd(width)}${spec.help}${def}`;
  });
  return `Usage: ${command} [flags]\n\nFlags:\n${lines.join('\n')}\n${trailer}`;
}

/** argv parsed against `table`; absent flags take their default. Throws on an unknown flag or a missing value. */
export function parseFlagTable(argv: string[], table: FlagTable): ParsedFlags {
  const options = Object.fromEntries(
    Object.entries(table).map(([name, spec]) => [name, { type: spec.type === 'boolean' ? ('boolean' as const) : ('string' as const) }]),
  );
  // pflag: a bool flag given alone is true; its value, if any, is attached with `=`.
  const args = argv.map((arg) => (arg.startsWith('--') && table[arg.slice(2)]?.type === 'bool' ? `${arg}=true` : arg));
  const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
  const out: ParsedFlags = {};
  for (const [name, spec] of Object.entries(table)) out[name] = values[name] ?? spec.default;
  return out;
}

/** `table` with the defaults of some of its flags replaced (a command that defaults them differently). */
export function withDefaults(table: FlagTable, defaults: Readonly<Record<string, string>>): Record<string, FlagSpec> {
  const out: Record<string, FlagSpec> = { ...table };
  for (const [name, value] of Object.entries(defaults)) {
    const spec = table[name];
    if (spec) out[name] = { ...spec, default: value };
  }
  return out;
}

/**
 * The command-line front of a process: flags parsed against `table`, or undefined after printing
 * --help. An unknown flag or a missing value prints the usage to stderr and exits 2, as pflag does.
 */
export function flagsOrUsage(argv: string[], command: string, table: FlagTable, trailer = ''): ParsedFlags | undefined {
  let values: ParsedFlags;
  try {
    values = parseFlagTable(argv, table);
  } catch (err) {
    process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n\n${flagUsage(command, table, trailer)}`);
    process.exit(2);
  }
  if (values['help'] === true) {
    process.stdout.write(flagUsage(command, table, trailer));
    return undefined;
  }
  return values;
}

/** A Go duration flag (`10s`, `1m30s`, `250ms`, `0`) in milliseconds, with pflag's error message. */
export function parseDuration(text: string, flag: string): number {
  try {
    return parseGoDuration(text);
  } catch (err) {
    throw new Error(`invalid argument ${JSON.stringify(text)} for "--${flag}" flag: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** An integer flag, with pflag's error message. */
export function parseInteger(text: string, flag: string): number {
  if (!/^[+-]?\d+$/.test(text))
    throw new Error(`invalid argument ${JSON.stringify(text)} for "--${flag}" flag: strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Number(text);
}

/** A boolean flag's value, read with Go's strconv.ParseBool; the error as pflag words it. */
export function parseBoolFlag(text: string, flag: string): boolean {
  try {
    return parseBool(text);
  } catch (err) {
    if (err instanceof ParseBoolError) throw new Error(`invalid argument ${goQuote(text)} for "--${flag}" flag: ${err.message}`);
    throw err;
  }
}

/** A comma separated list flag: trimmed, empty entries dropped. */
export function parseList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Reads a parsed command line, collecting every problem instead of stopping at the first: each
 * accessor returns a fallback when its value is bad and notes why. `finish()` throws one Error
 * listing them all, one per line, in the order they were read.
 */
export class FlagReader {
  readonly errors: string[] = [];

  constructor(private readonly values: ParsedFlags) {}

  /** The flag's text; undefined when absent or empty. */
  string(name: string): string | undefined {
    const v = this.values[name];
    return typeof v === 'string' && v !== '' ? v : undefined;
  }

  /** What `parse` returns, or `fallback` with its error noted. */
  check<T>(parse: () => T, fallback: T): T {
    try {
      return parse();
    } catch (err) {
      this.errors.push(err instanceof Error ? err.message : String(err));
      return fallback;
    }
  }

  duration(name: string, fallback: string): number {
    return this.check(() => parseDuration(this.string(name) ?? fallback, name), 0);
  }

  /** A duration that must be more than zero; a value that does not parse is reported once, not twice. */
  positiveDuration(name: string, fallback: string): number {
    return this.check(() => {
      const text = this.string(name) ?? fallback;
      const ms = parseDuration(text, name);
      if (ms <= 0) throw new Error(`--${name} ${text} must be greater than 0`);
      return ms;
    }, 0);
  }

  integer(name: string, fallback: string): number {
    return this.check(() => parseInteger(this.string(name) ?? fallback, name), 0);
  }

  bool(name: string, fallback: boolean): boolean {
    const text = this.string(name);
    return text === undefined ? fallback : this.check(() => parseBoolFlag(text, name), fallback);
  }

  list(name: string): string[] {
    return parseList(this.string(name));
  }

  /** Notes `message` unless `ok`. */
  require(ok: boolean, message: string): void {
    if (!ok) this.errors.push(message);
  }

  /** Throws one Error listing every problem noted; returns when there were none. */
  finish(): void {
    if (this.errors.length) throw new Error(this.errors.join('\n'));
  }
}
