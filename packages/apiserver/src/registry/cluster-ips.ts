// The service clusterIP allocator of one server: ServerContext holds it, the Service strategy
// (strategies/services.ts) takes addresses from it.
import { internalError } from '../apimachinery/status.ts';

/**
 * Hands out clusterIPs from the service range in turn, skipping the ones stored Services hold (the
 * allocator's bitmap, rebuilt from storage), so addresses are reused only after wrapping around.
 */
export class ClusterIpAllocator {
  /** The last host number handed out (10.0.0.1 is the kubernetes Service's). */
  #last = 10;

  /** The next free address, taken. */
  allocate(used: ReadonlySet<string>): string {
    const host = this.#nextFree(used);
    this.#last = host;
    return `10.0.0.${host}`;
  }

  /** The address {@link ClusterIpAllocator.allocate} would hand out next (a dry run shows it). */
  peek(used: ReadonlySet<string>): string {
    return `10.0.0.${this.#nextFree(used)}`;
  }

  #nextFree(used: ReadonlySet<string>): number {
    for (let step = 1; step <= 253; step++) {
      const host = ((this.#last - 2 + step) % 253) + 2; // 10.0.0.2 .. 10.0.0.254
      if (!used.has(`10.0.0.${host}`)) return host;
    }
    throw internalError('failed to allocate a serviceIP: range is full');
  }
}
