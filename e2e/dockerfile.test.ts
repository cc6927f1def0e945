/**
 * The Dockerfile, checked as text (no Docker engine runs here to build it): a multi-stage build
 * whose runtime stage holds production dependencies and dist/ alone, runs as an unprivileged user,
 * and starts `node dist/cli.js` in exec form, so that node is PID 1 and gets the runtime's SIGTERM
 * itself (README, "Shutdown and rolling restarts"). The image's build steps themselves (npm ci
 * --omit=dev --ignore-scripts, then the embedded store loading lmdb's prebuilt binary) were
 * exercised by hand; see the Dockerfile's comments.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from './harness.ts';

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  /** The `AS` name, or its index when it has none. */
  name: string;
  base: string;
  instructions: Instruction[];
}

/** Instructions with continuation lines joined and comments dropped (also between continued lines), grouped by FROM. */
function stages(text: string): Stage[] {
  const instructions: Instruction[] = [];
  let pending = '';
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line)) continue;
    const continued = /\\\s*$/.test(line);
    pending += `${line.replace(/\\\s*$/, '')} `;
    if (continued) continue;
    const match = /^\s*(\w+)\s+(.*?)\s*$/.exec(pending);
    if (match) instructions.push({ keyword: (match[1] ?? '').toUpperCase(), args: match[2] ?? '' });
    pending = '';
  }
  const out: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [base = '', as, name] = instruction.args.split(/\s+/);
      out.push({ name: as?.toUpperCase() === 'AS' && name ? name : String(out.length), base, instructions: [] });
    } else {
      out.at(-1)?.instructions.push(instruction);
    }
  }
  return out;
}

const args = (stage: Stage, keyword: string): string[] => stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

describe('Dockerfile', () => {
  const all = stages(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8'));
  const runtime = all.at(-1);
  assert.ok(runtime, 'no FROM in the Dockerfile');
  const byName = new Map(all.map((s) => [s.name, s]));
  /** The stages the runtime stage copies from, with what it copies. */
  const copiedFrom = args(runtime, 'COPY').flatMap((copy) => {
    const from = /--from=(\S+)\s+(\S+)/.exec(copy);
    return from ? [{ stage: from[1] ?? '', source: from[2] ?? '' }] : [];
  });

  it('is multi-stage: the build happens in a stage the image does not keep', () => {
    assert.ok(all.length >= 2, `${all.length} stage(s)`);
    const builds = all.filter((s) => args(s, 'RUN').some((run) => run.includes('npm run build')));
    assert.equal(builds.length, 1, 'one stage runs npm run build');
    assert.notEqual(builds[0], runtime, 'the runtime stage must not build (it would need the dev dependencies)');
    assert.ok(
      copiedFrom.some((c) => c.stage === builds[0]?.name && /dist\/?$/.test(c.source)),
      `the runtime stage copies dist/ from the build stage: ${JSON.stringify(copiedFrom)}`,
    );
  });

  it('carries production dependencies alone into the runtime stage', () => {
    assert.deepEqual(
      args(runtime, 'RUN').filter((run) => /\bnpm\s+(ci|install|i)\b/.test(run)),
      [],
      'the runtime stage installs nothing itself',
    );
    assert.ok(!args(runtime, 'COPY').some((copy) => /^(--\S+\s+)*\.\s/.test(copy)), 'the runtime stage copies no sources (COPY . …)');
    const modules = copiedFrom.filter((c) => c.source.includes('node_modules'));
    assert.equal(modules.length, 1, `node_modules comes from one stage: ${JSON.stringify(copiedFrom)}`);
    const deps = byName.get(modules[0]?.stage ?? '');
    assert.ok(deps, `no stage ${modules[0]?.stage}`);
    const installs = args(deps, 'RUN').filter((run) => /\bnpm\s+ci\b/.test(run));
    assert.equal(installs.length, 1, `stage ${deps.name} runs npm ci once`);
    // --omit=dev leaves the dev dependencies out; --ignore-scripts keeps npm from running the package's
    // `prepare` (the TypeScript build), which it runs even with --omit=dev and which needs them.
    assert.match(installs[0] ?? '', /--omit=dev/);
    assert.match(installs[0] ?? '', /--ignore-scripts/);
  });

  it('runs as an unprivileged user', () => {
    const users = args(runtime, 'USER');
    assert.ok(users.length > 0, 'the runtime stage sets no USER: it would run as root');
    const user = (users.at(-1) ?? '').split(':')[0] ?? '';
    assert.ok(!['root', '0', ''].includes(user), `USER ${user}`);
  });

  it('starts node dist/cli.js in exec form, stopped by SIGTERM', () => {
    const entrypoints = args(runtime, 'ENTRYPOINT');
    assert.equal(entrypoints.length, 1);
    // Exec form (a JSON array): no shell in between, which would take PID 1 and not forward SIGTERM.
    assert.deepEqual(JSON.parse(entrypoints[0] ?? ''), ['node', 'dist/cli.js']);
    assert.deepEqual(args(runtime, 'STOPSIGNAL'), ['SIGTERM']);
    for (const cmd of args(runtime, 'CMD')) assert.ok(Array.isArray(JSON.parse(cmd)), `CMD ${cmd} is not exec form`);
  });

  it('declares no HEALTHCHECK: no one check fits every process (each compose service has its own)', () => {
    assert.deepEqual(
      all.flatMap((s) => args(s, 'HEALTHCHECK')),
      [],
    );
  });

  it('keeps the host node_modules and dist/ out of the build context', () => {
    const ignored = readFileSync(join(repoRoot, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    for (const entry of ['node_modules', 'dist', '.git']) assert.ok(ignored.includes(entry), `.dockerignore lacks ${entry}`);
  });
});
