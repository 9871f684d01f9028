// The release signature: what the master checks before publishing, and what the box and the
// installer check before installing. A good signature verifies; a changed byte, another key, or a
// truncated signature is refused with a reason. `cabinet release keygen` and `release sign` make
// and sign with a real key pair and a real .deb (built here with dpkg-deb).
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { releaseCommand } from '../../src/cli-release.js';
import {
  canonicalJson, fileDigest, keyId, sha256File, signManifest, verifyPackageFile, verifySigned, type ReleaseManifest, type SignedRelease,
} from '../../src/runtime/release-signature.js';

const pair = () => generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
const manifest: ReleaseManifest = { package: 'cabinet', version: '0.2.0', arch: 'amd64', size: 123456, sha256: 'ab'.repeat(32), signed_at: '2025-01-01T00:00:00.000Z' };

describe('release signature', () => {
  const fleet = pair();
  const signed = signManifest(fleet.privateKey, manifest);

  it('writes canonical JSON with sorted keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 'x' }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":"x","z":1}]},"b":1}');
    expect(canonicalJson({ ...manifest })).toBe(canonicalJson(Object.fromEntries(Object.entries(manifest).reverse())));
  });

  it('verifies a good signature, and names the key by the first 16 hex of its SPKI digest', () => {
    expect(signed.key_id).toMatch(/^[0-9a-f]{16}$/);
    expect(signed.key_id).toBe(keyId(fleet.publicKey));
    expect(verifySigned(fleet.publicKey, signed)).toEqual({ ok: true });
    // The document as it travels: JSON text parsed again, keys in another order.
    const reordered = JSON.parse(JSON.stringify({ signature: signed.signature, key_id: signed.key_id, manifest: Object.fromEntries(Object.entries(manifest).reverse()) })) as unknown;
    expect(verifySigned(fleet.publicKey, reordered)).toEqual({ ok: true });
  });

  it('refuses one changed byte of the manifest', () => {
    const changed: SignedRelease = { ...signed, manifest: { ...manifest, sha256: `ac${manifest.sha256.slice(2)}` } };
    const r = verifySigned(fleet.publicKey, changed);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/does not match the manifest/);
    const bigger = verifySigned(fleet.publicKey, { ...signed, manifest: { ...manifest, size: manifest.size + 1 } });
    expect(bigger.ok).toBe(false);
  });

  it('refuses a signature made with another key, naming both keys', () => {
    const other = pair();
    const foreign = signManifest(other.privateKey, manifest);
    const r = verifySigned(fleet.publicKey, foreign);
    expect(r).toEqual({ ok: false, reason: expect.stringContaining(`signed with key ${keyId(other.publicKey)}, not with this fleet's release key ${keyId(fleet.publicKey)}`) as unknown });
    // Another key's signature under this fleet's key id: the key id is not trusted, the signature is checked.
    const disguised = { ...foreign, key_id: signed.key_id };
    const d = verifySigned(fleet.publicKey, disguised);
    expect(d.ok).toBe(false);
    expect(!d.ok && d.reason).toMatch(/does not match/);
  });

  it('refuses a truncated signature and a malformed document with a reason', () => {
    const truncated = { ...signed, signature: Buffer.from(signed.signature, 'base64').subarray(0, 40).toString('base64') };
    const r = verifySigned(fleet.publicKey, truncated);
    expect(r).toEqual({ ok: false, reason: 'the signature is 40 bytes, an ed25519 signature is 64' });
    expect(verifySigned(fleet.publicKey, null)).toEqual({ ok: false, reason: 'the signature document is not a JSON object' });
    expect(verifySigned(fleet.publicKey, { ...signed, manifest: { ...manifest, sha256: 'xyz' } })).toEqual({ ok: false, reason: 'manifest.sha256 must be 64 lower-case hex digits' });
    expect(verifySigned('not a key', signed)).toMatchObject({ ok: false, reason: expect.stringMatching(/public key cannot be read/) as unknown });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    expect(verifySigned(rsa.publicKey, signed)).toEqual({ ok: false, reason: 'the release public key is not an ed25519 key' });
    expect(() => signManifest(rsa.privateKey, manifest)).toThrow(/must be ed25519/);
  });

  it('digests a file and checks a package file against its signed manifest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-sig-'));
    const file = join(dir, 'p.bin');
    writeFileSync(file, Buffer.alloc(300_000, 7));
    const d = await fileDigest(file);
    expect(d.size).toBe(300_000);
    expect(await sha256File(file)).toBe(d.sha256);
    const s = signManifest(fleet.privateKey, { ...manifest, size: d.size, sha256: d.sha256 });
    expect(await verifyPackageFile(fleet.publicKey, s, file)).toEqual({ ok: true });
    writeFileSync(file, Buffer.alloc(300_000, 8));
    expect(await verifyPackageFile(fleet.publicKey, s, file)).toEqual({ ok: false, reason: "the package's sha256 differs from the signed manifest" });
    writeFileSync(file, Buffer.alloc(10, 7));
    expect(await verifyPackageFile(fleet.publicKey, s, file)).toEqual({ ok: false, reason: 'the package is 10 bytes, the signed manifest says 300000' });
  });
});

describe('cabinet release keygen and sign', () => {
  it('makes a 0600 key pair, refuses to overwrite it, and signs a .deb with its control version and arch', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-release-'));
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await releaseCommand(['keygen', '--out', join(dir, 'keys')])).toBe(0);
      expect(statSync(join(dir, 'keys', 'release.key')).mode & 0o777).toBe(0o600);
      const pub = readFileSync(join(dir, 'keys', 'release.pub'), 'utf8');
      expect(pub).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      await expect(releaseCommand(['keygen', '--out', join(dir, 'keys')])).rejects.toThrow(/exists already/);

      // A tiny real package, as dpkg-deb builds it.
      const root = join(dir, 'pkg');
      mkdirSync(join(root, 'DEBIAN'), { recursive: true });
      mkdirSync(join(root, 'usr', 'share', 'cabinet-test'), { recursive: true });
      writeFileSync(join(root, 'usr', 'share', 'cabinet-test', 'hello'), 'hello\n');
      writeFileSync(join(root, 'DEBIAN', 'control'), 'Package: cabinet\nVersion: 0.3.1\nArchitecture: arm64\nMaintainer: Test <t@example.org>\nDescription: test\n');
      const deb = join(dir, 'cabinet_0.3.1_arm64.deb');
      execFileSync('dpkg-deb', ['--root-owner-group', '--build', root, deb], { stdio: 'ignore' });

      expect(await releaseCommand(['sign', '--key', join(dir, 'keys', 'release.key'), '--deb', deb])).toBe(0);
      const signed = JSON.parse(readFileSync(`${deb}.sig.json`, 'utf8')) as SignedRelease;
      expect(signed.manifest).toMatchObject({ package: 'cabinet', version: '0.3.1', arch: 'arm64', size: statSync(deb).size, sha256: await sha256File(deb) });
      expect(verifySigned(pub, signed)).toEqual({ ok: true });
      expect(await verifyPackageFile(pub, signed, deb)).toEqual({ ok: true });
      await expect(releaseCommand(['sign', '--key', join(dir, 'keys', 'release.pub'), '--deb', deb])).rejects.toThrow(/cannot sign/);
      await expect(releaseCommand(['sign', '--key', join(dir, 'keys', 'release.key'), '--deb', join(dir, 'none.deb')])).rejects.toThrow(/does not exist/);
      await expect(releaseCommand(['nothing'])).rejects.toThrow(/usage: cabinet release keygen/);
    } finally {
      out.mockRestore();
    }
  });
});
