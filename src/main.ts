// The `cabinet` command: one binary, several sub-commands.
import './node-version.js'; // first: a too-old Node.js stops here, before any native addon loads
import { ConfigError, envOf, flagOf, loadConfig, parseFlags, SETTINGS } from './config.js';
import { DatabaseOpenError, openDatabase } from './db/client.js';
import { MigrationRefused } from './db/migrate.js';
import { migrateAll } from './modules/migrate-all.js';
import { startServer, StartupError } from './server.js';
import { SecretError } from './auth/secret.js';
import { notifyReady, notifyStopping } from './runtime/systemd.js';
import { settleAfterStart } from './runtime/settle.js';
import { rememberConfigFile, setupMessage, setupRequired } from './runtime/first-run.js';
import { BackupError } from './runtime/backup.js';
import type { Services } from './kernel/context.js';
import pkg from '../package.json' with { type: 'json' };

const HELP = `cabinet ${pkg.version}: the site controller service

Usage: cabinet <command> [options]

Commands:
  serve      run the service (HTTP API, docs, web shell)
  migrate    apply database migrations and exit
  token      print a signed session token: --role R --scope-type master|tenant [--tenant-id T]
             [--site-id S] [--ttl MIN] [--subject NAME]
  passkey    passkey issue --type rfid|qr --holder NAME [--role R] --scope-type master|tenant
             [--tenant-id T] [--site-id S] [--card-uid HEX] [--ttl MIN]: prints the credential once
  rpc        send one field-write request to a running service: --file req.json (or stdin),
             --url (default http://127.0.0.1:<rpc_port>/api/rpc), --token (or CABINET_TOKEN)
  backup     backup --to FILE: copy the SQLite database (online, while the service runs) and the
             session key into FILE (gzip'd tar, mode 0600); exit code 3 when there is nothing
             to copy (PostgreSQL: use pg_dump; no database yet)
  restore    restore --from FILE: put a backup back, with the service stopped; refuses a backup
             made by a newer cabinet (version or schema)
  version    print the cabinet, Node.js and SQLite versions
  help       this text

Options (each also as an environment variable, and as a key in --config FILE):
${SETTINGS.map((s) => `  ${flagOf(s.key).padEnd(24)} ${envOf(s.key).padEnd(30)} ${s.description}`).join('\n')}
  --config FILE            CABINET_CONFIG                 YAML or JSON file with any of the settings above
`;

async function sqliteVersion(): Promise<string> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const { betterSqlite3Binding } = await import('./runtime/native.js');
  const binding = betterSqlite3Binding();
  const db = new BetterSqlite3(':memory:', binding ? { nativeBinding: binding as unknown as string } : {});
  const v = (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
  db.close();
  return v;
}

async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseFlags(args);
  const config = loadConfig(values);
  rememberConfigFile(values.config ?? process.env.CABINET_CONFIG);
  // The stop signals are taken from the start: one that arrives while the server starts (or
  // right after it listens) is a graceful stop once it can be, never the default instant exit
  // that would leave the database unclosed.
  // A repeated signal never cuts the stop short (under `npm start` a group's SIGTERM or Ctrl-C
  // arrives twice: directly and forwarded by npm); the stop is bounded by shutdown_timeout_ms.
  let signalled: ((signal: string) => void) | undefined;
  let stopping = false;
  const early: string[] = [];
  const onSignal = (signal: string) => (signalled ? signalled(signal) : early.push(signal));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
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
    await logFirstRun(server.services);
    // systemd (Type=notify): ready only now, with the database migrated and HTTP listening.
    await notifyReady(`ready: ${server.url}`);
    settleAfterStart((s) => {
      const mib = (n: number) => Math.round(n / 104857.6) / 10;
      server.services.log.debug('start-up settled (full collection)', { ms: Math.round(s.ms), heap_mib: [mib(s.heapBefore), mib(s.heapAfter)], rss_mib: mib(s.rss) });
    });
  }
  await stopped;
  return 0;
}

/** First run: nobody can log in until an admin card exists; the log says how to make one. */
async function logFirstRun(services: Services): Promise<void> {
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
    switch (command) {
      case 'serve': return await serveCommand(args);
      case 'migrate': return await migrateCommand(args);
      case 'rpc': return await rpcCommand(args);
      case 'backup': return await backupCommand(args);
      case 'restore': return await restoreCommand(args);
      case 'token': return await (await import('./cli-auth.js')).tokenCommand(args);
      case 'passkey': return await (await import('./cli-auth.js')).passkeyCommand(args);
      case 'version':
      case '--version':
        process.stdout.write(`cabinet ${pkg.version}\nnode ${process.version}\nsqlite ${await sqliteVersion()}\n`);
        return 0;
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        return 0;
      default:
        process.stderr.write(`cabinet: unknown command ${command}; run 'cabinet help'\n`);
        return 2;
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`cabinet: ${err.message}\n`);
      return 2;
    }
    if (err instanceof BackupError) {
      process.stderr.write(`cabinet: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof DatabaseOpenError || err instanceof MigrationRefused || err instanceof StartupError || err instanceof SecretError) {
      process.stderr.write(`cabinet: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`cabinet: unexpected failure: ${(err as Error).message}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`cabinet: ${String(err)}\n`);
    process.exit(1);
  },
);
