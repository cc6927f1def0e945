/**
 * Structured JSON logs (pino) for every corral process. Credentials and object bodies never reach a
 * log line: request headers that carry credentials and any `body`, `data` or `stringData` field
 * (where a Secret's content would sit) are redacted, whatever logs them.
 */
import { pino, type Level, type Logger } from 'pino';

export const logLevels: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/** Paths pino redacts in every line, at the top level and one level down. */
export const redactedPaths: readonly string[] = [
  'authorization',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.cookie',
  'body',
  '*.body',
  'data',
  '*.data',
  'stringData',
  '*.stringData',
];

export function isLogLevel(text: string): text is Level {
  return (logLevels as readonly string[]).includes(text);
}

/** A process logger at `level` (`silent` turns it off), writing JSON lines to `destination` (stdout by default). */
export function createLogger(level: string, name: string, destination?: NodeJS.WritableStream): Logger {
  const options = { level, name, redact: { paths: [...redactedPaths] } };
  return destination ? pino(options, destination) : pino(options);
}
