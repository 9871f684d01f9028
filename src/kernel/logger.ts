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

let toStdout: ((line: string) => void) | undefined;

/**
 * Lines to stdout, written once per turn of the event loop. At info the access log is a line per
 * request, and each line written alone was a write(2) to the pipe journald reads: about a tenth
 * of the CPU of a `tables/list` request (docs/request-overhead.md). Lines keep their order and
 * go out in the same turn they were logged; what is pending is written before the process exits.
 */
function stdoutLines(): (line: string) => void {
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending) return;
    const out = pending;
    pending = '';
    process.stdout.write(out);
  };
  process.on('exit', flush);
  return (line) => {
    pending += line + '\n';
    if (pending.length >= 1 << 16) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}

export function createLogger(level: Level = 'info', write: (line: string) => void = (toStdout ??= stdoutLines())): Logger {
  const min = rank[level];
  const emit = (lvl: Level) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (rank[lvl] < min) return;
    // The fields' own JSON after the three first keys, instead of a copy of them spread into a new
    // object; the same text unless a field is named like one of the three (then the copy decides).
    if ('time' in fields || 'level' in fields || 'msg' in fields) return write(JSON.stringify({ time: isoNow(), level: lvl, msg, ...fields }));
    const rest = JSON.stringify(fields);
    write(`{"time":"${isoNow()}","level":"${lvl}","msg":${JSON.stringify(msg)}${rest === '{}' ? '}' : `,${rest.slice(1)}`}`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error'), enabled: (lvl) => rank[lvl] >= min };
}
