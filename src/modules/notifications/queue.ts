// The queue: an alarm event becomes one delivery per matching rule and recipient (a row, so a
// restart loses nothing), and the worker sends what is due, retrying with exponential back-off.
//
// - Matching: the rule is enabled, of the alarm's tenant, of its site or of every site; its
//   priorities, severities and units contain the alarm's (empty: any); raise needs on_raise and level 0
//   in [min, max]; an escalation needs on_escalation and the new level in [min, max]; a clear
//   needs on_clear and min <= the level the alarm reached (those who were told hear it ended);
//   an acknowledgement likewise needs on_ack.
// - A delivery's id is a digest of (rule, alarm, event, level, recipient): the same event read
//   twice (a replay, two master processes) queues it once.
// - Attempt n fails: the next is due after base x 2^(n-1), at most one hour, until the channel's
//   attempts are spent; then the delivery is `failed`. Each outcome is an audit record
//   (notification.deliver: success with status sent, error with status retrying or failed).
// - A claim (claimed_until, conditional update) keeps two processes from sending one delivery.
// - Suppression (ISA-18.2: a shelved or out-of-service alarm is not annunciated, and a message off
//   site is annunciation): a raise or escalation of an alarm shelved or out of service at the
//   event is queued as a row with status `suppressed` and its reason, and never sent. An
//   acknowledgement or clear goes to a rule only if that rule's recipient was told of the alarm:
//   where every raise and escalation it got was suppressed, it is suppressed too. A held raise is
//   sent after all when the alarm is annunciated again with its condition active (its unit
//   returned to service, its shelve ended, nobody acknowledged it): the crew hears of a P1 that
//   is still there once maintenance is over, as the siren does.
import { createHash } from 'node:crypto';
import { and, asc, eq, inArray, isNull, lt, lte, or } from 'drizzle-orm';
import type { Services } from '../../kernel/context.js';
import { storeFor } from '../../db/store.js';
import { colOf, tableOf } from '../../db/sql.js';
import { preparedQuery } from '../../db/prepared.js';
import { channelRecord, deliveryRecord, ruleRecord, type ChannelRow, type DeliveryRow, type RuleRow, type Suppression } from './schema.js';
import type { Release } from './sources.js';
import { channelTranslator, compose, type AlarmFacts } from './message.js';
import { openSecret } from './secrets.js';
import { sendEmail, sendWebhook, shownUrl } from './send.js';
import { channelHost, checkTarget } from '../../runtime/egress.js';

const MAX_DELAY_MS = 3_600_000;
const CLAIM_MS = 120_000;
const BATCH = 20;

export function matches(rule: RuleRow, facts: AlarmFacts): boolean {
  if (!rule.enabled || rule.tenant_id !== facts.tenant_id) return false;
  if (rule.site_id !== null && rule.site_id !== facts.site_id) return false;
  if (rule.priorities.length && !(facts.priority !== null && rule.priorities.includes(facts.priority))) return false;
  if (rule.severities.length && !rule.severities.includes(facts.severity)) return false;
  if (rule.unit_ids.length && !(facts.unit_id !== null && rule.unit_ids.includes(facts.unit_id))) return false;
  const level = facts.event === 'raised' ? 0 : facts.escalation_level;
  const inRange = level >= rule.min_escalation_level && (rule.max_escalation_level === null || level <= rule.max_escalation_level);
  if (facts.event === 'raised') return rule.on_raise && inRange;
  if (facts.event === 'escalated') return rule.on_escalation && inRange;
  // A clear or an acknowledgement goes to those who were told of the alarm (its level reached theirs).
  const told = facts.escalation_level >= rule.min_escalation_level;
  if (facts.event === 'acknowledged') return rule.on_ack && told;
  return rule.on_clear && told;
}

/** Exponential back-off: the wait after the n-th failed attempt. */
export const backoffMs = (baseMs: number, attempts: number): number => Math.min(MAX_DELAY_MS, baseMs * 2 ** Math.max(0, attempts - 1));

const deliveryId = (parts: string[]) => `nd-${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 24)}`;

function describe(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string }; code?: string; response?: string };
  const cause = e.cause ? `: ${e.cause.code ?? e.cause.message ?? ''}` : '';
  return `${e.code ? `${e.code} ` : ''}${e.message ?? String(err)}${cause}`.slice(0, 500);
}

export interface Notifier {
  /** Queues the deliveries an alarm event calls for; answers how many were queued. */
  enqueue(facts: AlarmFacts): Promise<number>;
  /** Sends the raises held for an alarm that is annunciated again; answers how many. */
  release(r: Release): Promise<number>;
  /** Sends what is due now; answers how many deliveries were attempted. */
  drain(now?: Date): Promise<number>;
  /** Asks the worker to run soon (after an enqueue, a retry command). */
  wake(): void;
  stop(): Promise<void>;
}

declare module '../../kernel/context.js' {
  interface Services {
    /** The notification worker (notifications runtime). */
    notifier?: Notifier;
  }
}

/** The enabled rules of a tenant: read for every alarm event (src/db/prepared.ts: built once). */
const enabledRules = preparedQuery<{ tenant: string; enabled: boolean }, RuleRow[]>((db, orm, p) => orm.select().from(tableOf(ruleRecord.table, db))
  .where(and(eq(colOf(ruleRecord.table, db, 'tenant_id'), p('tenant')), eq(colOf(ruleRecord.table, db, 'enabled'), p('enabled')))));

export function createNotifier(services: Services): Notifier {
  const stores = () => ({
    channels: storeFor<ChannelRow>(services.db, channelRecord.table),
    deliveries: storeFor<DeliveryRow>(services.db, deliveryRecord.table),
  });
  const dc = (n: string) => colOf(deliveryRecord.table, services.db, n);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = false;
  let notReady = false;

  const audit = (row: DeliveryRow, result: 'success' | 'error', details: Record<string, unknown>) => services.audit.record({
    actor: 'system:notifications', action: 'notification.deliver', resource: 'notification-deliveries', result, tenant_id: row.tenant_id,
    correlation_id: row.alarm_id,
    details: { id: row.id, alarm_id: row.alarm_id, event: row.event, rule_id: row.rule_id, channel_id: row.channel_id, kind: row.kind, recipient: row.recipient, attempt: row.attempts, ...details },
  });

  const idOf = (rule: RuleRow, facts: AlarmFacts, event: string, level: number, recipient: string) =>
    deliveryId([rule.id, facts.tenant_id, facts.site_id ?? '', facts.id, event, String(level), recipient]);

  /**
   * An acknowledgement or clear for a recipient who was never told: every raise and escalation of
   * the alarm this rule queued for them was suppressed (none at all: the rule came later, or the
   * master skipped an old raise; then it is told as before).
   */
  async function neverTold(rule: RuleRow, facts: AlarmFacts, recipient: string): Promise<Suppression | null> {
    const told = (await services.db.orm.select({ status: dc('status'), suppressed: dc('suppressed') }).from(tableOf(deliveryRecord.table, services.db))
      .where(and(eq(dc('alarm_id'), facts.id), eq(dc('rule_id'), rule.id), eq(dc('tenant_id'), facts.tenant_id), eq(dc('recipient'), recipient), inArray(dc('event'), ['raised', 'escalated'])))) as { status: string; suppressed: Suppression | null }[];
    if (!told.length || told.some((d) => d.status !== 'suppressed')) return null;
    return told[0]!.suppressed ?? 'out_of_service';
  }

  async function enqueue(facts: AlarmFacts): Promise<number> {
    const { channels, deliveries } = stores();
    const candidates = await enabledRules(services.db, { tenant: facts.tenant_id, enabled: true });
    let queued = 0;
    const now = new Date();
    const news = facts.event === 'raised' || facts.event === 'escalated';
    for (const rule of candidates.filter((r) => matches(r, facts))) {
      const channel = await channels.find({ id: rule.channel_id, tenant_id: rule.tenant_id });
      if (!channel || !channel.enabled) continue;
      // Written once, at the event, in the channel's language (its own, else the site's): what is sent and listed later is this text.
      const message = compose(facts, { name: channel.site_name ?? facts.site_id ?? facts.tenant_id, link: channel.link_url }, services.config, channelTranslator(services, channel), now);
      const recipients = channel.kind === 'webhook' ? [shownUrl(channel.webhook_url ?? '')] : rule.recipients.length ? rule.recipients : channel.recipients;
      for (const recipient of recipients) {
        const suppressed = news ? (facts.suppressed ?? null) : await neverTold(rule, facts, recipient);
        const row: DeliveryRow = {
          id: idOf(rule, facts, facts.event, facts.escalation_level, recipient),
          tenant_id: facts.tenant_id, site_id: facts.site_id, rule_id: rule.id, channel_id: channel.id, kind: channel.kind, recipient,
          alarm_id: facts.id, event: facts.event, escalation_level: facts.escalation_level, priority: facts.priority, severity: facts.severity,
          subject: message.subject, text: message.text, payload: message.payload, status: suppressed ? 'suppressed' : 'pending', suppressed, attempts: 0,
          next_attempt_at: suppressed ? null : now.toISOString(), claimed_until: null, last_error: null, created_at: now.toISOString(), sent_at: null, updated_at: now.toISOString(),
        };
        // Listed, never sent: the deliveries say who was not told and why.
        if (await deliveries.insert(row) && !suppressed) queued++;
      }
    }
    if (queued) wake();
    return queued;
  }

  async function release(r: Release): Promise<number> {
    const now = new Date().toISOString();
    const freed = (await services.db.orm.update(tableOf(deliveryRecord.table, services.db))
      .set({ status: 'pending', suppressed: null, next_attempt_at: now, updated_at: now } as never)
      .where(and(eq(dc('alarm_id'), r.alarm_id), eq(dc('tenant_id'), r.tenant_id), r.site_id === null ? isNull(dc('site_id')) : eq(dc('site_id'), r.site_id), eq(dc('event'), 'raised'), eq(dc('status'), 'suppressed')))
      .returning()) as DeliveryRow[];
    if (freed.length) {
      services.log.info('held alarm notifications released: the alarm is annunciated again', { alarm: r.alarm_id, deliveries: freed.length });
      wake();
    }
    return freed.length;
  }

  /** Takes the delivery for this process until CLAIM_MS from now, unless another has it. */
  async function claim(id: string, now: Date): Promise<DeliveryRow | undefined> {
    const [row] = (await services.db.orm.update(tableOf(deliveryRecord.table, services.db))
      .set({ claimed_until: new Date(now.getTime() + CLAIM_MS).toISOString() } as never)
      .where(and(eq(dc('id'), id), eq(dc('status'), 'pending'), or(isNull(dc('claimed_until')), lt(dc('claimed_until'), now.toISOString()))))
      .returning()) as DeliveryRow[];
    return row;
  }

  async function attempt(row: DeliveryRow): Promise<void> {
    const { channels, deliveries } = stores();
    const attempts = row.attempts + 1;
    const channel = await channels.find({ id: row.channel_id, tenant_id: row.tenant_id });
    let error: string | undefined;
    try {
      if (!channel) throw new Error(`channel ${row.channel_id} no longer exists`);
      if (!channel.enabled) throw new Error(`channel ${row.channel_id} is disabled`);
      const secret = channel.secret_enc ? openSecret(services.sessions, channel.secret_enc) : null;
      // On the master, a name that resolves into its own network is refused before any connection.
      const target = channelHost(channel);
      if (target) await checkTarget(services.config, target.host, channel.kind === 'email' ? 'the SMTP server' : 'the webhook host');
      if (channel.kind === 'email') await sendEmail(channel, secret, row.recipient, row.subject, row.text);
      else await sendWebhook(channel, secret ?? '', row.id, row.payload);
    } catch (err) {
      error = describe(err);
    }
    const failedAt = new Date();
    const at = failedAt.toISOString();
    if (error === undefined) {
      const saved = await deliveries.update({ id: row.id }, { status: 'sent', attempts, sent_at: at, next_attempt_at: null, claimed_until: null, last_error: null, updated_at: at });
      await audit(saved ?? row, 'success', { status: 'sent', attempt: attempts });
      return;
    }
    const spent = attempts >= (channel?.retry_max_attempts ?? 1);
    const next = spent ? null : new Date(failedAt.getTime() + backoffMs(channel?.retry_base_ms ?? 30_000, attempts)).toISOString();
    const saved = await deliveries.update({ id: row.id }, { status: spent ? 'failed' : 'pending', attempts, next_attempt_at: next, claimed_until: null, last_error: error, updated_at: at });
    await audit(saved ?? row, 'error', { status: spent ? 'failed' : 'retrying', attempt: attempts, error, next_attempt_at: next });
    services.log.warn(spent ? 'notification failed; no attempts left' : 'notification attempt failed; will retry', { delivery: row.id, kind: row.kind, attempt: attempts, error, next_attempt_at: next });
  }

  async function drain(now = new Date()): Promise<number> {
    let done = 0;
    for (;;) {
      const due = (await services.db.orm.select({ id: dc('id') }).from(tableOf(deliveryRecord.table, services.db))
        .where(and(eq(dc('status'), 'pending'), lte(dc('next_attempt_at'), now.toISOString())))
        .orderBy(asc(dc('next_attempt_at'))).limit(BATCH)) as { id: string }[];
      let claimed = 0;
      for (const { id } of due) {
        if (stopped) return done;
        const row = await claim(id, now);
        if (!row) continue;
        claimed++;
        await attempt(row);
        done++;
      }
      if (due.length < BATCH || claimed === 0) return done;
    }
  }

  /** When the next pending delivery falls due (or in 30 s, to pick up work queued by another process). */
  async function nextDue(): Promise<number> {
    const [row] = (await services.db.orm.select({ at: dc('next_attempt_at') }).from(tableOf(deliveryRecord.table, services.db))
      .where(eq(dc('status'), 'pending')).orderBy(asc(dc('next_attempt_at'))).limit(1)) as { at: string | null }[];
    const wait = row?.at ? Date.parse(row.at) - Date.now() : 30_000;
    return Math.max(10, Math.min(30_000, wait));
  }

  function schedule(ms: number) {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref();
  }

  function run() {
    if (stopped) return;
    if (running) { again = true; return; }
    running = (async () => {
      try {
        notReady = services.lifecycle.state !== 'ready';
        if (notReady) return 0;
        return await drain();
      } catch (err) {
        services.log.error('notification pass failed', { error: (err as Error).message });
        return 0;
      }
    })();
    void running.then(async () => {
      running = undefined;
      if (again || notReady) { again = false; schedule(notReady ? 500 : 0); return; }
      try { schedule(await nextDue()); } catch { schedule(30_000); }
    });
  }

  function wake() { schedule(0); }

  return {
    enqueue,
    release,
    drain,
    wake,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
