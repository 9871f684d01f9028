// Issues the box's certificates with @peculiar/x509 on Node's WebCrypto: ECDSA P-256 keys (fast to
// make on a small ARM box, accepted by Chromium, Android and iOS) and SHA-256 signatures. Loaded by
// src/runtime/tls.ts only when something must be issued: a box that starts with valid certificates
// never evaluates the library.
import 'reflect-metadata'; // tsyringe (inside @peculiar/x509) needs the Reflect metadata API first
import { randomBytes, webcrypto } from 'node:crypto';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
import * as x509 from '@peculiar/x509';
import type { BoxNames } from './tls-names.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;
/** The CA lives long: a tablet trusts it once. */
export const CA_DAYS = 20 * 365;
/** Under Apple's 825-day ceiling for private CAs and Chromium's 398 days for public ones. */
export const SERVER_DAYS = 397;
/** A clock a little behind on a tablet still accepts a certificate issued just now. */
const BACKDATE_MS = 60 * 60 * 1000;

export interface Issued {
  certPem: string;
  keyPem: string;
}

/** A positive 127-bit serial (RFC 5280: unique per CA, at most 20 octets). */
const serial = () => {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString('hex');
};

const asn1Safe = (s: string) => s.replace(/[,+"\\<>;=]/g, ' ').trim().slice(0, 40) || 'box';

async function keyPair(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
}

async function importKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return webcrypto.subtle.importKey('pkcs8', der, ALG, false, ['sign']) as Promise<CryptoKey>;
}

/** The box's own certificate authority: may sign server certificates only (path length 0). */
export async function issueCa(hostname: string, now: Date): Promise<Issued> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    // The random tag tells two boxes' CAs apart on a tablet that trusts both.
    name: `CN=cabinet ${asn1Safe(hostname)} CA ${randomBytes(4).toString('hex')}, O=cabinet`,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + CA_DAYS * DAY),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey) };
}

/** A server certificate for the box's names, signed by the CA (a new key each time). */
export async function issueServer(ca: Issued, names: BoxNames, hostname: string, now: Date): Promise<Issued> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${asn1Safe(hostname)}, O=cabinet`,
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + SERVER_DAYS * DAY),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: await importKey(ca.keyPem),
    extensions: [
      new x509.SubjectAlternativeNameExtension([
        ...names.dns.map((value) => ({ type: 'dns' as const, value })),
        ...names.ips.map((value) => ({ type: 'ip' as const, value })),
      ]),
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey) };
}
