/**
 * A child process for the embedded backend's durability test: opens the store at argv[2] and
 * creates ConfigMaps one after another, printing each key once its write is acknowledged, until
 * it is killed. With `--shrink` as argv[3], it also copies the store into new files (shrink) one
 * after another meanwhile, printing `shrunk` after each, so that a kill lands in one.
 */
import { EmbeddedStore } from '../storage/embedded/store.ts';

const store = new EmbeddedStore(process.argv[2] ?? '');
if (process.argv[3] === '--shrink') {
  void (async () => {
    for (;;) {
      await store.shrink({ floorBytes: 0, force: true });
      process.stdout.write('shrunk\n');
    }
  })();
}
const payload = 'x'.repeat(1024);
for (let i = 0; ; i++) {
  const key = store.key('configmaps', 'default', `cm-${i}`);
  await store.create(key, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' }, data: { i: String(i), payload } });
  process.stdout.write(`${key}\n`);
}
