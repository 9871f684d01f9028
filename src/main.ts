// The `cabinet` command: one binary, several sub-commands.
// Each command imports what it uses when it runs: `version` and `help` load no part of the
// service (src/cli-fast.ts), `token` no HTTP server, and so on.
import './node-version.js'; // first: a too-old Node.js stops here, before any native addon loads
import { ConfigError, loadConfig, parseFlags } from './config.js';
import { FAST_COMMANDS, fastCommand } from './cli-fast.js';
import type { Services } from './kernel/context.js';
type FirstRun = typeof import('./runtime/first-run.js');

/** StartupError, registered by `serve` when it loads the server: the one failure class whose
 *  module only `serve` loads (the others' modules are light; see failureExitCode). */
let startupError: (abstract new (...args: never[]) => Error) | undefined;

async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseFlags(args);
  const config = loadConfig(values);
  // The stop signals are taken from the start, before the server's modules load: one that arrives
  // while the server starts (or right after it listens) is a graceful stop once it can be, never
  // the default instant exit that would leave the database unclosed.
  // A repeated signal never cuts the stop short (under `npm start` a group's SIGTERM or Ctrl-C
  // arrives twice: directly and forwarded by npm); the stop is bounded by shutdown_timeout_ms.
  let signalled: ((signal: string) => void) | undefined;
  let stopping = false;
  const early: string[] = [];
  const onSignal = (signal: string) => (signalled ? signalled(signal) : early.push(signal));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  const [{ startServer, StartupError }, { notifyReady, notifyStopping }, { settleAfterStart }, { rememberConfigFile, setupMessage, setupRequired }] =
    await Promise.all([import('./server.js'), import('./runtime/systemd.js'), import('./runtime/settle.js'), import('./runtime/first-run.js')]);
  startupError = StartupError;
  rememberConfigFile(values.config ?? process.env.CABINET_CONFIG);
  const server = await startServer(config);
  const stopped = new Promise<void>((resolve) => {
    signalled = (signal: string) => {
      if (stopping) return;
      stopping = true;
      server.services.log.info('stopping', { signal });
      void notifyStopping();
      void server.close().then(resolve);
    };
  });
  if (early.length) signalled!(early[0]!);
  else {
    await logFirstRun(server.services, setupRequired, setupMessage);
    // systemd (Type=notify): ready only now, with the database migrated and HTTP listening.
    await notifyReady(`ready: ${server.url}`);
    // Not in the build's training run (src/runtime/sea-loader.cjs): the collection sets a V8 flag
    // (--expose-gc), and a code cache written after it would not match a plain start's flags.
    if (!process.env.CABINET_BUILD_CODE_CACHE_OUT) settleAfterStart((s) => {
      const mib = (n: number) => Math.round(n / 104857.6) / 10;
      server.services.log.debug('start-up settled (full collection)', { ms: Math.round(s.ms), heap_mib: [mib(s.heapBefore), mib(s.heapAfter)], rss_mib: mib(s.rss) });
    });
  }
  await stopped;
  return 0;
}

/** First run: nobody can log in until an admin card exists; the log says how to make one. */
async function logFirstRun(services: Services, setupRequired: FirstRun['setupRequired'], setupMessage: FirstRun['setupMessage']): Promise<void> {
  try {
    if (await setupRequired(services.db)) {
      services.log.warn(setupMessage(services.config), { setup_required: true });
    }
  } catch (err) {
    services.log.warn('could not check for an admin passkey', { error: (err as Error).message });
  }
}

async function backupCommand(args: string[]): Promise<number> {
  const { values } = parseFlags(args, ['to']);
  if (!values.to) throw new ConfigError('usage: cabinet backup --to FILE [--config FILE | --data-dir DIR]');
  const config = loadConfig(values);
  const { backupDatabase } = await import('./runtime/backup.js');
  const r = await backupDatabase(config, values.to);
  process.stdout.write(
    `backup ${r.file}: ${(r.bytes / 1e6).toFixed(1)} MB, cabinet ${r.manifest.cabinet_version}, ${r.manifest.migrations.length} migrations, session key ${r.manifest.session_key === 'included' ? 'included' : 'from the configuration (not included)'}, ${r.ms} ms\n`,
  );
  return 0;
}

async function restoreCommand(args: string[]): Promise<number> {
  const { values } = parseFlags(args, ['from']);
  if (!values.from) throw new ConfigError('usage: cabinet restore --from FILE [--config FILE | --data-dir DIR] (with the service stopped)');
  const config = loadConfig(values);
  const { restoreDatabase } = await import('./runtime/backup.js');
  // Imported here, not at the top: the module list imports the kernel, which main.ts loads lazily.
  const { MODULES } = await import('./modules/index.js');
  const r = await restoreDatabase(config, values.from, MODULES.map((m) => m.id));
  process.stdout.write(
    `restored ${r.database} from ${values.from} (cabinet ${r.manifest.cabinet_version}, made ${r.manifest.created_at})` +
      `${r.previous ? `; the database it replaced is ${r.previous}` : ''}` +
      `${r.migrationsToApply > 0 ? `; ${r.migrationsToApply} newer migration(s) run at the next start` : ''}\n`,
  );
  return 0;
}

async function migrateCommand(args: string[]): Promise<number> {
  const config = loadConfig(parseFlags(args).values);
  const [{ openDatabase }, { migrateAll }] = await Promise.all([import('./db/client.js'), import('./modules/migrate-all.js')]);
  const db = await openDatabase({ databaseUrl: config.database_url, dataDir: config.data_dir });
  try {
    const ran = await migrateAll(db);
    process.stdout.write(ran.length ? `applied ${ran.length} migration(s): ${ran.join(', ')}\n` : 'database is up to date\n');
  } finally {
    await db.close();
  }
  return 0;
}

async function rpcCommand(args: string[]): Promise<number> {
  // The request flags belong to `cabinet rpc`; the rest are the service's settings (for rpc_port).
  const own = new Set(['--file', '-f', '--url', '--token']);
  const mine: string[] = [];
  const settings: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (own.has(a)) mine.push(a, args[++i] ?? '');
    else if (a === '-' || a === '--help' || a === '-h') mine.push(a);
    else settings.push(a);
  }
  const config = loadConfig(parseFlags(settings).values);
  const { runRpcCli } = await import('./field/cli.js');
  return runRpcCli(mine, { url: `http://127.0.0.1:${config.rpc_port}/api/rpc`, token: process.env.CABINET_TOKEN });
}

export async function main(argv: string[]): Promise<number> {
  const [command = 'help', ...args] = argv;
  try {
    if (FAST_COMMANDS.has(command)) return await fastCommand(command);
    switch (command) {
      case 'serve': return await serveCommand(args);
      case 'migrate': return await migrateCommand(args);
      case 'rpc': return await rpcCommand(args);
      case 'backup': return await backupCommand(args);
      case 'restore': return await restoreCommand(args);
      case 'token': return await (await import('./cli-auth.js')).tokenCommand(args);
      case 'passkey': return await (await import('./cli-auth.js')).passkeyCommand(args);
      case 'storage': return await (await import('./modules/storage/cli.js')).storageCommand(args);
      case 'simulate': return await (await import('./simulate/cli.js')).simulateCommand(args);
      case 'release': return await (await import('./cli-release.js')).releaseCommand(args);
      case 'update': return await (await import('./updater/command.js')).updateCommand(args);
      default:
        process.stderr.write(`cabinet: unknown command ${command}; run 'cabinet help'\n`);
        return 2;
    }
  } catch (err) {
    const code = await failureExitCode(err);
    process.stderr.write(code === undefined ? `cabinet: unexpected failure: ${(err as Error).message}\n` : `cabinet: ${(err as Error).message}\n`);
    return code ?? 1;
  }
}

/**
 * The exit code of a failure whose message is the whole story (one line on stderr, no "unexpected
 * failure"), or undefined. The classes' modules are imported here, after the failure, so that a
 * command that never loaded them does not load them to start.
 */
async function failureExitCode(err: unknown): Promise<number | undefined> {
  if (err instanceof ConfigError) return 2;
  const [{ DatabaseOpenError }, { MigrationRefused }, { SecretError }, { BackupError }] = await Promise.all([
    import('./db/client.js'), import('./db/migrate.js'), import('./auth/secret.js'), import('./runtime/backup.js'),
  ]);
  if (err instanceof BackupError) return err.exitCode;
  if (err instanceof DatabaseOpenError || err instanceof MigrationRefused || err instanceof SecretError) return 1;
  if (startupError && err instanceof startupError) return 1;
  return undefined;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`cabinet: ${String(err)}\n`);
    process.exit(1);
  },
);
