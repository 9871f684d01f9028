// `cabinet storage thin`: asks the running service to run retention and the storage budget now,
// through its API (the service is the database's one writer), with a five-minute admin session
// signed by the box's own key. Prints what was purged, thinned and given back.
// `cabinet storage shm-mount` / `shm-unmount`: the log index on tmpfs, run as root by the unit
// before the service starts and after it stops (src/runtime/shm-mount.ts, loaded only for them).
import { ConfigError, loadConfig, parseFlags } from '../../config.js';
import { loadSessionKey } from '../../auth/secret.js';
import { signSession } from '../../auth/tokens.js';
import type { StorageSnapshot } from './budget.js';

const USAGE =
  'usage: cabinet storage thin [--url http://127.0.0.1:<http_port>] [--config FILE | --data-dir DIR]\n' +
  '       cabinet storage shm-mount|shm-unmount [--run-dir /run/cabinet-shm] [--wait-s 10 (unmount)] [--config FILE | --data-dir DIR] (as root, by the unit)';

const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;

export function describeRun(s: StorageSnapshot): string {
  const run = s.last_run;
  const lines = [`storage: ${mib(s.live_bytes)} of ${mib(s.budget_bytes)} (${s.percent} %), ${mib(s.used_bytes)} on disk, state ${s.state}`];
  if (s.warning) lines.push(s.warning);
  if (run?.skipped) lines.push(`nothing deleted: the clock moved by ${run.clock_jump_ms} ms; the next run purges`);
  for (const p of run?.purged ?? []) lines.push(`purged ${p.rows} rows of ${p.table} (retention)`);
  for (const t of run?.thinned ?? []) lines.push(`thinned ${t.rows} rows of ${t.table} (${t.label}): now kept ${t.effective_days} days`);
  if (run) lines.push(`gave back ${mib(run.returned_bytes)} in ${run.ms} ms`);
  return `${lines.join('\n')}\n`;
}

export async function storageCommand(args: string[], out: (text: string) => void = (t) => process.stdout.write(t)): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'shm-mount' || sub === 'shm-unmount') {
    const { values } = parseFlags(rest, ['run-dir', 'wait-s']);
    const config = loadConfig(values);
    const waitS = values.wait_s === undefined ? 10 : Number(values.wait_s);
    if (!Number.isFinite(waitS) || waitS < 0 || waitS > 60) throw new ConfigError(`--wait-s takes 0 to 60 seconds. ${USAGE}`);
    const { shmCommand } = await import('../../runtime/shm-mount.js');
    return shmCommand(sub, { dataDir: config.data_dir, databaseUrl: config.database_url, runDir: values.run_dir, waitMs: waitS * 1000 }, out);
  }
  if (sub !== 'thin') throw new ConfigError(USAGE);
  const { values } = parseFlags(rest, ['url']);
  const config = loadConfig(values);
  const url = values.url ?? `http://127.0.0.1:${config.http_port}`;
  const { key } = loadSessionKey({ secret: config.session_secret, dataDir: config.data_dir });
  const { token } = await signSession(key, { subject: 'cli-storage', role: 'admin', scope_type: 'master', ttlMinutes: 5 });
  let res: Response;
  try {
    res = await fetch(`${url.replace(/\/$/, '')}/api/v1/storage/commands/thin`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  } catch (err) {
    throw new ConfigError(`the service does not answer at ${url} (${(err as Error).message}); is it running? ${USAGE}`);
  }
  const body = (await res.json()) as { item?: StorageSnapshot; error?: { code: string; message: string } };
  if (!res.ok || !body.item) throw new ConfigError(`the service refused: ${res.status} ${body.error?.code ?? ''} ${body.error?.message ?? ''}`.trim());
  out(describeRun(body.item));
  return 0;
}
