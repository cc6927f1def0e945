/** One API server replica: flags → config → start. Stops cleanly on SIGINT and SIGTERM. */
import { configFromFlags, parseFlags, usage } from './config.ts';
import { startApiServer } from './app.ts';

async function main(): Promise<void> {
  let values;
  try {
    values = parseFlags(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n\n${usage('npm run apiserver --')}`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(usage('npm run apiserver --'));
    return;
  }
  const config = configFromFlags(values);
  const server = await startApiServer(config);
  process.stdout.write(`corral API server listening on ${server.url}\nadmin kubeconfig: ${server.kubeconfigPath}\n`);
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
