import { ApiError } from '../kernel/errors.js';

/**
 * A reading's time on the box's clock (services.clock): without ts it is now; more than a minute
 * ahead is refused. The rule engine measures a breach's hold in this time, so a controller's
 * backlog sent late holds as it happened, not from its arrival.
 */
export function readingTime(ts: string | undefined, now: number): Date {
  const at = ts ? new Date(ts) : new Date(now);
  if (at.getTime() > now + 60_000) throw new ApiError('validation_error', `ts ${ts} is in the future`, [{ field: 'ts', reason: 'in_future' }]);
  return at;
}
