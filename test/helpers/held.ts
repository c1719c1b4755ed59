/**
 * Requests the server is known to be working on, for tests of draining and of clients that go
 * away: no sleep stands in for "the server has it now".
 */
import type { TestServer } from './server.js';
import { until } from './until.js';

export interface Held {
  /** The answer, once the server gives it. */
  answer: Promise<Response>;
  /** Whether the answer has come. */
  answered: () => boolean;
}

/**
 * A request the server holds for `ms` (a store task that sleeps: `TRACELAKE_FAULT_INJECTION=on`),
 * resolved once the store runs it, so that it is in flight.
 */
export async function heldRequest(server: TestServer, ms: number, init: RequestInit = {}): Promise<Held> {
  let done = false;
  const answer = storeSleep(server, ms, init).finally(() => (done = true));
  if (!(await storeBusy(server))) throw new Error('the held request never reached the store');
  return { answer, answered: () => done };
}

/** The store pool's tasks waiting and running, as the main thread sees them. */
export interface StoreQueue {
  queued: number;
  active: number;
}

export async function storeQueue(server: TestServer): Promise<StoreQueue> {
  return (await fetch(`${server.url}/v1/_faults/store-queue`)).json() as Promise<StoreQueue>;
}

/** Polls the store's queue until `predicate` holds (each poll is a request answered on the main thread). */
export async function storeQueueUntil(server: TestServer, predicate: (q: StoreQueue) => boolean): Promise<StoreQueue> {
  for (;;) {
    const q = await storeQueue(server);
    if (predicate(q)) return q;
    await new Promise((r) => setImmediate(r));
  }
}

/** A store task that holds its slot for `ms` (fault injection), sent as a request of its own. */
export function storeSleep(server: TestServer, ms: number, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}/v1/_faults/store-sleep?ms=${ms}`, init);
}

/** Resolves true once the store runs a task (a held request sent some other way), false after `ms`. */
export function storeBusy(server: TestServer, ms?: number): Promise<boolean> {
  return until(async () => (await storeQueue(server)).active > 0, ms);
}

/** Resolves true once a new connection to the server is refused (it closed its listen socket), false after `ms`. */
export function refusesConnections(server: TestServer, ms = 10_000): Promise<boolean> {
  return until(
    () =>
      fetch(`${server.url}/health`, { headers: { connection: 'close' } }).then(
        () => false,
        () => true,
      ),
    ms,
  );
}
