// The `cabinet` command: one binary, several sub-commands.
import { ConfigError, envOf, flagOf, loadConfig, parseFlags, SETTINGS } from './config.js';
import { DatabaseOpenError, openDatabase } from './db/client.js';
import { migrate, MigrationRefused } from './db/migrate.js';
import { startServer, StartupError } from './server.js';
import pkg from '../package.json' with { type: 'json' };

const HELP = `cabinet ${pkg.version}: the site controller service

Usage: cabinet <command> [options]

Commands:
  serve      run the service (HTTP API, docs, web shell)
  migrate    apply database migrations and exit
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
  const server = await startServer(config);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      server.services.log.info('stopping', { signal });
      void server.close().then(resolve);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  return 0;
}

async function migrateCommand(args: string[]): Promise<number> {
  const config = loadConfig(parseFlags(args).values);
  const db = await openDatabase({ databaseUrl: config.database_url, dataDir: config.data_dir });
  try {
    const ran = await migrate(db);
    process.stdout.write(ran.length ? `applied ${ran.length} migration(s): ${ran.join(', ')}\n` : 'database is up to date\n');
  } finally {
    await db.close();
  }
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command = 'help', ...args] = argv;
  try {
    switch (command) {
      case 'serve': return await serveCommand(args);
      case 'migrate': return await migrateCommand(args);
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
    if (err instanceof DatabaseOpenError || err instanceof MigrationRefused || err instanceof StartupError) {
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
