// The soak's fault catalogue: every fault the built-in API server's FaultInjector offers (@lasso/envtest), as
// serializable actions drawn from the seeded randomness and applied by the server process.
import type { Random } from './random.ts';

/** What a fault request matches (a path pattern is sent as RegExp source). */
export interface MatchSpec {
  /** Any of these methods (one injector fault per method). */
  methods?: string[];
  pathPattern?: string;
  watch?: boolean;
}

/** One action on the server's FaultInjector, as the soak sends it to the server process. */
export type FaultAction =
  | { op: 'closeWatches' }
  | {
      op: 'failNext';
      count: number;
      status: number;
      reason?: string;
      message?: string;
      retryAfterSeconds?: number;
      match: MatchSpec;
    }
  | { op: 'setLatency'; ms: number; forMs: number; match: MatchSpec }
  | { op: 'expireHistory' }
  | { op: 'cutNext'; count: number; afterBytes: number; match: MatchSpec }
  | { op: 'restart'; downMs: number }
  | { op: 'sendBookmarks' };

/** A named kind of fault and how to draw one. */
export interface FaultKind {
  name: string;
  draw(random: Random): FaultAction;
}

const writes = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** Every kind the soak applies (each FaultInjector method at least once; failures in several flavours). */
export const faultKinds: readonly FaultKind[] = [
  { name: 'close-watches', draw: () => ({ op: 'closeWatches' }) },
  {
    name: 'watch-500',
    draw: (r) => ({ op: 'failNext', count: r.int(1, 20), status: 500, match: { watch: true } }),
  },
  {
    name: 'list-500',
    draw: (r) => ({
      op: 'failNext',
      count: r.int(1, 10),
      status: 500,
      match: { methods: ['GET'], watch: false },
    }),
  },
  {
    name: 'get-503-retry-after',
    draw: (r) => ({
      op: 'failNext',
      count: r.int(1, 10),
      status: 503,
      retryAfterSeconds: r.int(1, 3),
      match: { methods: ['GET'] },
    }),
  },
  {
    name: 'any-429',
    draw: (r) => ({
      op: 'failNext',
      count: r.int(1, 20),
      status: 429,
      retryAfterSeconds: 1,
      match: {},
    }),
  },
  {
    name: 'watch-410',
    draw: (r) => ({
      op: 'failNext',
      count: r.int(1, 5),
      status: 410,
      reason: 'Expired',
      message: 'too old resource version',
      match: { watch: true },
    }),
  },
  {
    name: 'list-410',
    draw: (r) => ({
      op: 'failNext',
      count: r.int(1, 3),
      status: 410,
      reason: 'Expired',
      message: 'too old resource version',
      match: { methods: ['GET'], watch: false },
    }),
  },
  {
    name: 'watch-504-too-large-rv',
    draw: (r) => ({
      op: 'failNext',
      count: r.int(1, 3),
      status: 504,
      reason: 'Timeout',
      message: 'Timeout: Too large resource version: 999999, current: 1',
      retryAfterSeconds: 1,
      match: { watch: true },
    }),
  },
  {
    name: 'watch-403',
    draw: (r) => ({
      op: 'failNext',
      count: r.int(1, 5),
      status: 403,
      reason: 'Forbidden',
      match: { watch: true },
    }),
  },
  {
    name: 'write-500',
    draw: (r) => ({
      op: 'failNext',
      count: r.int(1, 20),
      status: 500,
      match: { methods: writes },
    }),
  },
  {
    name: 'version-500',
    draw: (r) => ({
      op: 'failNext',
      count: r.int(1, 5),
      status: 500,
      match: { methods: ['GET'], pathPattern: '^/version$' },
    }),
  },
  {
    name: 'watch-latency',
    draw: (r) => ({
      op: 'setLatency',
      ms: r.int(100, 3000),
      forMs: r.int(1000, 8000),
      match: { watch: true },
    }),
  },
  {
    name: 'any-latency',
    draw: (r) => ({ op: 'setLatency', ms: r.int(10, 500), forMs: r.int(1000, 8000), match: {} }),
  },
  { name: 'expire-history', draw: () => ({ op: 'expireHistory' }) },
  {
    name: 'cut-watch',
    draw: (r) => ({
      op: 'cutNext',
      count: r.int(1, 5),
      afterBytes: r.int(0, 4000),
      match: { watch: true },
    }),
  },
  {
    name: 'cut-list',
    draw: (r) => ({
      op: 'cutNext',
      count: r.int(1, 3),
      afterBytes: r.int(0, 4000),
      match: { methods: ['GET'], watch: false },
    }),
  },
  { name: 'restart', draw: (r) => ({ op: 'restart', downMs: r.int(100, 3000) }) },
  { name: 'bookmarks', draw: () => ({ op: 'sendBookmarks' }) },
];
