/**
 * Endpoints (v1, namespaced), named as their service: upstream's strategy (port protocols
 * defaulted to TCP, ValidateEndpoints) and printer (Name, Endpoints: the first three `ip:port`
 * pairs and how many more, Age). PUT creates a missing object (upstream's AllowCreateOnUpdate).
 */
import type { Endpoints } from '../../../../shared/api/endpoints.ts';
import { endpointsSchema } from '../../../../shared/api/endpoints.ts';
import { applyEndpointsDefaults, validateEndpoints } from '../../../../shared/validation/endpoints.ts';
import { nameIsDNSSubdomain } from '../../../../shared/validation/names.ts';
import { allVerbs, defineResource } from '../../definition.ts';
import { age, ageColumn, nameColumn } from '../../table.ts';

const joinHostPort = (ip: string, port: number): string => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

/** upstream's formatEndpoints for every port. */
export function formatEndpoints(endpoints: Endpoints): string {
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const subset of subsets) {
    const addresses = subset.addresses ?? [];
    const ports = subset.ports ?? [];
    const targets = ports.length === 0 ? [undefined] : ports;
    for (const port of targets) {
      count += addresses.length;
      for (const address of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(port ? joinHostPort(address.ip ?? '', port.port ?? 0) : (address.ip ?? ''));
      }
    }
  }
  const text = list.join(',');
  return more ? `${text} + ${count - max} more...` : text;
}

export const endpointsDefinition = defineResource<Endpoints>({
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  plural: 'endpoints',
  singular: 'endpoints',
  shortNames: ['ep'],
  namespaced: true,
  verbs: allVerbs,
  schema: endpointsSchema(),
  nameRule: nameIsDNSSubdomain,
  strategy: {
    prepareForCreate: (ep) => applyEndpointsDefaults(ep),
    validate: (ep) => validateEndpoints(ep),
    prepareForUpdate: (ep) => applyEndpointsDefaults(ep),
    validateUpdate: (ep) => validateEndpoints(ep),
    allowCreateOnUpdate: true,
  },
  table: {
    columns: [
      nameColumn,
      {
        name: 'Endpoints',
        type: 'string',
        description:
          'The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.',
      },
      ageColumn,
    ],
    cells: (ep, now) => [ep.metadata.name, formatEndpoints(ep), age(ep, now)],
  },
});
