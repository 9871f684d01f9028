// One JSON line per event on stdout. Callers pass structured fields; secrets never go in them
// (the access log records route context, never headers such as Authorization or Cookie).
import { isoNow } from './clock.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const rank: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Whether a line of this level would be written, so a caller can skip building its fields. */
  enabled?(level: Level): boolean;
}

export function createLogger(level: Level = 'info', write: (line: string) => void = (l) => process.stdout.write(l + '\n')): Logger {
  const min = rank[level];
  const emit = (lvl: Level) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (rank[lvl] < min) return;
    write(JSON.stringify({ time: isoNow(), level: lvl, msg, ...fields }));
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error'), enabled: (lvl) => rank[lvl] >= min };
}
