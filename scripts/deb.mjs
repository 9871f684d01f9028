#!/usr/bin/env node
// Debian packages of the single executable, made with Debian's own dpkg-deb (no download):
//   dist/cabinet_<version>_amd64.deb, dist/cabinet_<version>_arm64.deb
//
// build.mjs calls buildDeb() after each executable. Standalone, it packages an existing binary
// (CI uses this to make a higher-version package for the upgrade check without rebuilding):
//   node scripts/deb.mjs --arch x64|arm64 [--version V] [--binary dist/cabinet] [--out DIR] [--compress gzip|xz|none]
//
// Contents (what the maintainer scripts in systemd/debian/ rely on):
//   /usr/bin/cabinet                          the executable
//   /lib/systemd/system/cabinet.service       systemd/cabinet.service, ExecStart at /usr/bin
//   /lib/systemd/system/cabinet-updater.{path,service}  the privileged installer of the fleet's
//                                             self-update (systemd/cabinet-updater.*), as they are
//   /usr/lib/sysusers.d/cabinet.conf          systemd/cabinet.sysusers
//   /etc/cabinet/cabinet.yaml                 conffile: systemd/cabinet.yaml (an admin's edits survive upgrades)
//   /usr/share/doc/cabinet/{copyright,changelog.gz,README.Debian}
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEB_ARCH = { x64: 'amd64', arm64: 'arm64' };
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/**
 * The package's Maintainer: DEBFULLNAME and DEBEMAIL when the packager sets them (Debian's own
 * convention, as dch reads them), else package.json `author`. Homepage: package.json `homepage`,
 * and no field at all without one (Debian policy makes it optional): never a placeholder.
 */
export function packageIdentity(pkg = PKG, env = process.env) {
  const author = typeof pkg.author === 'string' ? pkg.author : pkg.author && `${pkg.author.name} <${pkg.author.email}>`;
  const maintainer = env.DEBEMAIL ? `${env.DEBFULLNAME || 'cabinet packager'} <${env.DEBEMAIL}>` : author;
  if (!maintainer || !/^[^<>]+ <[^<>\s]+@[^<>\s]+>$/.test(maintainer)) throw new Error('package.json author (or DEBFULLNAME/DEBEMAIL) must be "Name <address>"');
  const homepage = typeof pkg.homepage === 'string' && /^https?:\/\/[^/]+\.[a-z]{2,}/.test(pkg.homepage) ? pkg.homepage : undefined;
  return { maintainer, ...(homepage ? { homepage } : {}) };
}
const MAINTAINER = packageIdentity().maintainer;
const HOMEPAGE = packageIdentity().homepage;
// What the executable links against (checked against its ELF NEEDED list below, so a Node update
// that adds a library fails the build instead of shipping an incomplete Depends). Node 24's
// official binaries need glibc 2.28.
const SHLIB_PACKAGES = {
  'libc.so.6': 'libc6 (>= 2.28)',
  'libm.so.6': 'libc6 (>= 2.28)',
  'libdl.so.2': 'libc6 (>= 2.28)',
  'libpthread.so.0': 'libc6 (>= 2.28)',
  'libstdc++.so.6': 'libstdc++6 (>= 10)',
  'libgcc_s.so.1': 'libgcc-s1',
  'ld-linux-x86-64.so.2': 'libc6 (>= 2.28)',
  'ld-linux-aarch64.so.1': 'libc6 (>= 2.28)',
};

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (res.error) throw new Error(`${cmd}: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${res.status}\n${res.stdout}${res.stderr}`);
  return res.stdout;
}

/** DT_NEEDED entries of an ELF64 little-endian file, read directly (no binutils for arm64 needed). */
export function elfNeeded(file) {
  const b = readFileSync(file);
  if (b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2 || b[5] !== 1) throw new Error(`${file}: not an ELF64 LE file`);
  const phoff = Number(b.readBigUInt64LE(0x20));
  const phentsize = b.readUInt16LE(0x36);
  const phnum = b.readUInt16LE(0x38);
  const loads = [];
  let dyn;
  for (let i = 0; i < phnum; i++) {
    const p = phoff + i * phentsize;
    const type = b.readUInt32LE(p);
    const seg = { offset: Number(b.readBigUInt64LE(p + 8)), vaddr: Number(b.readBigUInt64LE(p + 16)), filesz: Number(b.readBigUInt64LE(p + 32)) };
    if (type === 1) loads.push(seg);
    if (type === 2) dyn = seg;
  }
  if (!dyn) return [];
  const toOffset = (vaddr) => {
    const seg = loads.find((s) => vaddr >= s.vaddr && vaddr < s.vaddr + s.filesz);
    if (!seg) throw new Error(`${file}: address 0x${vaddr.toString(16)} outside the loaded segments`);
    return vaddr - seg.vaddr + seg.offset;
  };
  const needed = [];
  let strtab;
  for (let p = dyn.offset; p < dyn.offset + dyn.filesz; p += 16) {
    const tag = Number(b.readBigInt64LE(p));
    const val = Number(b.readBigUInt64LE(p + 8));
    if (tag === 0) break;
    if (tag === 1) needed.push(val);
    if (tag === 5) strtab = toOffset(val);
  }
  return needed.map((off) => b.toString('latin1', strtab + off, b.indexOf(0, strtab + off)));
}

function depends(binary) {
  const libs = elfNeeded(binary);
  const unknown = libs.filter((l) => !(l in SHLIB_PACKAGES));
  if (unknown.length) throw new Error(`${binary} needs ${unknown.join(', ')}: add them to SHLIB_PACKAGES in scripts/deb.mjs`);
  return [...new Set(libs.map((l) => SHLIB_PACKAGES[l]))].sort();
}

function walkFiles(dir, out = []) {
  for (const e of readdirSync(dir).sort()) {
    const full = join(dir, e);
    if (statSync(full).isDirectory()) walkFiles(full, out);
    else out.push(full);
  }
  return out;
}

function put(stage, path, content, mode = 0o644) {
  const full = join(stage, path);
  mkdirSync(dirname(full), { recursive: true, mode: 0o755 });
  if (Buffer.isBuffer(content) || typeof content === 'string') writeFileSync(full, content);
  else copyFileSync(content.from, full);
  chmodSync(full, mode);
}

/** A gzip that is the same for the same input (no name, no time stamp), as lintian wants. */
const gz = (text) => gzipSync(Buffer.from(text), { level: 9 });

function changelog(version, date) {
  return `cabinet (${version}) unstable; urgency=medium\n\n  * Release ${version} of the cabinet site controller, built from its repository\n    (no per-package history is kept here; see the project's git log).\n\n -- ${MAINTAINER}  ${date}\n`;
}

const COPYRIGHT = `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: cabinet
Comment: cabinet is one executable made of Node.js (MIT and others, see
 https://github.com/nodejs/node/blob/main/LICENSE) with the cabinet program bundled into it, and
 the native addons better-sqlite3 (MIT, with SQLite: public domain) and @serialport/bindings-cpp
 (MIT). The bundled JavaScript keeps its third-party license comments at the end of the bundle.

Files: *
Copyright: the cabinet authors
License: proprietary
 All rights reserved by the cabinet authors; distributed to the sites that run it.
`;

const README_DEBIAN = `cabinet for Debian
==================

The service runs as the system user "cabinet" from /lib/systemd/system/cabinet.service with
/etc/cabinet/cabinet.yaml. Data: /var/lib/cabinet (SQLite database, session key). Extracted
native addons: /var/cache/cabinet. Backups taken before each package upgrade (by the version
installed before it): /var/backups/cabinet (the newest 5 are kept).

A box that a fleet master updates: cabinet-updater.path starts cabinet-updater.service (root)
when the service hands an update over; it checks the package with release_public_key, installs
it with dpkg, and puts the previous version and its backup back when the new one does not prove
itself healthy in time. It also runs once at boot, to finish an update a power cut interrupted.

First admin card (the service log says the same while no admin passkey exists):
  sudo -u cabinet cabinet passkey issue --config /etc/cabinet/cabinet.yaml --type rfid \\
    --holder "Site admin" --role admin --scope-type tenant --card-uid <card UID>
  (a tenant card without --tenant-id is the administrator of this box's own tenant and site,
  fixed at first start in /var/lib/cabinet/site.json)

Back up / restore:
  sudo cabinet backup --config /etc/cabinet/cabinet.yaml --to cabinet.tar.gz
  sudo systemctl stop cabinet && sudo cabinet restore --config /etc/cabinet/cabinet.yaml --from cabinet.tar.gz && sudo systemctl start cabinet

"apt remove cabinet" keeps the data and the configuration; "apt purge cabinet" deletes
/var/lib/cabinet, /var/cache/cabinet, /var/backups/cabinet and /etc/cabinet.
`;

/**
 * Builds dist/cabinet_<version>_<debarch>.deb from a built executable. Returns the .deb path.
 * @param {{ arch: 'x64'|'arm64', binary: string, version: string, outDir?: string, compress?: 'gzip'|'xz'|'none', log?: (m: string) => void }} o
 */
export function buildDeb(o) {
  const debArch = DEB_ARCH[o.arch];
  if (!debArch) throw new Error(`no Debian architecture for ${o.arch}`);
  if (!/^[0-9][A-Za-z0-9.+~-]*$/.test(o.version)) throw new Error(`version ${o.version} is not a Debian version`);
  const outDir = o.outDir ?? join(ROOT, 'dist');
  const stage = join(outDir, `.deb-${debArch}`);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true, mode: 0o755 });

  put(stage, 'usr/bin/cabinet', { from: o.binary }, 0o755);
  const unit = readFileSync(join(ROOT, 'systemd/cabinet.service'), 'utf8');
  if (!unit.includes('ExecStart=/usr/local/bin/cabinet ')) throw new Error('systemd/cabinet.service: ExecStart is not /usr/local/bin/cabinet; update scripts/deb.mjs');
  put(
    stage,
    'lib/systemd/system/cabinet.service',
    unit
      .replace(/^(Exec[A-Za-z]+=[-+!@:]*)\/usr\/local\/bin\/cabinet /gm, '$1/usr/bin/cabinet ')
      .replace(/^# Install: .*\n# .*\n# .*\n/m, '# Installed by the Debian package cabinet. Local changes belong in a drop-in\n# (systemctl edit cabinet), not in this file.\n'),
  );
  for (const unitFile of ['cabinet-updater.path', 'cabinet-updater.service']) {
    put(stage, `lib/systemd/system/${unitFile}`, { from: join(ROOT, 'systemd', unitFile) });
  }
  put(stage, 'usr/lib/sysusers.d/cabinet.conf', { from: join(ROOT, 'systemd/cabinet.sysusers') });
  // 0640: the file may hold a database password or a session secret; postinst gives it to
  // root:cabinet (the group does not exist when the package is built).
  put(stage, 'etc/cabinet/cabinet.yaml', { from: join(ROOT, 'systemd/cabinet.yaml') }, 0o640);
  const date = new Date(Number(process.env.SOURCE_DATE_EPOCH ?? Math.floor(Date.now() / 1000)) * 1000).toUTCString().replace('GMT', '+0000');
  put(stage, 'usr/share/doc/cabinet/changelog.gz', gz(changelog(o.version, date)));
  put(stage, 'usr/share/doc/cabinet/copyright', COPYRIGHT);
  put(stage, 'usr/share/doc/cabinet/README.Debian', README_DEBIAN);
  put(stage, 'usr/share/man/man1/cabinet.1.gz', gz(readFileSync(join(ROOT, 'systemd/debian/cabinet.1'), 'utf8')));
  put(stage, 'usr/share/lintian/overrides/cabinet', readFileSync(join(ROOT, 'systemd/debian/lintian-overrides'), 'utf8'));

  const files = walkFiles(stage);
  const installedKiB = files.reduce((n, f) => n + Math.ceil(statSync(f).size / 1024), 0);
  const md5sums = files
    .filter((f) => !relative(stage, f).startsWith('etc/'))
    .map((f) => `${createHash('md5').update(readFileSync(f)).digest('hex')}  ${relative(stage, f)}\n`)
    .join('');

  const control = [
    'Package: cabinet',
    `Version: ${o.version}`,
    `Architecture: ${debArch}`,
    `Maintainer: ${MAINTAINER}`,
    `Installed-Size: ${installedKiB}`,
    // passwd: useradd, where systemd-sysusers is absent (a container without systemd).
    `Depends: ${[...depends(o.binary), 'passwd'].join(', ')}`,
    'Recommends: systemd',
    'Section: net',
    'Priority: optional',
    ...(HOMEPAGE ? [`Homepage: ${HOMEPAGE}`] : []),
    'Description: site controller for farms and plants (API, web shell, field writes)',
    ' cabinet runs a poultry, swine or irrigation site from one controller box:',
    ' modules, alarms, tasks, telemetry and audit, the HTTP API with its',
    ' documentation, a tablet web shell with RFID and QR logins, and setpoint',
    ' writes to Modbus and BACnet equipment.',
    ' .',
    ' One executable with Node.js inside, run by systemd as the user "cabinet".',
    '',
  ].join('\n');

  const debian = join(stage, 'DEBIAN');
  put(stage, 'DEBIAN/control', control);
  put(stage, 'DEBIAN/md5sums', md5sums);
  put(stage, 'DEBIAN/conffiles', '/etc/cabinet/cabinet.yaml\n');
  for (const script of ['preinst', 'postinst', 'prerm', 'postrm']) {
    put(stage, `DEBIAN/${script}`, { from: join(ROOT, 'systemd/debian', script) }, 0o755);
  }
  for (const d of [stage, ...walkFiles(stage).map((f) => dirname(f))]) chmodSync(d, 0o755);
  chmodSync(debian, 0o755);

  const deb = join(outDir, `cabinet_${o.version}_${debArch}.deb`);
  // gzip by default: on a loaded 2-core machine it packs the 110 MB executable in 15 s (42 MB),
  // where xz -6 took 340 s (29 MB) and xz -1 150 s (34 MB); every dpkg reads it. xz on request;
  // none for a throwaway package of a local check. --root-owner-group: every file root:root.
  const compress = { gzip: ['-Zgzip', '-z6'], xz: ['-Zxz', '-z6'], none: ['-Znone'] }[o.compress ?? 'gzip'];
  if (!compress) throw new Error(`compress must be gzip, xz or none (got ${o.compress})`);
  run('dpkg-deb', ['--root-owner-group', ...compress, '--build', stage, deb]);
  rmSync(stage, { recursive: true, force: true });
  o.log?.(`${relative(ROOT, deb) || deb}: ${(statSync(deb).size / 1e6).toFixed(1)} MB`);
  return deb;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      arch: { type: 'string', default: 'x64' },
      version: { type: 'string' },
      binary: { type: 'string' },
      out: { type: 'string' },
      compress: { type: 'string', default: 'gzip' },
    },
  });
  const arch = values.arch;
  const binary = resolve(values.binary ?? (arch === 'arm64' ? 'dist/cabinet-arm64' : 'dist/cabinet'));
  if (!existsSync(binary)) throw new Error(`${binary} missing: run npm run build first`);
  const version = values.version ?? PKG.version;
  const out = buildDeb({ arch, binary, version, compress: values.compress, outDir: values.out ? resolve(values.out) : undefined, log: (m) => process.stdout.write(`${m}\n`) });
  process.stdout.write(`${out}\n`);
}
