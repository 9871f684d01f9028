// Checks that nothing more happens on a page after an action, without a fixed sleep. Two things
// can still change the page then: the box (an event on the shell's WebSocket) and the page's own
// timers (the tone's beeps, the shell's polls). The box sends a heartbeat every
// status_heartbeat_ms on the same socket as its events, and an event of a request before that
// request's answer: the first heartbeat after the answer comes after everything the request
// changed, and the shell applies an event when it arrives. The page's timers run on Playwright's
// clock (context.clock.install() before the page loads; it keeps the real pace until a test runs
// it ahead): running it ahead fires every timer due in that time, at once.
import type { Page } from 'playwright-core';

export interface LiveFeed {
  /** Resolves at the first heartbeat the page receives after the call. */
  next(timeoutMs?: number): Promise<void>;
}

/** Watches the page's WebSockets; call it before the page opens its live feed (before the login). */
export function watchLiveFeed(page: Page): LiveFeed {
  let waiting: (() => void)[] = [];
  page.on('websocket', (ws) => {
    ws.on('framereceived', ({ payload }) => {
      if (typeof payload !== 'string' || !payload.startsWith('{"type":"heartbeat"')) return;
      const due = waiting;
      waiting = [];
      for (const resolve of due) resolve();
    });
  });
  return {
    next(timeoutMs = 15_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no heartbeat from the box within ${timeoutMs} ms`)), timeoutMs);
        waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/**
 * Nothing left to arrive from the box (its next heartbeat came), then `ms` of the page's time run
 * at once: what the page would do by itself in that time (a tone's next beeps) has happened.
 */
export async function settle(page: Page, feed: LiveFeed, ms: number): Promise<void> {
  await feed.next();
  await page.clock.runFor(ms);
}
