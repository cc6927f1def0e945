/**
 * A controller context of fakes for controller unit tests: the recording API client and hand-fed
 * informers of shared/client/testing.ts, a FakeClock, an event recorder. No process, no network, no timers.
 */
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { FakeClock } from '../../shared/client/clock.ts';
import { FakeInformerFactory, RecordingApiClient } from '../../shared/client/testing.ts';
import { RecordingEventRecorder } from '../../shared/client/events.ts';
import type { ControllerContext } from './controller.ts';
import { workQueueMetrics } from './metrics.ts';

export { FakeInformer, FakeInformerFactory, RecordingApiClient, settle, type ApiAction, type Reactor } from '../../shared/client/testing.ts';

export interface TestContext<Config> extends ControllerContext<Config> {
  api: RecordingApiClient;
  informers: FakeInformerFactory;
  clock: FakeClock;
  events: RecordingEventRecorder;
  /** Aborts ctx.signal: the controller's queues shut down and its workers return. */
  stop(): void;
}

/** A controller context of fakes around `config`. */
export function testContext<Config>(config: Config): TestContext<Config> {
  const controller = new AbortController();
  return {
    api: new RecordingApiClient(),
    informers: new FakeInformerFactory(),
    clock: new FakeClock(),
    logger: pino({ level: 'silent' }),
    metrics: workQueueMetrics(new Registry()),
    config,
    signal: controller.signal,
    events: new RecordingEventRecorder(),
    stop: () => controller.abort(),
  };
}
