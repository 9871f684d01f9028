// The box's CA for tablets to trust: the certificate (DER for Android and iOS installers, PEM for
// the rest) and what the login screen shows beside it (fingerprint, QR to the download). Public and
// answered on plain HTTP too (src/runtime/tls-http.ts): a tablet fetches it before it trusts HTTPS,
// and checks the fingerprint against the one on the panel.
import { defineRoute, type AnyRoute } from '../kernel/route.js';
import { ApiError } from '../kernel/errors.js';
import { requestHeader } from '../kernel/headers.js';
import type { Services } from '../kernel/context.js';
import { boxNameAsked, isLoopback } from './tls-http.js';
import { boxNames, lanAddress, type BoxNames } from './tls-names.js';
import type { TlsService } from './tls.js';

const tlsOf = (services: Services): TlsService => {
  if (!services.tls) throw new ApiError('not_found', 'HTTPS is off on this box (https_port), so it has no certificate authority to trust');
  return services.tls;
};

const fileName = (tls: TlsService) => `cabinet-ca-${tls.box.material.caFingerprint.replace(/:/g, '').slice(0, 8).toLowerCase()}`;

/**
 * The host a tablet or phone on the farm's network uses: the box's name it asked for, or the LAN
 * address the box listens on (the panel asked on loopback, or a name not the box's): its first LAN
 * address when it listens on every address (host 0.0.0.0 or ::), the one address it was told to
 * listen on, none when that is loopback. Undefined when the box has no LAN address it serves.
 */
export function lanHost(hostHeader: string | undefined, names: BoxNames, listenHost = '0.0.0.0'): string | undefined {
  const own = boxNameAsked(hostHeader, names);
  if (own) return own;
  const bound = listenHost.replace(/^\[|\]$/g, '');
  const lan = bound === '0.0.0.0' || bound === '::' || bound === '' ? lanAddress(names) : isLoopback(bound) || bound === 'localhost' ? undefined : bound;
  return lan ? (lan.includes(':') ? `[${lan}]` : lan) : undefined;
}

const tabletHost = (hostHeader: string | undefined, services: Services, tls: TlsService): string => lanHost(hostHeader, tls.box.material.names, services.config.host) ?? '127.0.0.1';

/**
 * Where a phone opens the shell (the hand-off link): the host /ca.json names, over HTTPS when it
 * listens (a LAN client is sent there anyway). Without HTTPS, the origin the tablet used unless that
 * is loopback (the panel), then the box's LAN address on the same port. Undefined when the box has
 * no LAN address: no phone could open a link to it.
 */
export function phoneOrigin(services: Services, hostHeader: string | undefined, requestUrl: string): string | undefined {
  const tls = services.tls;
  const listen = services.config?.host;
  if (tls) {
    const host = lanHost(hostHeader, tls.box.material.names, listen);
    return host && `https://${host}${tls.httpsPort === 443 ? '' : `:${tls.httpsPort}`}`;
  }
  const u = new URL(requestUrl);
  const bare = u.hostname.replace(/^\[|\]$/g, '');
  if (bare !== 'localhost' && !isLoopback(bare)) return u.origin;
  const host = lanHost(undefined, boxNames(), listen);
  return host && `${u.protocol}//${host}${u.port ? `:${u.port}` : ''}`;
}

const CA_INFO_SCHEMA = {
  type: 'object',
  required: ['fingerprint_sha256', 'ca_not_after', 'server_not_after', 'download_url', 'https_url', 'qr_svg', 'names'],
  properties: {
    fingerprint_sha256: { type: 'string', description: 'SHA-256 of the CA certificate (DER), hex pairs joined by colons' },
    ca_not_after: { type: 'string', format: 'date-time' },
    server_not_after: { type: 'string', format: 'date-time', description: 'The server certificate is issued anew 30 days before this, or when the box\'s addresses change' },
    download_url: { type: 'string', description: 'Plain-HTTP link to /ca.crt at the address the tablet uses (the box\'s LAN address when asked on loopback)' },
    https_url: { type: 'string', description: 'The shell over HTTPS at the same address' },
    qr_svg: { type: 'string', description: 'download_url as a QR code (SVG)' },
    names: { type: 'object', properties: { dns: { type: 'array', items: { type: 'string' } }, ips: { type: 'array', items: { type: 'string' } } } },
  },
};

export const tlsRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/ca.crt', module: 'core', tags: ['web'], access: { public: true },
    summary: 'The box\'s certificate authority (DER), for tablets to trust',
    description: 'DER as application/x-x509-ca-cert: Android and iOS open their certificate installer for it. The SHA-256 fingerprint is in the x-certificate-sha256 header. 404 not_found when https_port is off.',
    response: { kind: 'raw', contentType: 'application/x-x509-ca-cert', description: 'CA certificate (DER)' }, errors: ['not_found'],
    handler: async ({ c, services }) => {
      const tls = tlsOf(services);
      return c.body(new Uint8Array(tls.box.material.caDer), 200, {
        'content-type': 'application/x-x509-ca-cert', 'content-disposition': `attachment; filename="${fileName(tls)}.crt"`,
        'x-certificate-sha256': tls.box.material.caFingerprint, 'cache-control': 'no-cache',
      });
    },
  }),
  defineRoute({
    method: 'get', path: '/ca.pem', module: 'core', tags: ['web'], access: { public: true },
    summary: 'The box\'s certificate authority (PEM)',
    description: 'The same certificate as /ca.crt in PEM, for tools that want text (curl --cacert, certutil -a). 404 not_found when https_port is off.',
    response: { kind: 'raw', contentType: 'application/x-pem-file', description: 'CA certificate (PEM)' }, errors: ['not_found'],
    handler: async ({ c, services }) => {
      const tls = tlsOf(services);
      return c.body(tls.box.material.caPem, 200, {
        'content-type': 'application/x-pem-file', 'content-disposition': `attachment; filename="${fileName(tls)}.pem"`,
        'x-certificate-sha256': tls.box.material.caFingerprint, 'cache-control': 'no-cache',
      });
    },
  }),
  defineRoute({
    method: 'get', path: '/ca.json', module: 'core', tags: ['web'], access: { public: true },
    summary: 'What the login screen shows to trust this box: fingerprint, download link and its QR code',
    description: 'Links use plain HTTP (http_port) so that a tablet that does not trust the CA yet can fetch it. Asked on loopback (the panel), they name the LAN address the box listens on instead (its first one when it listens on every address). 404 not_found when https_port is off.',
    response: { kind: 'raw', contentType: 'application/json', description: 'CA summary', schema: CA_INFO_SCHEMA }, errors: ['not_found'],
    handler: async ({ c, services }) => {
      const tls = tlsOf(services);
      const m = tls.box.material;
      const host = tabletHost(requestHeader(c, 'host'), services, tls);
      const downloadUrl = `http://${host}:${tls.httpPort}/ca.crt`;
      const qrcode = (await import('qrcode')).default;
      return c.json({
        fingerprint_sha256: m.caFingerprint,
        ca_not_after: m.caNotAfter.toISOString(),
        server_not_after: m.notAfter.toISOString(),
        download_url: downloadUrl,
        https_url: `https://${host}:${tls.httpsPort}/`,
        qr_svg: await qrcode.toString(downloadUrl, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }),
        names: m.names,
      }, 200, { 'cache-control': 'no-cache' });
    },
  }),
];
