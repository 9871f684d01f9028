// Escalates industry alarms whose SLA deadline passed unacknowledged, on the box, by itself: no
// cloud and no person needed. Its state is the alarm rows (status, sla_deadline_at), so a restart
// loses nothing: the first tick after start escalates whatever fell due while the box was down.
// Each escalation is a status event and an audit record (alarm-service.ts). Expired shelves end
// in the same pass.
import type { Services } from '../kernel/context.js';

export interface Escalator {
  /** One pass: escalates every alarm due at `now`; returns how many were escalated. */
  tick(now?: Date): Promise<number>;
  stop(): void;
}

export function startEscalator(services: Services, intervalMs: number): Escalator {
  let running: Promise<number> | undefined;
  const tick = async (now = new Date()): Promise<number> => {
    const alarms = services.industryAlarms;
    if (!alarms || services.lifecycle.state !== 'ready') return 0;
    // Shelves whose time is up end here too, before the pass, so an alarm back from its shelf
    // escalates in the same pass if its deadline passed meanwhile.
    await alarms.expireShelves(now);
    let escalated = 0;
    for (const due of await alarms.overdue(now, 200)) {
      try {
        await alarms.escalate({ id: due.id, actor: 'sla-escalator', now });
        escalated++;
      } catch (err) {
        // Acknowledged or escalated by someone else in between: nothing left to do for it.
        services.log.debug('alarm not escalated', { id: due.id, error: (err as Error).message });
      }
    }
    return escalated;
  };
  const timer = setInterval(() => {
    if (running) return;
    running = tick().catch((err: Error) => {
      services.log.error('alarm escalation pass failed', { error: err.message });
      return 0;
    }).finally(() => { running = undefined; });
  }, intervalMs);
  timer.unref();
  return { tick, stop: () => clearInterval(timer) };
}
