// parallelizeUntil: run N numbered pieces of work on a bounded number of async workers; ports
// client-go util/workqueue/parallelizer.go (ParallelizeUntil with chunk sizes).
import { abortReason } from '@lasso/core';

/** Options of {@link parallelizeUntil}. */
export interface ParallelizeOptions {
  /** Stops handing out pieces; the promise rejects with `signal.reason` once running pieces end. */
  signal?: AbortSignal | undefined;
  /** Pieces a worker takes at a time (default 1). */
  chunkSize?: number | undefined;
}

/**
 * Call `doWorkPiece(0 .. pieces-1)` with at most `workers` pieces in flight, and resolve when all
 * are done. The first piece that throws stops the handing out of further pieces; the promise then
 * rejects with that error once the pieces already running have ended.
 *
 * @example
 * ```ts
 * const keys = ['default/a', 'default/b', 'default/c'];
 * const reconcile = async (key: string | undefined): Promise<void> => console.log('reconciling', key);
 * await parallelizeUntil(4, keys.length, async (i) => reconcile(keys[i]), { signal });
 * ```
 * @throws RangeError when `workers` or `chunkSize` is not an integer >= 1, or `pieces` not an integer >= 0.
 */
export async function parallelizeUntil(
  workers: number,
  pieces: number,
  doWorkPiece: (piece: number) => void | Promise<void>,
  options: ParallelizeOptions = {},
): Promise<void> {
  const { signal, chunkSize = 1 } = options;
  if (!Number.isInteger(workers) || workers < 1) {
    throw new RangeError(`workers must be an integer >= 1, got ${workers}`);
  }
  if (!Number.isInteger(pieces) || pieces < 0) {
    throw new RangeError(`pieces must be an integer >= 0, got ${pieces}`);
  }
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new RangeError(`chunkSize must be an integer >= 1, got ${chunkSize}`);
  }
  let next = 0;
  let completed = 0;
  let failed = false;
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (next < pieces && !failed && !signal?.aborted) {
      const start = next;
      const end = Math.min(pieces, start + chunkSize);
      next = end;
      for (let piece = start; piece < end; piece++) {
        if (failed || signal?.aborted) return;
        try {
          await doWorkPiece(piece);
          completed++;
        } catch (error) {
          if (!failed) {
            failed = true;
            failure = error;
          }
          return;
        }
      }
    }
  };
  const count = Math.min(workers, Math.ceil(pieces / chunkSize));
  await Promise.all(Array.from({ length: count }, worker));
  if (failed) throw failure;
  if (completed < pieces && signal?.aborted) throw abortReason(signal);
}
