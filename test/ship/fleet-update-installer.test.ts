// The privileged installer (src/updater/installer.ts) with a stand-in dpkg and service control
// (shell scripts that log their calls), a real SQLite database, a real backup and a real
// `cabinet restore`: a bad signature or checksum installs nothing; a proof in time keeps the new
// version; a proof that does not come, a new version that keeps exiting and a failed dpkg go back
// to the previous package and the backup taken before the upgrade; an update a power cut
// interrupted in proving or in installing is finished by recover(). Runs as root (the installer
// trusts only a root-owned key), as CI does.
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { backupDatabase } from '../../src/runtime/backup.js';
import { signManifest, fileDigest } from '../../src/runtime/release-signature.js';
import { changeStep, readState, writeRequest, statePath, type UpdateRequest } from '../../src/modules/updates/state.js';
import { Installer, type InstallRun } from '../../src/updater/installer.js';
import { cabinetArgs } from '../helpers/cabinet-main.js';

/** `cabinet restore` as the installer runs it again, as a child. */
const CABINET = await cabinetArgs();

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const isRoot = process.getuid?.() === 0;
const base = mkdtempSync(join(tmpdir(), 'cabinet-installer-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const FAKE_DPKG = `#!/bin/sh
# stand-in dpkg: status in $FAKE/status ("<version> <status words>"), calls in $FAKE/calls
F=$FAKE
case "$*" in
*"-s cabinet"*) set -- $(cat "$F/status"); v=$1; shift; printf 'Package: cabinet\\nStatus: %s\\nVersion: %s\\n' "$*" "$v"; exit 0 ;;
*"--configure -a"*) echo "configure-a" >> "$F/calls"; [ -f "$F/configure-to" ] && cp "$F/configure-to" "$F/status"; exit 0 ;;
esac
for last; do :; done
v=$(basename "$last" | sed 's/^cabinet_\\([^_]*\\)_.*/\\1/')
echo "install $v backup=\${CABINET_BACKUP_TO:-} updater=\${CABINET_UPDATER:-}" >> "$F/calls"
if [ -f "$F/fail-$v" ]; then echo "$v install ok half-configured" > "$F/status"; exit 1; fi
[ -n "\${CABINET_BACKUP_TO:-}" ] && cp "$F/backup.tar.gz" "$CABINET_BACKUP_TO"
echo "$v install ok installed" > "$F/status"
exit 0
`;
const FAKE_CTL = `#!/bin/sh
# stand-in systemctl: verbs in $FAKE/calls; NRestarts from $FAKE/nrestarts, read before a show is
# counted in $FAKE/shows (a test that waits for the first show then changes the count must not
# change the baseline that show reads)
case "$1" in
show) n=$(cat "$FAKE/nrestarts" 2>/dev/null || echo 0); echo show >> "$FAKE/shows"; echo "$n" ;;
*) echo "$1" >> "$FAKE/calls" ;;
esac
`;

interface Box {
  dir: string;
  fake: string;
  dataDir: string;
  rootDir: string;
  backupsDir: string;
  installer: Installer;
  calls(): string[];
}

let keyPem: { pub: string; priv: string };
let otherPriv: string;
let backupFile: string;

async function signed(deb: string, version: string, priv = keyPem.priv): Promise<string> {
  const d = await fileDigest(deb);
  const sig = signManifest(priv, { package: 'cabinet', version, arch: 'amd64', size: d.size, sha256: d.sha256, signed_at: new Date().toISOString() });
  const file = deb.replace(/\.deb$/, '.sig.json');
  writeFileSync(file, JSON.stringify(sig));
  return file;
}

function box(name: string): Box {
  const dir = join(base, name);
  const fake = join(dir, 'fake');
  const dataDir = join(dir, 'data');
  mkdirSync(fake, { recursive: true });
  mkdirSync(join(dataDir, 'updates'), { recursive: true });
  // The database of the running version, as the previous version's backup holds it.
  const db = readFileSync(join(base, 'template', 'cabinet.sqlite'));
  writeFileSync(join(dataDir, 'cabinet.sqlite'), db);
  writeFileSync(join(dataDir, 'session.key'), readFileSync(join(base, 'template', 'session.key')));
  writeFileSync(join(fake, 'dpkg'), FAKE_DPKG);
  writeFileSync(join(fake, 'ctl'), FAKE_CTL);
  chmodSync(join(fake, 'dpkg'), 0o755);
  chmodSync(join(fake, 'ctl'), 0o755);
  writeFileSync(join(fake, 'status'), '0.1.0 install ok installed\n');
  writeFileSync(join(fake, 'calls'), '');
  writeFileSync(join(fake, 'backup.tar.gz'), readFileSync(backupFile));
  process.env.FAKE = fake; // the scripts read it; one box runs at a time
  const config = loadConfig({
    data_dir: dataDir, release_public_key: join(base, 'release.pub'),
    update_dpkg_command: join(fake, 'dpkg'), update_service_control: join(fake, 'ctl'),
  }, {});
  const rootDir = join(dir, 'root');
  const backupsDir = join(dir, 'backups');
  mkdirSync(backupsDir);
  const installer = new Installer({
    config, rootDir, backupsDir, pollMs: 50, log: () => undefined,
    self: [process.execPath, ...CABINET],
  });
  return { dir, fake, dataDir, rootDir, backupsDir, installer, calls: () => readFileSync(join(fake, 'calls'), 'utf8').trim().split('\n').filter(Boolean) };
}

/** The hand-off as the service makes it: packages in data_dir/updates, installing, then request.json. */
async function handOver(b: Box, opts: { proof?: number; badSig?: boolean; badSum?: boolean } = {}): Promise<UpdateRequest> {
  const up = join(b.dataDir, 'updates');
  const pkgNew = join(up, 'cabinet_0.2.0_amd64.deb');
  const pkgOld = join(up, 'cabinet_0.1.0_amd64.deb');
  writeFileSync(pkgNew, 'the new package bytes');
  writeFileSync(pkgOld, 'the old package bytes');
  const sigNew = await signed(pkgNew, '0.2.0', opts.badSig ? otherPriv : keyPem.priv);
  const sigOld = await signed(pkgOld, '0.1.0');
  if (opts.badSum) writeFileSync(pkgNew, 'the new package bytes, changed after signing');
  const request: UpdateRequest = {
    package: pkgNew, signature: sigNew, version: '0.2.0', arch: 'amd64', previous_package: pkgOld, previous_signature: sigOld,
    previous_version: '0.1.0', proof_timeout_s: opts.proof ?? 2, answering_controllers_before: 0, rollout_id: 'r1', requested_at: new Date().toISOString(),
  };
  changeStep(b.dataDir, { step: 'installing', by: 'service', running_version: '0.1.0', patch: { target_version: '0.2.0', previous_version: '0.1.0', arch: 'amd64', request } });
  writeRequest(b.dataDir, request);
  return request;
}

/** Plays the new version: writes done once the installer has recorded proving. */
async function proveWhenAsked(b: Box): Promise<void> {
  for (;;) {
    const s = readState(b.dataDir);
    if (s?.step === 'proving') {
      changeStep(b.dataDir, { step: 'done', by: 'service', running_version: '0.2.0' });
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

function tables(dataDir: string): string[] {
  const db = new BetterSqlite3(join(dataDir, 'cabinet.sqlite'), { readonly: true });
  try {
    return (db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
}

/** What the new version's migrations would do to the data. */
function migrateAsNewVersion(dataDir: string): void {
  const db = new BetterSqlite3(join(dataDir, 'cabinet.sqlite'));
  db.exec('create table made_by_0_2_0 (x int)');
  db.close();
}

describe.skipIf(!isRoot)('the privileged installer (stand-in dpkg and systemctl, real backup and restore)', () => {
  beforeAll(async () => {
    const k = generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    keyPem = { pub: k.publicKey, priv: k.privateKey };
    otherPriv = generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
    writeFileSync(join(base, 'release.pub'), keyPem.pub, { mode: 0o644 });
    // A migrated database and its backup, as the previous version's preinst takes it.
    const template = join(base, 'template');
    const r = spawnSync(process.execPath, await cabinetArgs('migrate', '--data-dir', template), { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    writeFileSync(join(template, 'session.key'), 'k'.repeat(64), { mode: 0o600 });
    backupFile = join(base, 'backup.tar.gz');
    await backupDatabase(loadConfig({ data_dir: template }, {}), backupFile);
  }, 120_000);

  it('refuses a package whose signature is not the fleet key\'s, or whose bytes changed, before anything is installed', async () => {
    for (const [name, opts, code] of [['bad-sig', { badSig: true }, 'bad_signature'], ['bad-sum', { badSum: true }, 'bad_checksum']] as const) {
      const b = box(name);
      await handOver(b, opts);
      expect(await b.installer.apply()).toBe('refused');
      const s = readState(b.dataDir)!;
      expect(s.step).toBe('failed');
      expect(s.reason_code).toBe(code);
      expect(s.history.map((h) => `${h.step}/${h.by}`)).toEqual(['installing/service', 'installing/installer', 'failed/installer']);
      expect(b.calls()).toEqual([]); // no stop, no dpkg
      expect(existsSync(join(b.dataDir, 'updates', 'request.json'))).toBe(false);
      expect(existsSync(join(b.rootDir, 'run.json'))).toBe(false);
    }
  });

  it('keeps the new version that proves itself in time', async () => {
    const b = box('proven');
    await handOver(b, { proof: 30 });
    const [outcome] = await Promise.all([b.installer.apply(), proveWhenAsked(b)]);
    expect(outcome).toBe('done');
    const calls = b.calls();
    expect(calls[0]).toBe('stop');
    expect(calls[1]).toMatch(new RegExp(`^install 0\\.2\\.0 backup=${b.backupsDir}/cabinet-0\\.1\\.0-before-0\\.2\\.0-[0-9a-f]{8}\\.tar\\.gz updater=1$`));
    expect(calls[2]).toBe('restart');
    expect(calls).toHaveLength(3);
    const s = readState(b.dataDir)!;
    expect(s.history.map((h) => `${h.step}/${h.by}`)).toEqual(['installing/service', 'installing/installer', 'proving/installer', 'done/service']);
    expect(s.history[2]!.running_version).toBe('0.2.0');
    expect(existsSync(join(b.rootDir, 'run.json'))).toBe(false);
  });

  it('goes back to the previous package and the pre-upgrade backup when the proof does not come in time', async () => {
    const b = box('timeout');
    await handOver(b, { proof: 1 });
    const applying = b.installer.apply();
    // The new version runs its migrations, then never proves itself.
    while (readState(b.dataDir)?.step !== 'proving') await new Promise((r) => setTimeout(r, 20));
    migrateAsNewVersion(b.dataDir);
    expect(tables(b.dataDir)).toContain('made_by_0_2_0');
    expect(await applying).toBe('rolled_back');
    expect(b.calls().map((c) => c.replace(/ backup=.*/, ''))).toEqual(['stop', 'install 0.2.0', 'restart', 'stop', 'stop', 'install 0.1.0', 'start']);
    // The restored database is the backup's: the new version's table is gone.
    expect(tables(b.dataDir)).not.toContain('made_by_0_2_0');
    expect(existsSync(join(b.dataDir, 'cabinet.sqlite.before-restore'))).toBe(true);
    const s = readState(b.dataDir)!;
    expect(s.step).toBe('rolled_back');
    expect(s.reason_code).toBe('proof_timeout');
    expect(s.given_up).toEqual(['0.2.0']);
    expect(s.deadline_at).toBeNull();
    expect(s.history.at(-1)!.running_version).toBe('0.1.0');
    expect(readFileSync(join(b.fake, 'status'), 'utf8')).toBe('0.1.0 install ok installed\n');
  }, 180_000);

  it('goes back at once when the new version keeps exiting at start', async () => {
    const b = box('exits');
    await handOver(b, { proof: 600 });
    const applying = b.installer.apply();
    // Once the installer has read the count at the start (its baseline), systemd restarts it three times.
    while (!existsSync(join(b.fake, 'shows'))) await new Promise((r) => setTimeout(r, 20));
    writeFileSync(join(b.fake, 'nrestarts'), '3\n');
    const t0 = Date.now();
    expect(await applying).toBe('rolled_back');
    // Not the 600 s deadline. The rollback itself starts `cabinet restore` from source (tsx), which
    // took 22 s alone on a loaded machine and over 60 s with the whole suite beside it.
    expect(Date.now() - t0).toBeLessThan(300_000);
    const s = readState(b.dataDir)!;
    expect(s.reason_code).toBe('new_version_exits');
    expect(s.reason_params).toMatchObject({ version: '0.2.0', exits: 3 });
  }, 400_000);

  it('goes back when dpkg fails, finishing the half-configured package first', async () => {
    const b = box('dpkg-fails');
    writeFileSync(join(b.fake, 'fail-0.2.0'), '');
    await handOver(b);
    expect(await b.installer.apply()).toBe('rolled_back');
    expect(b.calls().map((c) => c.replace(/ backup=.*/, ''))).toEqual(['stop', 'install 0.2.0', 'stop', 'install 0.1.0', 'start']);
    expect(readState(b.dataDir)!.reason_code).toBe('dpkg_failed');
  }, 180_000);

  it('after a power cut while proving, past the deadline: the boot run goes back', async () => {
    const b = box('cut-proving');
    const request = await handOver(b, { proof: 600 });
    // What a run cut short while proving leaves: the new package installed, the state proving with
    // a deadline that went by while the box was off, run.json at proving, the preinst's backup.
    const taken = changeStep(b.dataDir, { step: 'installing', by: 'installer', running_version: '0.1.0', patch: { request } });
    rmSync(join(b.dataDir, 'updates', 'request.json'));
    changeStep(b.dataDir, { step: 'proving', by: 'installer', running_version: '0.2.0', patch: { deadline_at: new Date(Date.now() - 1000).toISOString() } });
    mkdirSync(b.rootDir, { recursive: true });
    const run: InstallRun = {
      schema: 1, run_id: taken.history.at(-1)!.id, version: '0.2.0', previous_version: '0.1.0', arch: 'amd64',
      package: join(b.rootDir, 'cabinet_0.2.0_amd64.deb'), previous_package: join(b.rootDir, 'cabinet_0.1.0_amd64.deb'),
      backup: join(b.backupsDir, 'cut.tar.gz'), phase: 'proving', attempts: 1, rollback: null,
    };
    writeFileSync(run.previous_package, 'the old package bytes');
    writeFileSync(run.backup, readFileSync(backupFile));
    writeFileSync(join(b.rootDir, 'run.json'), JSON.stringify(run));
    writeFileSync(join(b.fake, 'status'), '0.2.0 install ok installed\n');
    migrateAsNewVersion(b.dataDir);
    expect(await b.installer.recover()).toBe('rolled_back');
    expect(b.calls()).toEqual(['start', 'stop', 'stop', 'install 0.1.0 backup= updater=1', 'start']);
    expect(readState(b.dataDir)!.reason_code).toBe('proof_timeout');
    expect(tables(b.dataDir)).not.toContain('made_by_0_2_0');
    expect(readFileSync(join(b.fake, 'status'), 'utf8')).toBe('0.1.0 install ok installed\n');
    expect(existsSync(join(b.rootDir, 'run.json'))).toBe(false);
  }, 180_000);

  it('after a power cut in the middle of dpkg: configure -a, then the new version proves itself', async () => {
    const b = box('cut-dpkg');
    const request = await handOver(b, { proof: 30 });
    // The state and run record as they are when dpkg is cut: installing by the installer, run at
    // phase installing, the package half-configured.
    const taken = changeStep(b.dataDir, { step: 'installing', by: 'installer', running_version: '0.1.0', patch: { request } });
    rmSync(join(b.dataDir, 'updates', 'request.json'));
    mkdirSync(b.rootDir, { recursive: true });
    const run: InstallRun = {
      schema: 1, run_id: taken.history.at(-1)!.id, version: '0.2.0', previous_version: '0.1.0', arch: 'amd64',
      package: join(b.rootDir, 'cabinet_0.2.0_amd64.deb'), previous_package: join(b.rootDir, 'cabinet_0.1.0_amd64.deb'),
      backup: join(b.backupsDir, 'cut.tar.gz'), phase: 'installing', attempts: 1, rollback: null,
    };
    writeFileSync(join(b.rootDir, 'run.json'), JSON.stringify(run));
    writeFileSync(join(b.fake, 'status'), '0.2.0 install ok half-configured\n');
    writeFileSync(join(b.fake, 'configure-to'), '0.2.0 install ok installed\n');
    const [outcome] = await Promise.all([b.installer.recover(), proveWhenAsked(b)]);
    expect(outcome).toBe('done');
    expect(b.calls()).toEqual(['configure-a', 'restart']);
    expect(readFileSync(statePath(b.dataDir), 'utf8')).toContain('"step": "done"');
  }, 180_000);
});
