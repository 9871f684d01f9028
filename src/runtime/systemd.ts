// Service-manager notifications for systemd/cabinet.service (Type=notify, NotifyAccess=all).
// Node cannot send on a unix datagram socket, so the messages go through `systemd-notify`, which
// (systemd >= 246) waits until the manager has processed the message (sd_notify_barrier), so a
// READY=1 from this short-lived helper is attributed to the unit reliably.
// Outside systemd (no $NOTIFY_SOCKET) every function is a no-op.
// node:child_process (with the node:dgram it loads) is taken at the first message: outside
// systemd none is sent, and under it the first is READY=1, after the start.

function notify(args: string[]): Promise<void> {
  if (!process.env.NOTIFY_SOCKET) return Promise.resolve();
  return new Promise((resolve) => {
    process.getBuiltinModule('node:child_process').execFile('systemd-notify', args, { timeout: 10_000 }, (err) => {
      if (err) process.emitWarning(`systemd-notify ${args.join(' ')} failed: ${err.message}`);
      resolve();
    });
  });
}

/** Call once the service really serves (database migrated, HTTP listening: /ready is 200). */
export function notifyReady(status = 'ready'): Promise<void> {
  return notify(['--ready', `--status=${status}`]);
}

/** Call when graceful shutdown starts. */
export function notifyStopping(status = 'stopping'): Promise<void> {
  return notify([`--status=${status}`, 'STOPPING=1']);
}

export function notifyStatus(status: string): Promise<void> {
  return notify([`--status=${status}`]);
}

/** When the unit sets WatchdogSec=, pings at half the interval from the event loop (a stalled
 *  loop stops the pings and systemd restarts the service). Returns a stop function. */
export function startWatchdog(): () => void {
  const usec = Number(process.env.WATCHDOG_USEC);
  if (!process.env.NOTIFY_SOCKET || !Number.isFinite(usec) || usec <= 0) return () => {};
  const timer = setInterval(() => void notify(['WATCHDOG=1']), Math.max(1000, usec / 2000));
  timer.unref();
  return () => clearInterval(timer);
}
