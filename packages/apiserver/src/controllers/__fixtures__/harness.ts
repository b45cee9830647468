// A server core without transport, with the built-in controllers, for their unit tests: requests go
// straight to the API (as the admin), the clock is a FakeClock, and `settled()` waits for the controllers.
import type { Logger } from '@lasso/core';
import { FakeClock } from '@lasso/core/testing';
import { StatusError } from '../../apimachinery/status.ts';
import { mastersGroup } from '../../authentication/authenticate.ts';
import { ApiCore } from '../../endpoints/dispatcher.ts';
import { requestInfo } from '../../request/request-info.ts';
import { Registry } from '../../resources/served-resources.ts';
import { timestamp } from '../../registry/server-context.ts';
import { Store } from '../../storage/store.ts';
import { type ControllerSelection, ControllerManager } from '../controller-manager.ts';

/** An answer: status code and body. */
export interface Answer {
  code: number;
  body: any;
}

/** What a controller test drives. */
export interface Harness {
  clock: FakeClock;
  store: Store;
  manager: ControllerManager;
  warnings: string[];
  send(method: string, path: string, body?: unknown, contentType?: string): Answer;
  /** Resolves once the controllers have no queued work. */
  settled(): Promise<void>;
}

export function startHarness(selection: ControllerSelection): Harness {
  const clock = new FakeClock(Date.UTC(2030, 0, 2, 3, 4, 5));
  const store = new Store();
  const registry = new Registry();
  const api = new ApiCore({ clock, registry, store, serverAddress: () => '127.0.0.1:1' });
  api.bootstrap();
  const warnings: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (message: string) => {
      warnings.push(message);
    },
    error: (message: string) => {
      warnings.push(message);
    },
    child: () => logger,
  };
  const manager = new ControllerManager({
    selection,
    store,
    registry,
    handle: (info, request) => api.handle(info, request),
    logger,
    now: () => timestamp(clock.now()),
  });
  manager.start();
  const user = { name: 'admin', groups: [mastersGroup] };
  return {
    clock,
    store,
    manager,
    warnings,
    send(method, path, body, contentType = 'application/json') {
      const url = new URL(path, 'https://127.0.0.1');
      try {
        const result = api.handle(requestInfo(method, url), {
          method,
          url,
          headers: { 'content-type': contentType },
          body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
          user,
        });
        return { code: result.type === 'json' ? result.code : 200, body: (result as any).body };
      } catch (error) {
        if (error instanceof StatusError) return { code: error.code, body: error.status };
        throw error;
      }
    },
    settled: () => manager.idle(),
  };
}
