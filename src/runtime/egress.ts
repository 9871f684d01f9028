// "The master dials nobody's address": a multi-tenant master cloud (cloud-multi) must not open a
// connection to an address a tenant names, or a tenant admin could make it probe the cloud's own
// network (server-side request forgery). So on the master:
// - the field service and the poller are stand-ins that refuse every read and write before any
//   socket is opened (the master has no field bus: read-now, adapter profiles' polling, setpoint
//   dispatch, field writes and relay outputs run on the site box), and the routes that would ask
//   for them answer 409 not_on_master (refuseOnMaster);
// - notification targets (webhook URLs, SMTP servers) are checked against loopback, link-local,
//   private and other non-public ranges, when a channel is saved and again before each delivery
//   (a name may resolve elsewhere later), unless the master's operator allows them
//   (master_private_targets). A box (edge-single) reaches its site LAN as before.
import { BlockList, isIP } from 'node:net';
import type { Config } from '../config.js';
import { ApiError } from '../kernel/errors.js';
import type { Logger } from '../kernel/logger.js';
import { FieldFailure } from '../field/errors.js';
import type { FieldService } from '../field/index.js';
import type { Poller } from '../field/poll-types.js';

/** Addresses that are not the public internet: this host, its LAN, link-local, carrier NAT, multicast, reserved. Made at first use (a start asks none). */
let notPublicList: BlockList | undefined;
function notPublicBlocks(): BlockList {
  if (notPublicList) return notPublicList;
  const list = new BlockList();
  for (const [net, bits] of [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ] as const) list.addSubnet(net, bits, 'ipv4');
  for (const [net, bits] of [
    ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b:1::', 48], ['100::', 64],
  ] as const) list.addSubnet(net, bits, 'ipv6');
  return (notPublicList = list);
}

/** Is this IP address loopback, link-local, private or otherwise not on the public internet? IPv4-mapped IPv6 counts as its IPv4 address. */
export function notPublic(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: never a safe target
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return notPublicBlocks().check(mapped[1]!, 'ipv4');
  return notPublicBlocks().check(address, family === 6 ? 'ipv6' : 'ipv4');
}

export const MASTER_NO_FIELD_BUS = 'the master cloud has no field bus and opens no connection to a field device or an address given in a request; read, poll and write equipment on the site box';

/** Does this installation refuse every field connection (a master without master_field_bus)? */
export const dialsNobody = (config: Pick<Config, 'mode' | 'master_field_bus'>): boolean => config.mode === 'cloud-multi' && !config.master_field_bus;

/** Throws 409 not_on_master on the master cloud: for a command that would connect to an address the request gives. */
export function refuseOnMaster(config: Pick<Config, 'mode' | 'master_field_bus'>, what: string): void {
  if (dialsNobody(config)) throw new ApiError('not_on_master', `${what}: ${MASTER_NO_FIELD_BUS} (setting master_field_bus)`);
}

/** The field service of the master: every read and write refused before a socket is opened. */
export function masterField(field: FieldService, log: Logger): FieldService {
  const refuse = (what: string) => {
    log.warn('refused a field connection on the master cloud', { what });
    return new FieldFailure('invalid', `Refused: ${MASTER_NO_FIELD_BUS}`);
  };
  return {
    get config() { return field.config; },
    execute: async () => {
      refuse('field write');
      return { ok: false, status: 400, messages: [`Refused: ${MASTER_NO_FIELD_BUS}`], results: [] };
    },
    modbusBus(spec) { throw refuse(spec.kind === 'tcp' ? `modbus tcp:${spec.host}:${spec.port}` : `modbus rtu:${spec.serial.path}`); },
    bacnet: () => Promise.reject(refuse('bacnet')),
    close: () => field.close(),
  };
}

/** The poller of the master: adapter profiles are data there, never polled (no connection, no comm-loss alarm). */
export function masterPoller(poller: Poller, log: Logger): Poller {
  let told = -1;
  return Object.assign(Object.create(poller) as Poller, {
    set(devices: Parameters<Poller['set']>[0]) {
      if (devices.length && devices.length !== told) log.info('the master cloud polls no field device (adapter profiles are read on the site box)', { profiles: devices.length });
      told = devices.length;
      poller.set([]);
    },
  });
}

/**
 * Resolves a notification target's host on the master and refuses it when any of its addresses is
 * not public, unless master_private_targets; nothing to check on a box. Throws an Error whose
 * message says which address and why (the deliveries list shows it). node:dns/promises is taken
 * here, at the first check on a master, not at every start.
 */
export async function checkTarget(config: Pick<Config, 'mode' | 'master_private_targets'>, host: string, what: string): Promise<void> {
  if (config.mode !== 'cloud-multi' || config.master_private_targets) return;
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const addresses = isIP(bare) ? [bare] : (await process.getBuiltinModule('node:dns/promises').lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
  const bad = addresses.find(notPublic);
  if (bad !== undefined) throw new TargetRefused(`${what} ${host}${bad === bare ? '' : ` resolves to ${bad}, which`} is a loopback, link-local or private address: the master cloud reaches public addresses only (setting master_private_targets)`);
}

export class TargetRefused extends Error {
  override name = 'TargetRefused';
}

/** checkTarget() for a literal address or a name only known not to be public without a lookup (saving a channel): undefined when fine. */
export function literalTargetProblem(config: Pick<Config, 'mode' | 'master_private_targets'>, host: string): string | undefined {
  if (config.mode !== 'cloud-multi' || config.master_private_targets) return undefined;
  const bare = (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host).toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost') || (isIP(bare) && notPublic(bare))) {
    return `${host} is a loopback, link-local or private address: the master cloud reaches public addresses only (setting master_private_targets)`;
  }
  return undefined;
}

/** The host a notification channel reaches: its SMTP server, or its webhook URL's host. */
export function channelHost(channel: { kind: string; smtp_host: string | null; webhook_url: string | null }): { host: string; field: string } | undefined {
  if (channel.kind === 'email') return channel.smtp_host ? { host: channel.smtp_host, field: 'item.smtp_host' } : undefined;
  try {
    return channel.webhook_url ? { host: new URL(channel.webhook_url).hostname, field: 'item.webhook_url' } : undefined;
  } catch {
    return undefined;
  }
}

/** Saving a channel on the master: 400 validation_error (reason private_address) for a target literally not public. */
export function refusePrivateChannel(config: Pick<Config, 'mode' | 'master_private_targets'>, channel: Parameters<typeof channelHost>[0]): void {
  const target = channelHost(channel);
  const problem = target && literalTargetProblem(config, target.host);
  if (problem) throw new ApiError('validation_error', problem, [{ field: target.field, reason: 'private_address' }]);
}
