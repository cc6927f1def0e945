/**
 * Counts of a fuzz run (requests, by status code, by HTTP version, by method, answers cut off,
 * requests the client itself refused) and its failures, grouped by a signature so that a
 * thousand 500s from one bug are one finding with its first reproducer and a count.
 */
import type { FuzzCase } from './arbitraries/request.ts';
import type { Violation } from './properties.ts';
import type { WireOutcome } from './transport.ts';

export interface Finding {
  signature: string;
  violation: Violation;
  /** The first request that showed it. */
  example: FuzzCase;
  count: number;
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Digits, quoted text and long runs of one character make messages of one bug differ; not its signature. */
function normalize(text: string): string {
  return text
    .replace(/"[^"]{20,}"/g, '"…"')
    .replace(/(.)\1{15,}/g, '$1…')
    .replace(/\d+/g, 'N')
    .slice(0, 160);
}

export class FuzzStats {
  total = 0;
  failedRequests = 0;
  readonly byStatus = new Map<string, number>();
  readonly byProtocol = new Map<string, number>();
  readonly byMethod = new Map<string, number>();
  readonly findings = new Map<string, Finding>();

  record(c: FuzzCase, outcome: WireOutcome, violations: readonly Violation[]): void {
    this.total++;
    bump(this.byProtocol, c.protocol === 'http2' ? 'HTTP/2' : 'HTTP/1.1');
    bump(this.byMethod, c.method);
    if (outcome.kind === 'reply') bump(this.byStatus, outcome.cut ? `${outcome.status} (stream cut)` : String(outcome.status));
    else bump(this.byStatus, outcome.clientSide ? 'refused by the client' : outcome.rstCode === 1 ? 'HTTP/2 PROTOCOL_ERROR' : 'no reply');
    if (violations.length > 0) this.failedRequests++;
    for (const v of violations) {
      const signature = `${v.kind}: ${normalize(v.detail)}`;
      const found = this.findings.get(signature);
      if (found) found.count++;
      else this.findings.set(signature, { signature, violation: v, example: c, count: 1 });
    }
  }

  summary(): string {
    const table = (m: Map<string, number>): string =>
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `    ${k.padEnd(24)} ${n}`)
        .join('\n');
    return [
      `requests: ${this.total}, failing: ${this.failedRequests}, distinct failures: ${this.findings.size}`,
      `  by status:\n${table(this.byStatus)}`,
      `  by HTTP version:\n${table(this.byProtocol)}`,
      `  by method:\n${table(this.byMethod)}`,
    ].join('\n');
  }
}
