// Which undici failures are a lost connection (client-go's net.IsConnectionReset / net.IsProbableEOF).

/**
 * undici's errors for a connection reset or closed before the whole answer was read: client-go's
 * `net.IsConnectionReset` / `net.IsProbableEOF` (ECONNRESET, EOF, unexpected EOF, a write on a
 * broken connection). A refused connection, a TLS failure or a timeout are not among them, as in
 * client-go.
 */
const CONNECTION_LOSS_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);
/** `SocketError` messages of undici meaning the peer closed the socket (EOF), not a malformed answer. */
const SOCKET_CLOSED_MESSAGES = new Set(['other side closed', 'closed']);

/**
 * Whether undici's `error` (or an error in its `cause` chain) says the connection was reset or
 * closed before the answer was complete: client-go's `net.IsConnectionReset(err) ||
 * net.IsProbableEOF(err)`.
 */
export function isConnectionLoss(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && CONNECTION_LOSS_CODES.has(code)) return true;
    if (
      code === 'UND_ERR_SOCKET' &&
      typeof message === 'string' &&
      SOCKET_CLOSED_MESSAGES.has(message)
    ) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
