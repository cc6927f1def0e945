import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { dockerCompose, promtool, skipUnlessTool } from './tool-availability.ts';

describe('skipUnlessTool', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corral-tool-availability-'));
  const empty = join(dir, 'empty');
  mkdirSync(empty);
  for (const name of ['docker-compose', 'promtool']) {
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), 0o755);
  }
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the test when the tool is on PATH, also when it is required', () => {
    assert.equal(skipUnlessTool(dockerCompose, { PATH: [empty, dir].join(delimiter) }), false);
    assert.equal(skipUnlessTool(dockerCompose, { PATH: dir, CORRAL_REQUIRE_COMPOSE: '1' }), false);
  });

  it('skips with the reason and how to install it when it is not', () => {
    assert.equal(
      skipUnlessTool(dockerCompose, { PATH: empty }),
      'docker-compose is not installed: no docker-compose on PATH (apt-get install --no-install-recommends docker-compose, to validate docker-compose.yml)',
    );
  });

  it('fails instead of skipping when its require variable is 1', () => {
    assert.throws(
      () => skipUnlessTool(dockerCompose, { PATH: empty, CORRAL_REQUIRE_COMPOSE: '1' }),
      /^Error: CORRAL_REQUIRE_COMPOSE=1, but docker-compose is not installed: no docker-compose on PATH/,
    );
    assert.equal(typeof skipUnlessTool(dockerCompose, { PATH: empty, CORRAL_REQUIRE_COMPOSE: '0' }), 'string');
  });

  it('only skips a tool that has no require variable', () => {
    assert.match(String(skipUnlessTool(promtool, { PATH: empty, CORRAL_REQUIRE_COMPOSE: '1', CORRAL_REQUIRE_HAPROXY: '1' })), /^promtool is not installed/);
  });
});
