// `cabinet release keygen|sign|upload`: the fleet team's tools for a release. keygen and sign run
// OFFLINE on the fleet team's machine (the master never holds the private key); upload sends a
// signed package to the master over its HTTP API (create, chunks, attach, publish).
import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ConfigError, parseFlags } from './config.js';
import { fileDigest, keyId, signedShape, signManifest, type ReleaseManifest } from './runtime/release-signature.js';

const USAGE = `usage: cabinet release keygen --out DIR
       cabinet release sign --key release.key --deb FILE.deb
       cabinet release upload --url MASTER --token TOKEN --deb FILE.deb[,FILE2.deb] [--sig FILE.deb.sig.json] [--notes TEXT]`;

export async function releaseCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'keygen': return keygen(rest);
    case 'sign': return signDeb(rest);
    case 'upload': return upload(rest);
    default: throw new ConfigError(USAGE);
  }
}

function keygen(args: string[]): number {
  const { values } = parseFlags(args, ['out']);
  if (!values.out) throw new ConfigError('usage: cabinet release keygen --out DIR');
  const keyFile = join(values.out, 'release.key');
  const pubFile = join(values.out, 'release.pub');
  // Never overwrite a key: boxes already trust the public half of the one there.
  if (existsSync(keyFile) || existsSync(pubFile)) throw new ConfigError(`${keyFile} or ${pubFile} exists already; a new key would not be trusted by boxes that have the old one`);
  mkdirSync(values.out, { recursive: true });
  const { privateKey, publicKey } = generateKeyPairSync('ed25519', {
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  writeFileSync(keyFile, privateKey, { mode: 0o600, flag: 'wx' });
  chmodSync(keyFile, 0o600); // the mode of a created file is masked by umask; this one must be 0600
  writeFileSync(pubFile, publicKey, { mode: 0o644, flag: 'wx' });
  process.stdout.write(`release key ${keyId(publicKey)}\nprivate ${keyFile} (keep it offline)\npublic ${pubFile} (release_public_key of the master and of every box)\n`);
  return 0;
}

/** A field of a .deb's control, read with Debian's own tool. */
async function debField(deb: string, field: string): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)('dpkg-deb', ['-f', deb, field]);
    const value = stdout.trim();
    if (!value) throw new ConfigError(`${deb} has no ${field} in its control`);
    return value;
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`dpkg-deb cannot read ${deb}: ${(err as Error).message.split('\n')[0]}`);
  }
}

async function signDeb(args: string[]): Promise<number> {
  const { values } = parseFlags(args, ['key', 'deb']);
  if (!values.key || !values.deb) throw new ConfigError('usage: cabinet release sign --key release.key --deb FILE.deb');
  let privatePem: string;
  try {
    privatePem = readFileSync(values.key, 'utf8');
  } catch (err) {
    throw new ConfigError(`the release key ${values.key} cannot be read: ${(err as Error).message}`);
  }
  if (!existsSync(values.deb)) throw new ConfigError(`${values.deb} does not exist`);
  const [pkgName, version, arch, digest] = await Promise.all([
    debField(values.deb, 'Package'), debField(values.deb, 'Version'), debField(values.deb, 'Architecture'), fileDigest(values.deb),
  ]);
  const manifest: ReleaseManifest = { package: pkgName, version, arch, size: digest.size, sha256: digest.sha256, signed_at: new Date().toISOString() };
  let signed;
  try {
    signed = signManifest(privatePem, manifest);
  } catch (err) {
    throw new ConfigError(`cannot sign with ${values.key}: ${(err as Error).message}`);
  }
  const out = `${values.deb}.sig.json`;
  writeFileSync(out, `${JSON.stringify(signed, null, 2)}\n`);
  process.stdout.write(`signed ${pkgName} ${version} ${arch} (${digest.size} bytes, sha256 ${digest.sha256}) with key ${signed.key_id}: ${out}\n`);
  return 0;
}

/** The master's error envelope's message, or the HTTP status. */
async function failure(res: Response, what: string): Promise<ConfigError> {
  const text = await res.text();
  let message = text.slice(0, 300);
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (body.error) message = `${body.error.code ?? ''}: ${body.error.message ?? ''}`;
  } catch { /* not JSON: the text as it is */ }
  return new ConfigError(`${what} refused (HTTP ${res.status}) ${message}`);
}

interface Upload {
  deb: string;
  signedText: string;
  manifest: ReleaseManifest;
}

/** A .deb and its .sig.json, checked here first: a package that is not the signed file is not sent. */
async function readUpload(deb: string, sigFile: string): Promise<Upload> {
  let signedText: string;
  let parsed: unknown;
  try {
    signedText = readFileSync(sigFile, 'utf8');
    parsed = JSON.parse(signedText);
  } catch (err) {
    throw new ConfigError(`the signature ${sigFile} cannot be read: ${(err as Error).message}`);
  }
  const shape = signedShape(parsed);
  if (!shape.ok) throw new ConfigError(`${sigFile}: ${shape.reason}`);
  if (!existsSync(deb)) throw new ConfigError(`${deb} does not exist`);
  const d = await fileDigest(deb);
  const m = shape.signed.manifest;
  if (d.size !== m.size || d.sha256 !== m.sha256) throw new ConfigError(`${deb} is not the file ${sigFile} signed (size or sha256 differ)`);
  return { deb, signedText, manifest: m };
}

async function upload(args: string[]): Promise<number> {
  const { values } = parseFlags(args, ['url', 'token', 'deb', 'sig', 'notes']);
  const token = values.token ?? process.env.CABINET_TOKEN;
  if (!values.url || !token || !values.deb) throw new ConfigError('usage: cabinet release upload --url MASTER --token TOKEN (or CABINET_TOKEN) --deb FILE.deb[,FILE2.deb] [--sig FILE.deb.sig.json] [--notes TEXT]');
  const debs = values.deb.split(',').map((d) => d.trim()).filter(Boolean);
  if (values.sig && debs.length > 1) throw new ConfigError('--sig names the signature of one package; with several, each is FILE.deb.sig.json');
  const uploads = await Promise.all(debs.map((deb) => readUpload(deb, values.sig ?? `${deb}.sig.json`)));
  const version = uploads[0]!.manifest.version;
  const other = uploads.find((u) => u.manifest.version !== version);
  if (other) throw new ConfigError(`${other.deb} is version ${other.manifest.version}, ${uploads[0]!.deb} is ${version}: one release is one version`);
  const base = values.url.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${token}` };
  const json = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw await failure(res, path);
    return ((await res.json()) as { item: Record<string, unknown> }).item;
  };
  // An existing draft of this version is resumed (its chunks already there are skipped): an
  // upload cut off half way is run again with the same command.
  const list = await fetch(`${base}/api/v1/releases/list?version=${encodeURIComponent(version)}`, { headers });
  if (!list.ok) throw await failure(list, 'GET /api/v1/releases/list');
  const found = ((await list.json()) as { items: Array<{ id: string; version: string; state: string }> }).items.find((r) => r.version === version);
  if (found && found.state !== 'draft') throw new ConfigError(`release ${version} is ${found.state} on the master already`);
  const release = found ?? (await json('/api/v1/releases/commands/create', { version, notes: values.notes ?? '' }));
  const id = encodeURIComponent(String(release.id));
  const chunkSize = 1024 * 1024;
  for (const u of uploads) {
    const { arch, size } = u.manifest;
    const chunks = Math.max(1, Math.ceil(size / chunkSize));
    const st = await fetch(`${base}/api/v1/releases/${id}/packages/${arch}`, { headers });
    const state = st.ok ? ((await st.json()) as { item: { received: number[]; received_sha256: string[] } }).item : { received: [], received_sha256: [] };
    const have = new Map(state.received.map((idx, i) => [idx, state.received_sha256[i]]));
    const file = await open(u.deb, 'r');
    let sent = 0;
    try {
      for (let idx = 0; idx < chunks; idx++) {
        const buf = Buffer.alloc(Math.min(chunkSize, size - idx * chunkSize));
        await file.read(buf, 0, buf.length, idx * chunkSize);
        if (have.get(idx) === createHash('sha256').update(buf).digest('hex')) continue;
        const res = await fetch(`${base}/api/v1/releases/${id}/packages/${arch}/chunks/${idx}`, {
          method: 'PUT', headers: { ...headers, 'content-type': 'application/octet-stream' }, body: buf,
        });
        if (!res.ok) throw await failure(res, `chunk ${idx} of ${u.deb}`);
        sent++;
        process.stderr.write(`${arch} chunk ${idx + 1}/${chunks}\n`);
      }
    } finally {
      await file.close();
    }
    await json('/api/v1/releases/commands/attach', { id: String(release.id), arch, signed: u.signedText });
    process.stdout.write(`${arch}: ${size} bytes in ${chunks} chunk(s), ${sent} sent, ${chunks - sent} there already\n`);
  }
  const published = await json('/api/v1/releases/commands/publish', { id: String(release.id) });
  process.stdout.write(`release ${version} ${String(published.state)}: ${uploads.map((u) => u.manifest.arch).join(', ')}\n`);
  return 0;
}
