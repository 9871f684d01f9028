// The current time as an RFC 3339 string, formatted once per millisecond: every answer's meta,
// every security-log entry and every log line carry one, and under load many share a millisecond.
let lastMs = Number.NaN;
let lastIso = '';

export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
