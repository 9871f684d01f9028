// The box's certificate authority and server certificate, kept in <data_dir>/tls (keys mode 0600,
// the folder 0700). At start the CA is made once; the server certificate is (re-)issued when it is
// missing, not signed by this CA, within RENEW_BEFORE_DAYS of expiry, or when the box's names (its
// interface addresses, host name) differ from the ones it carries. BoxTls repeats that check on a
// timer and tells the HTTPS listener to swap its certificate (no restart, no dropped connection).
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../kernel/logger.js';
import { boxNames, type BoxNames } from './tls-names.js';

export const RENEW_BEFORE_DAYS = 30;
const DAY = 86_400_000;
/** How often the names and expiry are checked: reading the interfaces costs microseconds, and a DHCP lease may move the box. */
export const TLS_CHECK_MS = 60_000;

export interface TlsMaterial {
  caPem: string;
  caDer: Buffer;
  /** SHA-256 of the CA certificate (DER), as AA:BB:... */
  caFingerprint: string;
  caNotAfter: Date;
  certPem: string;
  keyPem: string;
  notAfter: Date;
  names: BoxNames;
}

export interface TlsCheck {
  material: TlsMaterial;
  /** What was issued by this check, and why (absent: nothing). */
  issued?: { ca: boolean; reason: string };
}

export interface TlsOptions {
  dataDir: string;
  now?: Date;
  names?: BoxNames;
  hostname?: string;
}

export const tlsDir = (dataDir: string) => join(dataDir, 'tls');

function writeSecret(path: string, text: string, mode: number): void {
  // Written whole under a temporary name, then renamed: a crash never leaves half a key.
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text, { mode });
  chmodSync(tmp, mode); // the umask may have taken bits off
  renameSync(tmp, path);
}

function readPair(dir: string, name: string): { cert: X509Certificate; certPem: string; keyPem: string } | undefined {
  const certPath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  if (!existsSync(certPath) || !existsSync(keyPath)) return undefined;
  // A key someone made readable is made private again, not trusted less.
  if ((statSync(keyPath).mode & 0o077) !== 0) chmodSync(keyPath, 0o600);
  try {
    const certPem = readFileSync(certPath, 'utf8');
    return { cert: new X509Certificate(certPem), certPem, keyPem: readFileSync(keyPath, 'utf8') };
  } catch {
    return undefined; // unreadable or damaged: issued anew
  }
}

/** Why the server certificate must be issued anew, or undefined when it is good. */
export function renewalReason(cert: X509Certificate, ca: X509Certificate, names: BoxNames, now: Date): string | undefined {
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return 'not signed by this box\'s CA';
  const notAfter = new Date(cert.validTo).getTime();
  if (notAfter - now.getTime() < RENEW_BEFORE_DAYS * DAY) return `expires ${new Date(notAfter).toISOString()}, within ${RENEW_BEFORE_DAYS} days`;
  if (new Date(cert.validFrom).getTime() > now.getTime() + DAY) return 'not valid yet (the clock went back)';
  const sans = (cert.subjectAltName ?? '').split(', ').filter(Boolean);
  const covers = names.dns.every((d) => cert.checkHost(d, { subject: 'never' }) === d) && names.ips.every((ip) => cert.checkIP(ip) === ip);
  if (!covers || sans.length !== names.dns.length + names.ips.length) return 'the box\'s addresses or host name changed';
  return undefined;
}

function material(ca: { cert: X509Certificate; certPem: string }, server: { cert: X509Certificate; certPem: string; keyPem: string }, names: BoxNames): TlsMaterial {
  return {
    caPem: ca.certPem,
    caDer: ca.cert.raw,
    caFingerprint: ca.cert.fingerprint256,
    caNotAfter: new Date(ca.cert.validTo),
    certPem: server.certPem,
    keyPem: server.keyPem,
    notAfter: new Date(server.cert.validTo),
    names,
  };
}

/** Loads the CA and server certificate from the data directory, issuing what is missing or due. */
export async function ensureTls(opts: TlsOptions): Promise<TlsCheck> {
  const now = opts.now ?? new Date();
  const names = opts.names ?? boxNames();
  const hostname = opts.hostname ?? osHostname();
  const dir = tlsDir(opts.dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let ca = readPair(dir, 'ca');
  let caIssued = false;
  let reason: string | undefined;
  if (!ca || new Date(ca.cert.validTo).getTime() - now.getTime() < RENEW_BEFORE_DAYS * DAY) {
    // A new CA means every tablet must trust the box again: only on first start (or 20 years on).
    reason = ca ? 'the CA expires' : 'first start';
    const { issueCa } = await import('./tls-issue.js');
    const made = await issueCa(hostname, now);
    writeSecret(join(dir, 'ca.key'), made.keyPem, 0o600);
    // Certificates are public, but the data directory is owner-only throughout (src/runtime/data-dir.ts).
    writeSecret(join(dir, 'ca.crt'), made.certPem, 0o600);
    ca = { cert: new X509Certificate(made.certPem), ...made };
    caIssued = true;
  }
  let server = readPair(dir, 'server');
  reason = server ? (caIssued ? reason : renewalReason(server.cert, ca.cert, names, now)) : (reason ?? 'no server certificate');
  if (!server || reason) {
    const { issueServer } = await import('./tls-issue.js');
    const made = await issueServer(ca, names, hostname, now);
    writeSecret(join(dir, 'server.key'), made.keyPem, 0o600);
    writeSecret(join(dir, 'server.crt'), made.certPem, 0o600);
    server = { cert: new X509Certificate(made.certPem), ...made };
  }
  const out: TlsCheck = { material: material(ca, server, names) };
  if (reason) out.issued = { ca: caIssued, reason };
  return out;
}

export interface BoxTlsOptions {
  dataDir: string;
  log: Logger;
  clock?: () => Date;
  names?: () => BoxNames;
  hostname?: () => string;
}

/** The certificates of a running box: checked on start and every TLS_CHECK_MS, swapped in place. */
export class BoxTls {
  material!: TlsMaterial;
  private listeners: ((m: TlsMaterial) => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<boolean> | undefined;

  constructor(private readonly opts: BoxTlsOptions) {}

  /** Runs one check; resolves true when a certificate was issued (the listeners have been told). */
  check(): Promise<boolean> {
    return (this.running ??= this.run().finally(() => (this.running = undefined)));
  }

  private async run(): Promise<boolean> {
    const { material: m, issued } = await ensureTls({
      dataDir: this.opts.dataDir,
      now: (this.opts.clock ?? (() => new Date()))(),
      names: (this.opts.names ?? boxNames)(),
      hostname: (this.opts.hostname ?? osHostname)(),
    });
    const first = !this.material;
    this.material = m;
    if (issued) {
      this.opts.log.info(issued.ca ? 'made the box\'s certificate authority and server certificate' : 'issued a new server certificate', {
        reason: issued.reason, ca_sha256: m.caFingerprint, not_after: m.notAfter.toISOString(), dns: m.names.dns, ips: m.names.ips,
      });
    }
    if (issued && !first) for (const fn of this.listeners) fn(m);
    return Boolean(issued);
  }

  onChange(fn: (m: TlsMaterial) => void): void {
    this.listeners.push(fn);
  }

  /** Checks every intervalMs until stop(); a failed check is logged and tried again next time. */
  start(intervalMs = TLS_CHECK_MS): void {
    this.timer = setInterval(() => {
      this.check().catch((err: Error) => this.opts.log.error('certificate check failed; the current certificate stays', { error: err.message }));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** What the routes and the HTTP listener know of HTTPS on a running box. */
export interface TlsService {
  box: BoxTls;
  httpPort: number;
  httpsPort: number;
}

declare module '../kernel/context.js' {
  interface Services {
    /** Present while the HTTPS listener runs (https_port not off). */
    tls?: TlsService;
  }
}
