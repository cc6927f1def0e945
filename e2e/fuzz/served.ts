/**
 * What the server under test serves, read from its own discovery documents (`/api/v1`, `/apis`,
 * `/apis/<group>/<version>`) rather than from corral's registry, so that the fuzzer covers every
 * kind, version and subresource a client can reach, including ones added later.
 */
import type { Transport } from './transport.ts';

export interface ServedResource {
  group: string;
  version: string;
  /** The plural, as in URLs. */
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: readonly string[];
  /** Subresource names (`status`, `finalize`, `approval`). */
  subresources: readonly string[];
}

interface DiscoveredResource {
  name?: unknown;
  kind?: unknown;
  namespaced?: unknown;
  verbs?: unknown;
}

async function getJson(transport: Transport, target: string): Promise<Record<string, unknown>> {
  const reply = await transport.send({ protocol: 'http1', credentials: 'admin', method: 'GET', target, headers: { accept: 'application/json' } });
  if (reply.kind !== 'reply' || reply.status !== 200)
    throw new Error(`discovery ${target} failed: ${reply.kind === 'reply' ? `${reply.status} ${reply.body.toString('utf8')}` : reply.error}`);
  return JSON.parse(reply.body.toString('utf8')) as Record<string, unknown>;
}

function resourcesOf(group: string, version: string, list: Record<string, unknown>): ServedResource[] {
  const entries = (Array.isArray(list.resources) ? list.resources : []) as DiscoveredResource[];
  const names = entries.map((r) => String(r.name));
  const out: ServedResource[] = [];
  for (const r of entries) {
    const name = String(r.name);
    if (name.includes('/')) continue;
    out.push({
      group,
      version,
      resource: name,
      kind: String(r.kind),
      namespaced: r.namespaced === true,
      verbs: Array.isArray(r.verbs) ? r.verbs.map(String) : [],
      subresources: names.filter((n) => n.startsWith(`${name}/`)).map((n) => n.slice(name.length + 1)),
    });
  }
  return out;
}

/** Every served resource of every served group version. */
export async function discoverServed(transport: Transport): Promise<ServedResource[]> {
  const served = resourcesOf('', 'v1', await getJson(transport, '/api/v1'));
  const groups = (await getJson(transport, '/apis')).groups;
  for (const g of Array.isArray(groups) ? (groups as { name?: unknown; versions?: { version?: unknown }[] }[]) : []) {
    for (const v of g.versions ?? []) {
      const group = String(g.name);
      const version = String(v.version);
      served.push(...resourcesOf(group, version, await getJson(transport, `/apis/${group}/${version}`)));
    }
  }
  return served;
}

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(r: Pick<ServedResource, 'group' | 'version'>): string {
  return r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
}
