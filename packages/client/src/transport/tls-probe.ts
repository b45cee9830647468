// Whether a server reached over http:// actually speaks TLS (a config with the wrong scheme): Node's
// TLS servers close a plain-HTTP connection without a word, which reads as a lost connection.
// node:tls is taken from the running Node, not imported: an ES module import of it builds the module's namespace,
// which reads every export, `rootCertificates` too: ~145 root CA certificates made JS strings, 220 KiB of heap held
// by every process that imports @lasso/client, for a probe that most processes never run.
const tls = (): typeof import('node:tls') => process.getBuiltinModule('node:tls');

/**
 * How long the probe's socket may stay idle: a socket timeout, not a clock timer (it is network I/O
 * of a diagnostic, and must not show among a FakeClock's timers).
 */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * Try a TLS handshake with `origin` (`http://host:port`), certificate unchecked, nothing sent after
 * it: true when it succeeds. Used once after a plain-HTTP request lost its connection before an
 * answer, so the error can say `use https://` instead of retrying for 10 s.
 */
export function speaksTls(origin: string, signal: AbortSignal | undefined): Promise<boolean> {
  const url = new URL(origin);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 80);
  return new Promise((resolve) => {
    const socket = tls().connect({
      host,
      port,
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    });
    const finish = (result: boolean): void => {
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(result);
    };
    const onAbort = (): void => finish(false);
    socket.setTimeout(PROBE_TIMEOUT_MS, () => finish(false));
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('secureConnect', () => finish(true));
    socket.once('error', () => finish(false));
    socket.once('close', () => finish(false));
  });
}
