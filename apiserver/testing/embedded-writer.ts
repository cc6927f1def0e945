/**
 * A child process for the embedded backend's durability test: opens the store at argv[2] and
 * creates ConfigMaps one after another, printing each key once its write is acknowledged, until
 * it is killed.
 */
import { EmbeddedStore } from '../storage/embedded/store.ts';

const store = new EmbeddedStore(process.argv[2] ?? '');
for (let i = 0; ; i++) {
  const key = store.key('configmaps', 'default', `cm-${i}`);
  await store.create(key, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' }, data: { i: String(i) } });
  process.stdout.write(`${key}\n`);
}
