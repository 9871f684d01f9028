// `cabinet version` and `cabinet help`, answered without loading the service: this module imports
// the settings table and nothing of the server, the database layer or the modules
// (test/ship/fast-path.test.ts checks which modules they load). The single executable does not
// even run its bundle for them: its loader prints the texts this module printed when the build
// asked the executable (src/runtime/sea-loader.cjs, test/binary/trailer.test.ts).
import { envOf, flagOf, SETTINGS, type Setting } from './config.js';

/** A setting's default as the help shows it (the docs' words where it depends on the machine). */
const defaultOf = (s: Setting): string =>
  s.defaultText?.replace(/`/g, '') ?? (s.default === '' ? 'empty' : typeof s.default === 'string' ? s.default : JSON.stringify(s.default));
import { betterSqlite3Binding } from './runtime/native.js';
import pkg from '../package.json' with { type: 'json' };

export const FAST_COMMANDS: ReadonlySet<string> = new Set(['version', '--version', 'help', '--help', '-h']);

export function helpText(): string {
  return `cabinet ${pkg.version}: the site controller service

Usage: cabinet <command> [options]

Commands:
  serve      run the service (HTTP API, docs, web shell)
  migrate    apply database migrations and exit
  token      print a signed session token: --role R --scope-type master|tenant [--tenant-id T]
             [--site-id S] [--ttl MIN] [--subject NAME]
  passkey    passkey issue --type rfid|qr --holder NAME [--role R] --scope-type master|tenant
             [--tenant-id T] [--site-id S] [--card-uid HEX] [--ttl MIN] [--language CODE]:
             prints the credential once
  rpc        send one field-write request to a running service: --file req.json (or stdin),
             --url (default http://127.0.0.1:<rpc_port>/api/rpc), --token (or CABINET_TOKEN)
  backup     backup --to FILE: copy the SQLite database (online, while the service runs) and the
             session key into FILE (gzip'd tar, mode 0600); exit code 3 when there is nothing
             to copy (PostgreSQL: use pg_dump; no database yet)
  restore    restore --from FILE: put a backup back, with the service stopped; refuses a backup
             made by a newer cabinet (version or schema)
  storage    storage thin [--url URL]: ask the running service to purge by retention and thin to
             storage_budget_bytes now; prints what it deleted and gave back (docs/storage-and-reads.md);
             storage shm-mount / shm-unmount: the database's log index on tmpfs, run as root by
             the unit before a start and after a stop ([--run-dir DIR] [--wait-s 10])
  simulate   simulated poultry house controllers on Modbus TCP (and RTU): --port 5020 --houses N
             [--serial /dev/PATH] [--speed X] [--age-days D] [--seed S] [--print-profile]; docs/simulator.md
  release    the fleet team's release tools: release keygen --out DIR (ed25519 key pair);
             release sign --key release.key --deb FILE.deb (writes FILE.deb.sig.json); release
             upload --url MASTER --token T --deb FILE.deb[,FILE2.deb] [--notes TEXT]; docs/install.md
  update     update apply | update recover: the privileged installer of the fleet's self-update
             (run as root by cabinet-updater.service; docs/install.md)
  version    print the cabinet, Node.js and SQLite versions
  help       this text

Options (each also as an environment variable, and as a key in --config FILE):
${SETTINGS.map((s) => `  ${flagOf(s.key).padEnd(24)} ${envOf(s.key).padEnd(30)} ${s.description} [default: ${defaultOf(s)}]`).join('\n')}
  --config FILE            CABINET_CONFIG                 YAML or JSON file with any of the settings above
`;
}

/** The SQLite library's own version, asked of the addon the service would use (in the single
 *  executable: the embedded one). */
async function sqliteVersion(): Promise<string> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const binding = betterSqlite3Binding();
  const db = new BetterSqlite3(':memory:', binding ? { nativeBinding: binding as unknown as string } : {});
  try {
    return (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
  } finally {
    db.close();
  }
}

/** Runs one of FAST_COMMANDS; returns the exit code. */
export async function fastCommand(command: string): Promise<number> {
  if (command === 'version' || command === '--version') {
    process.stdout.write(`cabinet ${pkg.version}\nnode ${process.version}\nsqlite ${await sqliteVersion()}\n`);
  } else {
    process.stdout.write(helpText());
  }
  return 0;
}
