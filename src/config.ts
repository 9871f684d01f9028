// One table of settings drives the valibot schema, the CLI flags, the CABINET_* environment
// variables, `cabinet --help` and the README's configuration table.
// Precedence: defaults < config file (YAML or JSON) < environment < flags.
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { parse as parseYaml } from 'yaml';
import { fieldConfigSchema } from './field/config.js';

type Schema = v.GenericSchema<unknown, unknown>;

export interface Setting {
  key: string;
  schema: Schema;
  allowed: string;
  description: string;
  default: unknown;
  /** Shown instead of the default in docs when the default depends on the environment. */
  defaultText?: string;
  secret?: boolean;
}

const int = (min: number, max: number) =>
  v.pipe(
    v.union([v.number(), v.pipe(v.string(), v.regex(/^-?\d+$/), v.transform(Number))]),
    v.integer(),
    v.minValue(min),
    v.maxValue(max),
  );
/** A size in bytes: an integer, or a number with K, M, G or T (binary: 1 K = 1024; KiB, MB, GB... read the same). */
const UNITS: Record<string, number> = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };
export function parseBytes(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(text);
  if (!m) return undefined;
  const n = Math.round(Number(m[1]) * UNITS[m[2]!.toLowerCase()]!);
  return Number.isSafeInteger(n) ? n : undefined;
}
const bytes = (min: number) =>
  v.pipe(
    v.union([v.number(), v.pipe(v.string(), v.check((s) => parseBytes(s) !== undefined, 'bytes, or a number with K, M, G or T'), v.transform((s) => parseBytes(s)!))]),
    v.integer(),
    v.minValue(min),
  );
const oneOf = <T extends string>(values: readonly T[]) => v.picklist(values);
const text = () => v.pipe(v.string(), v.trim());
const bool = () =>
  v.union([v.boolean(), v.pipe(v.picklist(['true', 'false', '1', '0']), v.transform((s) => s === 'true' || s === '1'))]);

export const MODES = ['edge-single', 'cloud-multi'] as const;
export const INDUSTRIES = ['poultry', 'swine', 'melioration'] as const;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export const MQTT_BROKERS = ['auto', 'embedded', 'external', 'off'] as const;
export const CLOCKS = ['24h', '12h'] as const;

export const SETTINGS: readonly Setting[] = [
  { key: 'mode', schema: oneOf(MODES), allowed: MODES.join(' | '), default: 'edge-single', description: 'Deployment mode: one fixed industry on a site box, or the multi-tenant master cloud.' },
  { key: 'industry', schema: oneOf(INDUSTRIES), allowed: INDUSTRIES.join(' | '), default: 'poultry', description: 'The workspace opened by default (the fixed industry in edge-single).' },
  { key: 'http_port', schema: int(0, 65535), allowed: 'an integer from 0 to 65535 (0 = any free port)', default: 8080, description: 'HTTP port of the API, the docs and the web shell.' },
  { key: 'https_port', schema: v.union([v.literal('off'), v.literal('auto'), int(0, 65535)]), allowed: 'an integer from 0 to 65535 (0 = any free port), auto or off', default: 'auto', description: 'HTTPS port of the same API and web shell, with a certificate from the box\'s own certificate authority (see docs/https.md); auto = 8443 in edge-single and off in cloud-multi (the master sits behind a proxy with a public certificate); off serves plain HTTP only. Plain HTTP then redirects LAN clients to it (not loopback, not the probes).' },
  { key: 'host', schema: v.pipe(text(), v.minLength(1)), allowed: 'an IP address or host name', default: '0.0.0.0', description: 'Address the HTTP listener binds to.' },
  { key: 'data_dir', schema: v.pipe(text(), v.minLength(1)), allowed: 'a writable directory path', default: process.env.STATE_DIRECTORY?.split(':')[0] ?? './data', defaultText: '`$STATE_DIRECTORY` (systemd) or `./data`', description: 'Where the SQLite file and generated secrets live.' },
  { key: 'database_url', schema: text(), allowed: 'empty (SQLite in data_dir), postgres://user@host:port/db, or pglite:memory / pglite:/path', default: '', description: 'Database to use instead of the SQLite file.', secret: true },
  { key: 'log_level', schema: oneOf(LOG_LEVELS), allowed: LOG_LEVELS.join(' | '), default: 'info', description: 'Lowest level written to the JSON log on stdout. At info the access log has a line for every change, failure and read slower than 1 s; reads answered well are at debug.' },
  { key: 'max_body_bytes', schema: int(1024, 64 * 1024 * 1024), allowed: 'an integer from 1024 to 67108864', default: 1024 * 1024, description: 'Largest accepted request body; larger bodies get 413 payload_too_large.' },
  { key: 'shutdown_timeout_ms', schema: int(0, 600_000), allowed: 'an integer from 0 to 600000', default: 10_000, description: 'How long a graceful stop waits for in-flight requests.' },
  { key: 'modules_state_path', schema: text(), allowed: 'a file path or empty', default: '', description: 'Legacy JSON module state file, imported once on first start.' },
  { key: 'session_secret', schema: text(), allowed: 'empty (generate <data_dir>/session.key, mode 0600) or at least 32 bytes', default: '', description: 'HS256 key for session tokens.', secret: true },
  { key: 'session_ttl_minutes', schema: int(1, 7 * 24 * 60), allowed: 'an integer from 1 to 10080', default: 720, description: 'Lifetime of a session token (default 12 hours: one shift).' },
  { key: 'security_log_retention_days', schema: int(1, 3650), allowed: 'an integer from 1 to 3650', default: 90, description: 'Security log entries older than this are deleted (checked hourly).' },
  { key: 'audit_retention_days', schema: int(1, 36500), allowed: 'an integer from 1 to 36500', default: 365, description: 'Audit records older than this are deleted (checked hourly).' },
  { key: 'panel_addresses', schema: v.pipe(text(), v.minLength(1)), allowed: 'comma-separated IP addresses', default: '127.0.0.1,::1,::ffff:127.0.0.1', description: 'Addresses of the panel browser: the only clients allowed to log in by RFID card.' },
  { key: 'rpc_port', schema: v.union([v.literal('off'), int(0, 65535)]), allowed: 'an integer from 0 to 65535 (0 = any free port), or off', default: 8081, description: 'Port of the field-write JSON-RPC listener (POST /api/rpc); off serves no listener (setpoint writes to field devices go on).' },
  { key: 'rpc_host', schema: v.pipe(text(), v.minLength(1)), allowed: 'an IP address or host name', default: '127.0.0.1', description: 'Address of the field-write listener; loopback unless deliberately opened to the site LAN.' },
  { key: 'field', schema: v.pipe(v.union([v.record(v.string(), v.unknown()), v.pipe(v.string(), v.parseJson(), v.record(v.string(), v.unknown()))]), v.check((f) => v.is(fieldConfigSchema, f), 'see the Field writes section')), allowed: 'a mapping of field-write settings (timeouts, retries, queue length, Modbus unit id and serial defaults, BACnet port and device map; see README)', default: {}, description: 'Field-write bus settings (config file, or JSON in CABINET_FIELD).' },
  { key: 'mqtt_broker', schema: oneOf(MQTT_BROKERS), allowed: MQTT_BROKERS.join(' | '), default: 'auto', description: 'MQTT for status events and telemetry: auto = the embedded broker in edge-single, the external broker (mqtt_url) in cloud-multi; off disables MQTT.' },
  { key: 'mqtt_port', schema: int(0, 65535), allowed: 'an integer from 0 to 65535 (0 = any free port)', default: 1883, description: 'Port of the embedded broker\'s plaintext MQTT (on mqtt_host, loopback by default). If it is taken, start-up says so and HTTP goes on.' },
  { key: 'mqtt_host', schema: v.pipe(text(), v.minLength(1)), allowed: 'an IP address or host name', default: '127.0.0.1', description: 'Address of the embedded broker\'s plaintext listener (mqtt_port): loopback, for local tools on the box. Another address (0.0.0.0) opens MQTT without TLS on the LAN for old devices that cannot do TLS: their credentials cross the LAN in clear, and the log warns at every start. Devices on the LAN use MQTT over TLS (mqtt_tls_port).' },
  { key: 'mqtt_tls_port', schema: v.union([v.literal('off'), v.literal('auto'), int(0, 65535)]), allowed: 'an integer from 0 to 65535 (0 = any free port), auto or off', default: 'auto', description: 'Port of the embedded broker\'s MQTT over TLS, with the box\'s certificate (the CA the tablets trust, docs/https.md); auto = 8883 whenever the embedded broker runs. Devices connect here with a device credential (docs/commission.md). If it is taken, start-up says so and the rest goes on.' },
  { key: 'mqtt_tls_host', schema: v.pipe(text(), v.minLength(1)), allowed: 'an IP address or host name', default: '0.0.0.0', description: 'Address the embedded broker\'s MQTT over TLS listener binds to.' },
  { key: 'mqtt_url', schema: text(), allowed: 'empty or mqtt://[user:password@]host:port (also mqtts://)', default: '', description: 'External MQTT broker (cloud-multi): cabinet publishes status events there and ingests telemetry from it.', secret: true },
  { key: 'mqtt_session_recheck_ms', schema: int(50, 3_600_000), allowed: 'an integer from 50 to 3600000', default: 30_000, description: 'How often the embedded broker re-verifies its clients\' tokens; a client whose session ended is disconnected.' },
  { key: 'mqtt_topic_prefix', schema: v.pipe(text(), v.regex(/^[A-Za-z0-9_-]{1,64}$/)), allowed: '1-64 of A-Z a-z 0-9 _ -', default: 'cabinet', description: 'First topic level of every cabinet MQTT topic.' },
  { key: 'status_heartbeat_ms', schema: int(50, 600_000), allowed: 'an integer from 50 to 600000', default: 15_000, description: 'Heartbeat period of the status WebSocket stream (a heartbeat message and a ping frame).' },
  { key: 'status_retention_days', schema: int(1, 3650), allowed: 'an integer from 1 to 3650', default: 30, description: 'Status events older than this are purged (hourly).' },
  { key: 'telemetry_flush_ms', schema: int(1, 60_000), allowed: 'an integer from 1 to 60000', default: 2000, description: 'Longest time a telemetry point from MQTT or a device poll waits before its batch is written (and the MQTT message is acknowledged). A trickle is gathered into few commits: each commit writes every page it touched to the flash, so 200 ms wrote about 7x more per point than 2000 at a site\'s 10 points/s (docs/storage-and-reads.md). Floods are written as they fill batches; HTTP pushes at the end of their turn.' },
  { key: 'telemetry_batch_max', schema: int(1, 50_000), allowed: 'an integer from 1 to 50000', default: 500, description: 'Points that trigger an immediate batch write (one transaction per batch).' },
  { key: 'telemetry_hold_ms', schema: int(0, 60_000), allowed: 'an integer from 0 to 60000', default: 60_000, description: 'Flash wear: values nobody waits for (a device poll\'s telemetry points, poultry climate readings from a device poll or MQTT, the security log\'s entries of allowed requests) are committed together at most this long after they arrive, on the whole minute, and the minute and hour roll-ups are kept in memory until their bucket closes; reads include what is held. A power cut loses at most this long of them (roll-ups are rebuilt from the stored points). 0: committed within telemetry_flush_ms and roll-ups merged by every commit, as before. See docs/storage-and-reads.md.' },
  { key: 'sqlite_page_size', schema: v.pipe(int(512, 65_536), v.check((n) => (n & (n - 1)) === 0, 'a power of two')), allowed: 'a power of two from 512 to 65536', default: 1024, description: 'SQLite page size of a database file made from now on (an existing file keeps its own): every commit writes whole pages to the log and again at the checkpoint, so smaller pages write fewer bytes to the flash for the few rows a commit appends (docs/storage-and-reads.md).' },
  { key: 'sqlite_checkpoint_bytes', schema: bytes(64 * 1024), allowed: 'bytes, or a number with K, M or G (binary), at least 64K', default: 32 * 2 ** 20, defaultText: '32M (32 MiB)', description: 'The SQLite log is copied into the database file once it has grown past this (in a thread of its own). A larger log writes a page changed many times once per checkpoint: on a box, where each page copied to the file costs a block of the flash, a checkpoint every few hours instead of every hour writes about a quarter less, and 32 MiB (about eight hours of a 10-house site\'s log) about a tenth less again than 16 MiB (docs/storage-and-reads.md).' },
  { key: 'telemetry_retention_days', schema: int(1, 3650), allowed: 'an integer from 1 to 3650', default: 30, description: 'Raw telemetry points older than this are purged (hourly); their minute and hour roll-ups stay longer.' },
  { key: 'telemetry_minute_retention_days', schema: int(1, 3650), allowed: 'an integer from 1 to 3650', default: 90, description: 'Per-minute telemetry roll-ups (count, sum, min, max, last per series) older than this are purged (hourly).' },
  { key: 'telemetry_hour_retention_days', schema: int(1, 36500), allowed: 'an integer from 1 to 36500', default: 1825, description: 'Per-hour telemetry roll-ups older than this are purged (hourly); 1825 days keep five years of charts.' },
  { key: 'storage_budget_bytes', schema: bytes(2 ** 20), allowed: 'bytes, or a number with K, M, G or T (binary: 2G = 2 GiB), at least 1M', default: 2 ** 31, defaultText: '2G (2 GiB)', description: 'The most disk the database may use: past 90 % the box thins history (raw telemetry first, then minute roll-ups, status events, audit, hour roll-ups, alarm history; each within a floor) down to 80 %, and warns at 85 %. See docs/storage-and-reads.md.' },
  { key: 'storage_interval_ms', schema: int(1000, 86_400_000), allowed: 'an integer from 1000 to 86400000', default: 3_600_000, description: 'How often the box measures its database, purges by retention and thins to the storage budget (first a minute after start; at once by `cabinet storage thin`).' },
  { key: 'poultry_readings_retention_days', schema: int(1, 3650), allowed: 'an integer from 1 to 3650', default: 120, description: 'Poultry climate readings older than this are purged (hourly); 120 days hold two broiler batches and the longest hourly roll-up window.' },
  { key: 'sync_master_url', schema: v.pipe(text(), v.check((s) => s === '' || /^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(s), 'http(s) URL')), allowed: 'empty (no sync) or http(s)://host[:port]', default: '', description: 'Edge-single: the master cloud this box syncs with (alarms, status, audit, telemetry aggregates, heartbeats up; version policies, module site policies and published industry profiles down).' },
  { key: 'sync_credential_file', schema: text(), allowed: 'a file path (relative paths are inside data_dir)', default: 'site-credential', description: 'The site credential issued by the master (register-site); it must be mode 0600 or it is refused.' },
  { key: 'sync_interval_ms', schema: int(50, 3_600_000), allowed: 'an integer from 50 to 3600000', default: 5000, description: 'Pause between two sync cycles of an edge box (pull, then push the outbox).' },
  { key: 'sync_batch_max', schema: int(1, 2000), allowed: 'an integer from 1 to 2000', default: 500, description: 'Most events in one push (a push also stays under 512 KiB).' },
  { key: 'sync_backoff_max_ms', schema: int(50, 3_600_000), allowed: 'an integer from 50 to 3600000', default: 300_000, description: 'Longest wait between attempts while the master is unreachable (the wait doubles from sync_interval_ms).' },
  { key: 'sync_heartbeat_ms', schema: int(50, 3_600_000), allowed: 'an integer from 50 to 3600000', default: 60_000, description: 'How often an edge box queues a heartbeat (the master computes uptime and latency from them).' },
  { key: 'sync_request_timeout_ms', schema: int(100, 600_000), allowed: 'an integer from 100 to 600000', default: 15_000, description: 'Timeout of one request of the edge to the master.' },
  { key: 'sync_stale_ms', schema: int(100, 86_400_000), allowed: 'an integer from 100 to 86400000', default: 60_000, description: 'Master: a site not heard from for longer is out of contact (its tenant\'s sync record is degraded or stopped).' },
  { key: 'sync_retention_days', schema: int(0, 36500), allowed: 'an integer from 0 to 36500 (0 keeps everything)', default: 365, description: 'Master: the events, heartbeats and telemetry aggregates received from the sites are dropped a whole month at a time once the month is older than this (PostgreSQL: its partition is detached and dropped; checked hourly). The analytics day roll-ups stay.' },
  { key: 'release_public_key', schema: text(), allowed: 'empty (no updates) or the path of a PEM file (ed25519 public key)', default: '', description: 'The fleet\'s release public key (SPKI PEM; `cabinet release keygen` makes the pair): a box installs only packages signed with it, and a master publishes only releases that verify with it. Keep the file root-owned (/etc/cabinet): the privileged installer checks every package with it again before dpkg. Empty: the box does not update itself.' },
  { key: 'updates_enabled', schema: bool(), allowed: 'true | false', default: true, description: 'Edge-single: the box updates itself to the release its master targets (downloaded in chunks, verified, installed in the maintenance window, proven or rolled back). false: it reports its state and installs nothing.' },
  { key: 'update_window', schema: v.pipe(text(), v.check((s) => { const m = /^(?:([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d))?$/.exec(s); return m !== null && (s === '' || `${m[1]}${m[2]}` !== `${m[3]}${m[4]}`); }, 'HH:MM-HH:MM')), allowed: 'empty (any time) or HH:MM-HH:MM in site_timezone (may cross midnight: 22:00-04:00)', default: '', description: 'Edge-single: the maintenance window in which the box installs an update it has downloaded and verified (never while a P1 alarm is unacknowledged or a setpoint write is in progress).' },
  { key: 'update_proof_timeout_s', schema: int(30, 86_400), allowed: 'an integer from 30 to 86400', default: 600, description: 'Edge-single: how long a newly installed version has to prove itself healthy (ready, its controllers read, a sync with the master) before the installer puts the previous version back. A rollout\'s own proof_timeout_s, when the master sends one, wins.' },
  { key: 'update_dpkg_command', schema: v.pipe(text(), v.minLength(1)), allowed: 'a command (words split at spaces)', default: 'dpkg', description: 'Edge-single: the command the privileged installer (`cabinet update apply`, run as root by cabinet-updater.service) installs a package with (dpkg -i, dpkg -s, dpkg --configure -a). Another value is for tests only.' },
  { key: 'update_service_control', schema: v.pipe(text(), v.minLength(1)), allowed: 'a command (words split at spaces) taking systemctl\'s verbs', default: 'systemctl', description: 'Edge-single: how the privileged installer stops, starts and watches cabinet.service (stop, start, restart, show -p NRestarts --value). Another value is for tests that run without systemd.' },
  { key: 'alarm_escalation_interval_ms', schema: int(50, 3_600_000), allowed: 'an integer from 50 to 3600000', default: 15_000, description: 'How often the box escalates industry alarms whose SLA deadline has passed unacknowledged (on its own, no cloud needed).' },
  { key: 'alarm_flood_count', schema: int(0, 1000), allowed: 'an integer from 0 (no grouping) to 1000', default: 5, description: 'Flood/chatter grouping: a rule raising more than this many alarms on one unit within alarm_flood_window_min becomes one grouped alarm whose raise_count counts the raises (docs/alarms.md).' },
  { key: 'alarm_flood_window_min', schema: int(1, 1440), allowed: 'an integer from 1 to 1440', default: 10, description: 'The window, in minutes, of alarm_flood_count.' },
  { key: 'stale_after_s', schema: int(1, 86_400), allowed: 'an integer from 1 to 86400', default: 300, description: 'A climate reading older than this is stale: the API marks it (age_s, stale), the house card says "No reading for ..." instead of showing it as the climate now, and a house whose MQTT readings stop for longer gets a comm_loss alarm.' },
  { key: 'site_timezone', schema: v.pipe(text(), v.check((tz) => { try { new Intl.DateTimeFormat('en', { timeZone: tz }); return true; } catch { return false; } }, 'an IANA time zone name')), allowed: 'an IANA time zone name (Europe/Berlin, America/Chicago, UTC)', default: 'UTC', description: 'Time zone of the site: the calendar day of a flock\'s age (day 0 = placement day), of the poultry day figures and of the melioration water balance.' },
  { key: 'site_locale', schema: v.pipe(text(), v.check((l) => { try { return Intl.DateTimeFormat.supportedLocalesOf([l]).length === 1; } catch { return false; } }, 'a BCP 47 locale tag')), allowed: 'a BCP 47 locale tag (en-GB, de-DE, fr-FR, en-US)', default: 'en-GB', description: 'Language and region of dates and numbers on the tablets (en-GB writes 24 Nov 2026); the shell reads it from app/context.' },
  { key: 'site_language', schema: v.pipe(text(), v.regex(/^[a-z]{2,3}(-[A-Z]{2})?$/, 'a language code (en, ru, es, or a site-added one)')), allowed: 'en | ru | es, or the code of a catalogue in data_dir/i18n', default: 'en', description: 'The language of the tablets before anyone logs in, and of a card or channel that has none of its own. A person\'s card carries their own language.' },
  { key: 'site_clock', schema: oneOf(CLOCKS), allowed: CLOCKS.join(' | '), default: '24h', description: 'Clock of the times on the tablets: 24-hour (as house controllers show it) or 12-hour.' },
  { key: 'master_field_bus', schema: bool(), allowed: 'true | false', default: false, description: 'Master (cloud-multi): false, the master has no field bus and dials nobody\'s address: read-now and saving adapter profiles answer 409 not_on_master, and it polls, writes and connects to no field device. true lets it do so as a box does: a lab bench or a test rig on one machine, never a cloud shared by tenants (they could make it connect anywhere on its network).' },
  { key: 'master_private_targets', schema: bool(), allowed: 'true | false', default: false, description: 'Master (cloud-multi): notification webhooks and SMTP servers may be on loopback, link-local or private addresses. Off, the master refuses such a target when a channel is saved and again before each delivery (its tenants must not make it reach its own network); a box (edge-single) always may, its targets are on the site LAN.' },
  { key: 'debug_errors', schema: bool(), allowed: 'true | false', default: false, description: 'Log stack traces of unexpected errors (never sent to clients).' },
];

export interface Config {
  mode: (typeof MODES)[number];
  industry: (typeof INDUSTRIES)[number];
  http_port: number;
  https_port: number | 'off' | 'auto';
  host: string;
  data_dir: string;
  database_url: string;
  log_level: (typeof LOG_LEVELS)[number];
  max_body_bytes: number;
  shutdown_timeout_ms: number;
  modules_state_path: string;
  debug_errors: boolean;
  session_secret: string;
  session_ttl_minutes: number;
  mqtt_broker: (typeof MQTT_BROKERS)[number];
  mqtt_port: number;
  mqtt_host: string;
  mqtt_tls_port: number | 'off' | 'auto';
  mqtt_tls_host: string;
  master_private_targets: boolean;
  master_field_bus: boolean;
  mqtt_url: string;
  mqtt_topic_prefix: string;
  status_heartbeat_ms: number;
  status_retention_days: number;
  telemetry_flush_ms: number;
  telemetry_batch_max: number;
  telemetry_hold_ms: number;
  sqlite_page_size: number;
  sqlite_checkpoint_bytes: number;
  telemetry_retention_days: number;
  telemetry_minute_retention_days: number;
  telemetry_hour_retention_days: number;
  poultry_readings_retention_days: number;
  storage_budget_bytes: number;
  storage_interval_ms: number;
  rpc_port: number | 'off';
  rpc_host: string;
  panel_addresses: string;
  security_log_retention_days: number;
  audit_retention_days: number;
  mqtt_session_recheck_ms: number;
  field: Record<string, unknown>;
  sync_master_url: string;
  sync_credential_file: string;
  sync_interval_ms: number;
  sync_batch_max: number;
  sync_backoff_max_ms: number;
  sync_heartbeat_ms: number;
  sync_request_timeout_ms: number;
  sync_stale_ms: number;
  sync_retention_days: number;
  release_public_key: string;
  updates_enabled: boolean;
  update_window: string;
  update_proof_timeout_s: number;
  update_dpkg_command: string;
  update_service_control: string;
  alarm_escalation_interval_ms: number;
  alarm_flood_count: number;
  alarm_flood_window_min: number;
  stale_after_s: number;
  site_timezone: string;
  site_locale: string;
  site_language: string;
  site_clock: (typeof CLOCKS)[number];
}

export class ConfigError extends Error {}

export const flagOf = (key: string) => `--${key.replace(/_/g, '-')}`;
export const envOf = (key: string) => `CABINET_${key.toUpperCase()}`;

const byKey = new Map(SETTINGS.map((s) => [s.key, s]));

function describe(value: unknown): string {
  const s = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function check(key: string, value: unknown, source: string): unknown {
  const setting = byKey.get(key);
  if (!setting) throw new ConfigError(`unknown setting ${key} (from ${source}); known settings: ${SETTINGS.map((s) => s.key).join(', ')}`);
  const result = v.safeParse(setting.schema, value);
  if (!result.success) {
    const shown = setting.secret ? '(hidden)' : describe(value);
    throw new ConfigError(`setting ${key} = ${shown} (from ${source}) is not allowed: expected ${setting.allowed}`);
  }
  return result.output;
}

/** Parses `--flag value` / `--flag=value` pairs; returns the settings and the remaining args. */
export function parseFlags(args: string[], extra: readonly string[] = []): { values: Record<string, string>; rest: string[] } {
  // Command-specific flags (e.g. --role of `cabinet token`) arrive in `values` under snake_case keys.
  const flags = new Map(SETTINGS.map((s) => [flagOf(s.key), s.key]));
  flags.set('--config', 'config');
  for (const e of extra) flags.set(`--${e}`, e.replace(/-/g, '_'));
  const values: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('--')) { rest.push(arg); continue; }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const key = flags.get(name);
    if (!key) throw new ConfigError(`unknown option ${name}; run 'cabinet help' for the list`);
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) throw new ConfigError(`option ${name} needs a value`);
    values[key] = value;
  }
  return { values, rest };
}

export function loadConfig(flagValues: Record<string, string> = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const merged: Record<string, unknown> = {};
  for (const s of SETTINGS) merged[s.key] = s.default;
  const file = flagValues.config ?? env.CABINET_CONFIG;
  if (file) {
    let parsed: unknown;
    try {
      parsed = parseYaml(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new ConfigError(`config file ${file} cannot be read: ${(err as Error).message.split('\n')[0]}`);
    }
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`config file ${file} must hold a mapping of settings`);
      for (const [k, value] of Object.entries(parsed)) merged[k] = check(k, value, `config file ${file}`);
    }
  }
  for (const s of SETTINGS) {
    const value = env[envOf(s.key)];
    if (value !== undefined) merged[s.key] = check(s.key, value, `environment ${envOf(s.key)}`);
  }
  for (const [k, value] of Object.entries(flagValues)) {
    if (k === 'config' || !byKey.has(k)) continue;
    merged[k] = check(k, value, `option ${flagOf(k)}`);
  }
  return merged as unknown as Config;
}

/** The HTTPS port to listen on, or undefined when HTTPS is off (auto: 8443 on a site box, off on the master). */
/** The embedded broker's MQTT-over-TLS port, or undefined when off. */
export function mqttTlsPortOf(config: Pick<Config, 'mqtt_tls_port'>): number | undefined {
  if (config.mqtt_tls_port === 'off') return undefined;
  return config.mqtt_tls_port === 'auto' ? 8883 : config.mqtt_tls_port;
}

export function httpsPortOf(config: Pick<Config, 'https_port' | 'mode'>): number | undefined {
  if (config.https_port === 'off') return undefined;
  if (config.https_port === 'auto') return config.mode === 'edge-single' ? 8443 : undefined;
  return config.https_port;
}
