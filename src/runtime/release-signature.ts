// The release signature shared by the master (checks an upload before publishing it), the box
// (checks a download before handing it over) and the privileged installer (checks it again with
// the root-owned key before dpkg). A release is signed OFFLINE by the fleet team with an ed25519
// key: the master never holds the private key, so a compromised master cannot make a box install
// code. Only node:crypto; no other dependency, so that the installer loads little.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** What the fleet team signs: the package's identity and the bytes' size and digest. */
export interface ReleaseManifest {
  package: string;
  version: string;
  arch: string;
  size: number;
  sha256: string;
  signed_at: string;
}

/** The `<file.deb>.sig.json` document. */
export interface SignedRelease {
  manifest: ReleaseManifest;
  key_id: string;
  signature: string;
}

export type VerifyResult = { ok: true } | { ok: false; reason: string };

/**
 * JSON with every object's keys sorted (recursively), no spaces: the bytes a signature covers do
 * not depend on the order a program wrote the keys in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('canonicalJson: a number must be finite');
    if (value === undefined) throw new TypeError('canonicalJson: undefined has no JSON form');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

function publicKeyOf(publicPem: string | KeyObject): KeyObject {
  return typeof publicPem === 'string' ? createPublicKey(publicPem) : publicPem;
}

/** The first 16 hex digits of sha256 over the public key's SPKI DER: names the key in a .sig.json. */
export function keyId(publicPem: string | KeyObject): string {
  const der = publicKeyOf(publicPem).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').slice(0, 16);
}

/** Signs a manifest with the fleet's private key (PKCS#8 PEM). */
export function signManifest(privatePem: string, manifest: ReleaseManifest): SignedRelease {
  const key = createPrivateKey(privatePem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the release key must be ed25519 (this one is ${key.asymmetricKeyType ?? 'unknown'})`);
  const signature = sign(null, Buffer.from(canonicalJson(manifest)), key).toString('base64');
  return { manifest, key_id: keyId(createPublicKey(key)), signature };
}

const HEX64 = /^[0-9a-f]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Checks a value read from a .sig.json has the shape of a SignedRelease; the reason when not. */
export function signedShape(value: unknown): { ok: true; signed: SignedRelease } | { ok: false; reason: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: 'the signature document is not a JSON object' };
  const v = value as Record<string, unknown>;
  const m = v.manifest as Record<string, unknown> | undefined;
  if (!m || typeof m !== 'object' || Array.isArray(m)) return { ok: false, reason: 'the signature document has no manifest' };
  for (const k of ['package', 'version', 'arch', 'sha256', 'signed_at'] as const) {
    if (typeof m[k] !== 'string' || !(m[k] as string)) return { ok: false, reason: `manifest.${k} must be a non-empty string` };
  }
  if (typeof m.size !== 'number' || !Number.isSafeInteger(m.size) || m.size < 0) return { ok: false, reason: 'manifest.size must be a whole number of bytes' };
  if (!HEX64.test(m.sha256 as string)) return { ok: false, reason: 'manifest.sha256 must be 64 lower-case hex digits' };
  if (typeof v.key_id !== 'string' || !/^[0-9a-f]{16}$/.test(v.key_id)) return { ok: false, reason: 'key_id must be 16 lower-case hex digits' };
  if (typeof v.signature !== 'string' || !BASE64.test(v.signature)) return { ok: false, reason: 'signature must be base64' };
  return { ok: true, signed: value as SignedRelease };
}

/**
 * Verifies a signed release with the fleet's public key (SPKI PEM). Refusals name why: a document
 * of the wrong shape, another key, or a signature that does not cover this manifest.
 */
export function verifySigned(publicPem: string | KeyObject, signed: unknown): VerifyResult {
  const shape = signedShape(signed);
  if (!shape.ok) return shape;
  let key: KeyObject;
  try {
    key = publicKeyOf(publicPem);
  } catch (err) {
    return { ok: false, reason: `the release public key cannot be read: ${(err as Error).message}` };
  }
  if (key.asymmetricKeyType !== 'ed25519') return { ok: false, reason: 'the release public key is not an ed25519 key' };
  const expected = keyId(key);
  if (shape.signed.key_id !== expected) return { ok: false, reason: `signed with key ${shape.signed.key_id}, not with this fleet's release key ${expected}` };
  const sig = Buffer.from(shape.signed.signature, 'base64');
  // ed25519 signatures are exactly 64 bytes; a shorter one (truncated) is refused by name.
  if (sig.length !== 64) return { ok: false, reason: `the signature is ${sig.length} bytes, an ed25519 signature is 64` };
  let good = false;
  try {
    good = verify(null, Buffer.from(canonicalJson(shape.signed.manifest)), key, sig);
  } catch (err) {
    return { ok: false, reason: `the signature cannot be checked: ${(err as Error).message}` };
  }
  return good ? { ok: true } : { ok: false, reason: 'the signature does not match the manifest (the manifest was changed, or signed by another key)' };
}

/** The sha256 (hex) and size of a file, streamed (a package is tens of MB). */
export async function fileDigest(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}

/** The sha256 (lower-case hex) of a file, streamed. */
export async function sha256File(path: string): Promise<string> {
  return (await fileDigest(path)).sha256;
}

/**
 * Checks a package file against a signed release: size and sha256 equal the manifest, and the
 * signature verifies with the public key. The box and the installer both call this before anything
 * is handed over or installed.
 */
export async function verifyPackageFile(publicPem: string | KeyObject, signed: unknown, path: string): Promise<VerifyResult> {
  const v = verifySigned(publicPem, signed);
  if (!v.ok) return v;
  const m = (signed as SignedRelease).manifest;
  const d = await fileDigest(path);
  if (d.size !== m.size) return { ok: false, reason: `the package is ${d.size} bytes, the signed manifest says ${m.size}` };
  if (d.sha256 !== m.sha256) return { ok: false, reason: 'the package\'s sha256 differs from the signed manifest' };
  return { ok: true };
}
