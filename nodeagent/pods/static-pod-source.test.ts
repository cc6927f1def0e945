import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { FakeClock } from '../../shared/client/clock.ts';
import { RecordingEventRecorder } from '../../shared/client/events.ts';
import { settle } from '../../shared/client/testing.ts';
import { configFirstSeenAnnotation, configSourceAnnotation } from './pod.ts';
import { rfc3339Nano, StaticPodSource, type StaticPodSet, type StaticPodSourceOptions } from './static-pod-source.ts';
import { capturingLogger, fakeApplyDefaults, fakeValidate } from './testing.ts';

const manifest = (name: string, image = 'nginx'): string =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n  - name: c\n    image: ${image}\n`;

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'corral-static-pods-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function source(options: Partial<StaticPodSourceOptions>) {
  const clock = new FakeClock();
  const { logger, lines } = capturingLogger();
  const events = new RecordingEventRecorder();
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'node-uid' } };
  const src = new StaticPodSource({
    nodeName: 'node-1',
    applyDefaults: fakeApplyDefaults,
    validate: fakeValidate,
    fileCheckFrequencyMs: 20_000,
    httpCheckFrequencyMs: 20_000,
    clock,
    logger,
    events,
    node: () => node,
    ...options,
  });
  const sets: StaticPodSet[] = [];
  src.onChange((set) => sets.push(set));
  return { src, clock, lines, events, sets };
}

const names = (set: StaticPodSet | undefined): string[] => (set?.pods ?? []).map((p) => p.metadata.name ?? '');

describe('static pod source: files', () => {
  it('reads a directory: regular files in name order, hidden files and subdirectories left out', async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, 'b.yaml'), manifest('b'));
    await writeFile(
      join(dir, 'a.json'),
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i' }] } }),
    );
    await writeFile(join(dir, '.hidden.yaml'), manifest('hidden'));
    await writeFile(join(dir, 'c.yaml~'), manifest('c'));
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'd.yaml'), manifest('d'));
    await symlink(join(dir, 'sub', 'd.yaml'), join(dir, 'link.yaml'));
    const { src, lines, sets } = source({ staticPodPath: dir + '/' });
    await src.readFile();
    assert.deepEqual(names(sets.at(-1)), ['a-node-1', 'b-node-1', 'c-node-1', 'd-node-1']);
    assert.equal(sets.at(-1)?.ready, true);
    const pod = sets.at(-1)?.pods[0];
    assert.equal(pod?.metadata.annotations?.[configSourceAnnotation], 'file');
    assert.equal(pod?.metadata.annotations?.[configFirstSeenAnnotation], '2026-01-01T00:00:00Z');
    assert.deepEqual(
      lines.filter((l) => l.level === 50).map((l) => [l.msg, l['path']]),
      [['Provided manifest path is a directory, not recursing into manifest path', join(dir, 'sub')]],
    );
  });

  it('leaves out an invalid manifest, reports it with upstream words, keeps the others', async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, 'good.yaml'), manifest('good'));
    await writeFile(join(dir, 'bad.yaml'), manifest('bad').replace('  - name: c\n', '  - name: C\n'));
    const { src, sets, lines, events } = source({ staticPodPath: dir });
    await src.readFile();
    const error = 'invalid pod: [spec.containers[0].name: Invalid value: "C": a lowercase RFC 1123 label must consist of lower case alphanumeric characters]';
    assert.deepEqual(names(sets.at(-1)), ['good-node-1']);
    assert.deepEqual(sets.at(-1)?.invalid, [{ source: 'file', origin: join(dir, 'bad.yaml'), error }]);
    assert.deepEqual(
      lines.filter((l) => l.msg === 'Could not process manifest file').map((l) => [l['err'], l['path']]),
      [[error, join(dir, 'bad.yaml')]],
    );
    // The event is the Node's: it names the manifest.
    assert.deepEqual(events.events, [{ key: 'node-1', type: 'Warning', reason: 'FailedValidation', message: `${join(dir, 'bad.yaml')}: ${error}` }]);
    // Read again, unchanged: neither logged nor recorded twice.
    await src.readFile();
    assert.equal(lines.filter((l) => l.msg === 'Could not process manifest file').length, 1);
    assert.equal(events.events.length, 1);
  });

  it('polls every fileCheckFrequency: changes, additions and removals are published, the seen time kept', async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, 'a.yaml'), manifest('a'));
    const { src, clock, sets } = source({ staticPodPath: dir });
    src.start();
    t.after(() => src.stop());
    await src.idle();
    await settle();
    assert.equal(sets.length, 1);
    const firstUid = sets[0]?.pods[0]?.metadata.uid;

    clock.step(20_000);
    await src.idle();
    await settle();
    assert.equal(sets.length, 1, 'nothing changed, nothing published');

    await writeFile(join(dir, 'b.yaml'), manifest('b'));
    clock.step(20_000);
    await src.idle();
    await settle();
    assert.deepEqual(names(sets.at(-1)), ['a-node-1', 'b-node-1']);
    assert.equal(sets.at(-1)?.pods[0]?.metadata.annotations?.[configFirstSeenAnnotation], '2026-01-01T00:00:00Z', 'a keeps its first-seen time');
    assert.equal(sets.at(-1)?.pods[1]?.metadata.annotations?.[configFirstSeenAnnotation], '2026-01-01T00:00:40Z');

    await writeFile(join(dir, 'a.yaml'), manifest('a', 'nginx:2'));
    clock.step(20_000);
    await src.idle();
    await settle();
    assert.notEqual(sets.at(-1)?.pods[0]?.metadata.uid, firstUid, 'a new manifest is a new pod');
    assert.equal(sets.at(-1)?.pods[0]?.metadata.annotations?.[configFirstSeenAnnotation], '2026-01-01T00:01:00Z');

    await rm(join(dir, 'a.yaml'));
    clock.step(20_000);
    await src.idle();
    await settle();
    assert.deepEqual(names(sets.at(-1)), ['b-node-1']);
  });

  it('takes a missing path as no pods, logs it, and is ready', async (t) => {
    const dir = await tempDir(t);
    const { src, sets, lines } = source({ staticPodPath: join(dir, 'nope') });
    await src.readFile();
    assert.deepEqual(sets.at(-1), { pods: [], invalid: [], ready: true });
    assert.deepEqual(
      lines.filter((l) => l.level === 50).map((l) => [l.msg, l['err']]),
      [['Unable to read config path', 'path does not exist, ignoring']],
    );
  });

  it('reads a single file; when it turns invalid, the pod read before stays', async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, 'only.yaml');
    await writeFile(file, manifest('only'));
    const { src, sets } = source({ staticPodPath: file });
    await src.readFile();
    assert.deepEqual(names(sets.at(-1)), ['only-node-1']);
    await writeFile(file, 'kind: Pod\n');
    await src.readFile();
    assert.deepEqual(names(sets.at(-1)), ['only-node-1']);
    assert.deepEqual(sets.at(-1)?.invalid, [
      { source: 'file', origin: file, error: `${file}: couldn't parse as pod(Object 'apiVersion' is missing in '{"kind":"Pod"}'), please check config file` },
    ]);
  });

  it('keeps the first of two pods with one full name and reports the second', async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, 'a.yaml'), manifest('same'));
    await writeFile(join(dir, 'b.yaml'), manifest('same', 'other'));
    const { src, sets, events } = source({ staticPodPath: dir });
    await src.readFile();
    assert.deepEqual(names(sets.at(-1)), ['same-node-1']);
    assert.equal(sets.at(-1)?.pods[0]?.spec?.containers?.[0]?.image, 'nginx');
    const dup = sets.at(-1)?.invalid[0];
    assert.match(dup?.error ?? '', /^Error validating pod same-node-1_default\([0-9a-f]{32}\) from file due to duplicate pod name "same-node-1", ignoring$/);
    assert.deepEqual(
      events.events.map((e) => [e.key, e.reason]),
      [['default/same-node-1', 'FailedValidation']],
    );
  });
});

describe('static pod source: URL', () => {
  async function server(t: TestContext, answer: (headers: Record<string, string | string[] | undefined>) => { code: number; body: string }) {
    const seen: Record<string, string | string[] | undefined>[] = [];
    const srv: Server = createServer((req, res) => {
      seen.push(req.headers);
      const { code, body } = answer(req.headers);
      res.writeHead(code, { 'content-type': 'application/yaml' });
      res.end(body);
    });
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => srv.close(() => resolve())));
    return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/pods`, seen };
  }

  it('reads one pod with the configured headers', async (t) => {
    const { url, seen } = await server(t, () => ({ code: 200, body: manifest('web') }));
    const { src, sets } = source({ staticPodURL: url, staticPodURLHeader: { 'X-Token': ['a', 'b'], Accept: ['application/yaml'] } });
    await src.readUrl();
    assert.deepEqual(names(sets.at(-1)), ['web-node-1']);
    assert.equal(sets.at(-1)?.pods[0]?.metadata.annotations?.[configSourceAnnotation], 'http');
    assert.equal(sets.at(-1)?.pods[0]?.spec?.tolerations, undefined);
    assert.equal(seen[0]?.['x-token'], 'a, b');
    assert.equal(seen[0]?.['accept'], 'application/yaml');
  });

  it('reads a PodList', async (t) => {
    const list = {
      apiVersion: 'v1',
      kind: 'PodList',
      items: ['a', 'b'].map((n) => ({ metadata: { name: n }, spec: { containers: [{ name: 'c', image: 'i' }] } })),
    };
    const { url } = await server(t, () => ({ code: 200, body: JSON.stringify(list) }));
    const { src, sets } = source({ staticPodURL: url });
    await src.readUrl();
    assert.deepEqual(names(sets.at(-1)), ['a-node-1', 'b-node-1']);
  });

  it('takes an answer other than 200 as an error and keeps the pods read before', async (t) => {
    let code = 200;
    const { url } = await server(t, () => ({ code, body: code === 200 ? manifest('web') : 'nope' }));
    const { src, sets, lines } = source({ staticPodURL: url });
    await src.readUrl();
    code = 404;
    await src.readUrl();
    assert.deepEqual(names(sets.at(-1)), ['web-node-1']);
    assert.deepEqual(
      lines.filter((l) => l.msg === 'Failed to read pods from URL').map((l) => l['err']),
      [`${url}: 404 Not Found`],
    );
    code = 200;
    await src.readUrl();
    assert.ok(lines.some((l) => l.msg === 'Successfully read pods from URL'));
  });

  it('is not ready until the URL answers; an empty body is no pods', async (t) => {
    let body = '';
    const { url } = await server(t, () => ({ code: 200, body }));
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/pods`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const dead = source({ staticPodURL: deadUrl });
    await dead.src.readUrl();
    assert.equal(dead.src.current().ready, false);
    assert.equal(
      dead.lines.find((l) => l.msg === 'Failed to read pods from URL')?.['err'],
      `Get "${deadUrl}": dial tcp ${deadUrl.slice(7, -5)}: connect: connection refused`,
    );

    const { src, sets, lines } = source({ staticPodURL: url });
    await src.readUrl();
    assert.deepEqual(sets.at(-1), { pods: [], invalid: [], ready: true });
    assert.ok(lines.some((l) => l['err'] === `zero-length data received from ${url}`));
    body = manifest('web').replace('image: nginx', 'image: ""');
    await src.readUrl();
    assert.deepEqual(sets.at(-1)?.invalid, [{ source: 'http', origin: url, error: 'invalid pod: [spec.containers[0].image: Required value]' }]);
  });

  it('merges file and URL pods, file first, one name once', async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, 'a.yaml'), manifest('a'));
    const { url } = await server(t, () => ({ code: 200, body: manifest('a', 'other') }));
    const { src, sets } = source({ staticPodPath: dir, staticPodURL: url });
    await src.readFile();
    assert.equal(sets.at(-1)?.ready, false, 'the URL has not been read');
    await src.readUrl();
    assert.deepEqual(names(sets.at(-1)), ['a-node-1']);
    assert.equal(sets.at(-1)?.pods[0]?.metadata.annotations?.[configSourceAnnotation], 'file');
    assert.equal(sets.at(-1)?.invalid.length, 1);
    assert.equal(sets.at(-1)?.ready, true);
  });
});

describe('rfc3339Nano', () => {
  it('trims the fraction as Go does', () => {
    assert.equal(rfc3339Nano(Date.parse('2026-01-01T00:00:00.120Z')), '2026-01-01T00:00:00.12Z');
    assert.equal(rfc3339Nano(Date.parse('2026-01-01T00:00:00Z')), '2026-01-01T00:00:00Z');
  });
});
