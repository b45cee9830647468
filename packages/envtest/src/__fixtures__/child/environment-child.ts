// A test process (bundled by process-cleanup.test.ts) that starts an environment, reports its kubeconfig
// on stdout, then ends as argv[2] says: exit (process.exit without stop), throw (uncaught exception),
// reject (unhandled rejection), wait (until a signal ends it), own-handler (its own SIGTERM listener
// exits with code 7), stop (a clean stop() first).
import { startEnvironment } from '../../index.ts';

async function main(how: string | undefined): Promise<void> {
  if (how === 'own-handler') {
    process.on('SIGTERM', () => {
      process.exit(7);
    });
  }
  const env = await startEnvironment({ namespace: 'child' });
  process.stdout.write(`${JSON.stringify({ kubeconfigPath: env.kubeconfigPath })}\n`);
  switch (how) {
    case 'exit':
      process.exit(0);
      break;
    case 'throw':
      setImmediate(() => {
        throw new Error('crash in the test process');
      });
      break;
    case 'reject':
      void Promise.reject(new Error('unhandled rejection in the test process'));
      break;
    case 'stop':
      await env.stop();
      process.exit(0);
      break;
    default:
      // wait, own-handler: the server's listening socket keeps the process alive until a signal.
      break;
  }
}

main(process.argv[2]).catch((error: unknown) => {
  process.stderr.write(`child failed: ${String(error)}\n`);
  process.exit(99);
});
