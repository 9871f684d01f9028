// The names a tablet may use to reach the box, which its server certificate must carry: every
// address of its network interfaces that is not internal, the loopback addresses (the panel's
// kiosk browser), the host name, <hostname>.local (mDNS) and localhost.
import { hostname as osHostname, networkInterfaces } from 'node:os';
import { isIPv4 } from 'node:net';

export interface BoxNames {
  dns: string[];
  ips: string[];
}

type Interfaces = ReturnType<typeof networkInterfaces>;

/** IPv6 link-local addresses need a zone id (fe80::1%eth0), which no URL bar or certificate can carry. */
const linkLocal = (ip: string) => /^fe[89ab][0-9a-f]:/i.test(ip);

/** The names, sorted and without duplicates so that two calls compare equal when nothing changed. */
export function boxNames(interfaces: Interfaces = networkInterfaces(), hostname: string = osHostname()): BoxNames {
  const ips = new Set<string>(['127.0.0.1', '::1']);
  for (const list of Object.values(interfaces)) {
    for (const a of list ?? []) {
      if (a.internal || linkLocal(a.address)) continue;
      ips.add(a.address.toLowerCase());
    }
  }
  const dns = new Set<string>(['localhost']);
  const host = hostname.trim().toLowerCase();
  // A host name that is an address, or not a DNS label (underscores, spaces), would make a bad SAN.
  // The label pattern refuses an IPv6 address (its colons), so only IPv4 is asked: isIPv6's pattern
  // is costly to compile, and a start has none of it otherwise (src/runtime/listen.ts).
  if (host && !isIPv4(host) && /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host)) {
    dns.add(host);
    if (!host.endsWith('.local')) dns.add(`${host.split('.')[0]}.local`);
  }
  return { dns: [...dns].sort(), ips: [...ips].sort() };
}

export const sameNames = (a: BoxNames, b: BoxNames): boolean =>
  a.dns.join(',') === b.dns.join(',') && a.ips.join(',') === b.ips.join(',');

/** The first address a tablet on the LAN can use (IPv4 first): for the CA download link shown on the panel. */
export function lanAddress(names: BoxNames): string | undefined {
  const lan = names.ips.filter((ip) => ip !== '127.0.0.1' && ip !== '::1');
  return lan.find((ip) => isIPv4(ip)) ?? lan[0];
}
