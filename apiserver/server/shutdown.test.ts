import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from './logging.ts';
import { gracefulShutdown } from './shutdown.ts';

const silent = createLogger('silent', 'test', new Writable({ write: (_c, _e, done) => done() }));

describe('gracefulShutdown', () => {
  it('fails readiness first, waits the delay, stops accepting, drains, then releases', async () => {
    const steps: string[] = [];
    await gracefulShutdown({
      delayMs: 1500,
      drainTimeoutMs: 60_000,
      markNotReady: () => void steps.push('not ready'),
      stopAccepting: () => void steps.push('stop accepting'),
      drain: async (ms) => {
        steps.push(`drain ${ms}`);
        return true;
      },
      release: async () => void steps.push('release'),
      sleep: async (ms) => void steps.push(`sleep ${ms}`),
      logger: silent,
    });
    assert.deepEqual(steps, ['not ready', 'sleep 1500', 'stop accepting', 'drain 60000', 'release']);
  });

  it('skips the delay when there is none and releases even when draining timed out', async () => {
    const steps: string[] = [];
    await gracefulShutdown({
      delayMs: 0,
      drainTimeoutMs: 10,
      markNotReady: () => void steps.push('not ready'),
      stopAccepting: () => void steps.push('stop accepting'),
      drain: async () => false,
      release: async () => void steps.push('release'),
      sleep: async (ms) => void steps.push(`sleep ${ms}`),
      logger: silent,
    });
    assert.deepEqual(steps, ['not ready', 'stop accepting', 'release']);
  });
});
