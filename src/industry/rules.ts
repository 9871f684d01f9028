// The rule engine of the industry workspaces: alarm rules are data, evaluated against readings,
// raising and clearing through the one alarm service (alarm-service.ts). Poultry climate and
// feed/water, swine climate and any other industry use it the same way:
//
//   const rules = createRuleEngine(services, { table: myRuleStates.table, industry_code: 'swine' });
//   await rules.evaluate({ tenant_id, unit_id, metrics: { temp_c: 27.4 }, limits: { temp_max_c: 26 }, ... }, RULES);
//   await rules.tick();          // on a schedule: raises breaches whose hold time has passed
//
// A rule: `metric` `comparator` `threshold` (a number, or the name of a limit sent with the
// readings, e.g. the CO2 maximum of the profile in force), with
//   hysteresis  a raised (or pending) breach ends only once the value is back past the threshold
//               by this much (gt/gte: value <= threshold - hysteresis; lt/lte: >= threshold + h),
//               so a value hovering at the limit does not raise, clear and raise again;
//   hold_sec    the breach must last this long before it is raised (0 = at once); the start of
//               the breach is kept in SQL, so the hold survives a restart and the scheduler's
//               tick() raises it even when no new reading arrives;
//   severity, priority (P1|P2), sla_target_sec, title: what the raised alarm event carries;
//   latched     the raised alarm stays active after the value returns, until an admin reset.
//
// Per unit (house, room, field) and rule, the state is normal -> pending -> raised -> normal; it
// lives in a table of the industry's module (defineRuleStateRecord), one row per unit and rule,
// written only when something changed (a steady normal reading costs one SELECT per unit).
// A reading without the rule's metric (or limit) leaves the rule's state as it is.
import * as v from 'valibot';
import { and, eq, lte, sql } from 'drizzle-orm';
import { defineRecord } from '../kernel/record.js';
import type { Services } from '../kernel/context.js';
import type { SqliteStatement } from '../db/client.js';
import type { NeutralTable } from '../db/table.js';
import { colOf, tableOf } from '../db/sql.js';
import { INDUSTRY_SEVERITIES, PRIORITIES, type AlarmEventRow, type IndustrySeverity, type Priority } from './alarm-schema.js';
import type { BoxText, TextParams } from './box-text.js';

export const COMPARATORS = ['gt', 'gte', 'lt', 'lte'] as const;
export type Comparator = (typeof COMPARATORS)[number];

export interface AlarmRule {
  /** Stable id; the alarm events carry it as rule_id (e.g. "climate:temp_high"). */
  id: string;
  metric: string;
  comparator: Comparator;
  /** A number, or the name of a limit supplied with the readings. */
  threshold: number | string;
  /** Added to the threshold (e.g. threshold target_temp_c, offset 5: five degrees above the target). */
  offset?: number;
  hysteresis?: number;
  hold_sec?: number;
  severity: IndustrySeverity;
  priority: Priority;
  sla_target_sec: number;
  title: string;
  /**
   * The box's own rules: the key of the raised alarm's title (box.rule.*, "{unit noun} {unit}:
   * ..."), with title_params; title is its English. A rule a person wrote (a profile's) has none:
   * its alarm's title is box.rule.custom.title with the rule's title as it was typed.
   */
  title_key?: string;
  title_params?: Record<string, string | number>;
  /** Only these units (houses, rooms); absent = every unit. */
  unit_ids?: string[];
  /**
   * The alarm it raises is latched: when the value returns it stays active (returned_at set)
   * until an admin resets it (docs/alarms.md, Latched alarms and reset). For conditions a person
   * must see even when they passed, e.g. a freezing room overnight.
   */
  latched?: boolean;
}

const ruleId = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100), v.regex(/^[A-Za-z0-9:._-]+$/, 'letters, digits and : . _ -'));
/** Validates rules given as data (profiles, request bodies). */
export const alarmRuleSchema = v.strictObject({
  id: ruleId,
  metric: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  comparator: v.picklist(COMPARATORS),
  threshold: v.union([v.pipe(v.number(), v.finite()), v.pipe(v.string(), v.minLength(1), v.maxLength(100))]),
  offset: v.optional(v.pipe(v.number(), v.finite())),
  hysteresis: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0))),
  hold_sec: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(86_400))),
  severity: v.picklist(INDUSTRY_SEVERITIES),
  priority: v.picklist(PRIORITIES),
  sla_target_sec: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(30 * 86_400)),
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(300)),
  unit_ids: v.optional(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(100)))),
  latched: v.optional(v.boolean()),
});

export const RULE_STATES = ['normal', 'pending', 'raised'] as const;
export type RuleState = (typeof RULE_STATES)[number];

/** The rule state table of an industry module (e.g. 'poultry_rule_states'); add it to the module's tables. */
export function defineRuleStateRecord(name: string) {
  return defineRecord(name, {
    tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
    industry_code: { type: 'string', label: 'Industry', readOnly: true },
    unit_id: { type: 'string', label: 'Unit', readOnly: true },
    rule_id: { type: 'string', label: 'Rule', readOnly: true },
    site_id: { type: 'string', label: 'Site', nullable: true },
    batch_id: { type: 'string', label: 'Batch', nullable: true },
    state: { type: 'string', label: 'State', enum: RULE_STATES },
    breach_since: { type: 'datetime', label: 'Breached since', nullable: true },
    last_value: { type: 'number', label: 'Last value', nullable: true },
    threshold_value: { type: 'number', label: 'Threshold', nullable: true },
    rule: { type: 'object', label: 'Rule', description: 'The rule as evaluated (tick raises with it).' },
    correlation_id: { type: 'string', label: 'Correlation id', nullable: true },
    actor: { type: 'string', label: 'Actor', nullable: true },
    alarm_id: { type: 'string', label: 'Alarm', nullable: true },
    hold_until: { type: 'datetime', label: 'Raise at', nullable: true, description: 'When a pending breach is raised if it lasts.' },
    updated_at: { type: 'datetime', label: 'Updated' },
  }, {
    primaryKey: ['tenant_id', 'industry_code', 'unit_id', 'rule_id'],
    indexes: [{ name: `${name}_due`, columns: ['state', 'hold_until'] }],
  });
}
type RuleStateRecord = ReturnType<typeof defineRuleStateRecord>;
export type RuleStateRow = RuleStateRecord['row'];

export interface RuleReading {
  tenant_id: string;
  site_id?: string | null;
  unit_id: string;
  batch_id?: string | null;
  /** Values by metric name; null/undefined = not measured in this reading. */
  metrics: Record<string, number | null | undefined>;
  /** Named thresholds rules may refer to (the profile in force). */
  limits?: Record<string, number | null | undefined>;
  at?: Date;
  correlation_id?: string | null;
  /** Who or what supplied the reading (subject, or "poultry-rules" for the scheduler). */
  actor: string;
  /**
   * How the reading came. A `manual` one (typed in by a person) may raise a condition but never
   * ends one: a condition is seen to end only by a device, a publisher or an integration.
   */
  source?: 'device' | 'mqtt' | 'api' | 'manual';
  /** Extra details stored on a raised alarm event. */
  details?: Record<string, unknown>;
}

export interface RuleOutcome {
  rule_id: string;
  metric: string;
  value: number | null;
  threshold: number | null;
  breached: boolean;
  state: RuleState;
  /** What this evaluation did. */
  action: 'none' | 'pending' | 'raised' | 'cleared' | 'skipped';
  alarm?: AlarmEventRow;
}

export interface RuleEngine {
  evaluate(reading: RuleReading, rules: readonly AlarmRule[]): Promise<RuleOutcome[]>;
  /** Raises every pending breach whose hold time has passed at `now`; returns how many. */
  tick(now?: Date): Promise<number>;
}

const compare = (c: Comparator, value: number, t: number) => (c === 'gt' ? value > t : c === 'gte' ? value >= t : c === 'lt' ? value < t : value <= t);
/** Back to normal: past the threshold by the hysteresis, on the safe side. */
const recovered = (c: Comparator, value: number, t: number, h: number) => (c === 'gt' || c === 'gte' ? value <= t - h : value >= t + h);

export function thresholdOf(rule: AlarmRule, limits: RuleReading['limits']): number | null {
  const base = typeof rule.threshold === 'number' ? rule.threshold : limits?.[rule.threshold];
  return typeof base === 'number' && Number.isFinite(base) ? base + (rule.offset ?? 0) : null;
}

/**
 * The rules this one reading is beyond, by the comparator alone (no hysteresis, no hold time):
 * what a reading's status says. Whether an alarm is raised is evaluate()'s decision.
 */
export function breaches(rules: readonly AlarmRule[], unitId: string, metrics: RuleReading['metrics'], limits: RuleReading['limits']): AlarmRule[] {
  return rules.filter((rule) => {
    if (rule.unit_ids && !rule.unit_ids.includes(unitId)) return false;
    const value = metrics[rule.metric];
    const threshold = thresholdOf(rule, limits);
    return typeof value === 'number' && Number.isFinite(value) && threshold !== null && compare(rule.comparator, value, threshold);
  });
}

/** Rules in force: the defaults with a site's rules of the same id replacing them, and its new ones added. */
export function mergeRules(base: readonly AlarmRule[], overrides: readonly AlarmRule[]): AlarmRule[] {
  const byId = new Map(base.map((r) => [r.id, r]));
  for (const r of overrides) {
    // A profile's rule that keeps the box's title keeps its key (its alarms read in each reader's language).
    const own = byId.get(r.id);
    byId.set(r.id, own?.title_key && !r.title_key && own.title === r.title ? { ...r, title_key: own.title_key, ...(own.title_params ? { title_params: own.title_params } : {}) } : r);
  }
  return [...byId.values()];
}

/** The out-of-norm flag a rule stands for: its id after the last ':' ("climate:temp_high" -> temp_high). */
export const flagOf = (rule: Pick<AlarmRule, 'id'>): string => rule.id.slice(rule.id.lastIndexOf(':') + 1);

/** An alarm's title in the operator's words: what the unit is, which one, what happened. */
export const unitTitle = (noun: string, unitId: string, text: string): string => `${noun} ${unitId}: ${text}`;

/**
 * A rule's alarm as the box's text: the title (its key, or box.rule.custom.title around the rule's
 * typed title) and the message "temp 38 gt 31 for 120 s" (box.rule.message), with their data.
 */
export function ruleText(industry: string, unitId: string, rule: Pick<AlarmRule, 'title' | 'title_key' | 'title_params' | 'metric' | 'comparator' | 'hold_sec'>, value: number | null, limit: number | null): BoxText {
  const params: TextParams = {
    industry, unit: unitId, metric: rule.metric, value, comparator: rule.comparator, limit, hold_sec: rule.hold_sec ?? 0, ...rule.title_params,
  };
  return rule.title_key
    ? { title_key: rule.title_key, message_key: 'box.rule.message', params }
    : { title_key: 'box.rule.custom.title', message_key: 'box.rule.message', params: { ...params, text: rule.title } };
}

/** A PostgreSQL builder's prepare(name) and what it answers (the SQLite builder's takes no name). */
interface PreparedQuery { execute(params: Record<string, unknown>): Promise<unknown> }
interface Preparable { prepare(name: string): PreparedQuery }

/** `unit` names what unit_id identifies ("House", "Room"): an alarm's title starts with it. */
export function createRuleEngine(services: Services, opts: { table: NeutralTable; industry_code: AlarmEventRow['industry_code']; source: string; unit: string }): RuleEngine {
  const { table, industry_code, source, unit } = opts;
  const c = (n: string) => colOf(table, services.db, n);
  const t = () => tableOf(table, services.db);

  /**
   * The alarm first, then the rule's state: a rule is marked raised only once its alarm is stored.
   * An alarm that cannot be raised leaves the rule pending and due at once, so the scheduler's
   * next pass tries again, and says so (log and the status stream: alarm_raise_failed). raise is
   * idempotent per rule and unit, so a stop between the alarm and the state heals at the next
   * reading or pass (it finds the open alarm).
   */
  const raise = async (row: RuleStateRow, rule: AlarmRule, now: Date, details: Record<string, unknown> = {}): Promise<AlarmEventRow | undefined> => {
    try {
      return await raiseAlarm(row, rule, now, details);
    } catch (err) {
      const error = (err as Error).message;
      services.log.error('an alarm rule could not raise its alarm; retried at the next pass', { rule_id: rule.id, unit_id: row.unit_id, industry_code, error });
      await services.status?.publish({
        tenant_id: row.tenant_id, site_id: row.site_id, source: `${industry_code}-rules`, event: 'alarm_raise_failed', status: 'error', correlation_id: row.correlation_id,
        details: { rule_id: rule.id, unit_id: row.unit_id, title: unitTitle(unit, row.unit_id, rule.title), error },
      }).catch(() => undefined);
      return undefined;
    }
  };
  const raiseAlarm = async (row: RuleStateRow, rule: AlarmRule, now: Date, details: Record<string, unknown>) => {
    const { event } = await services.industryAlarms.raise({
      tenant_id: row.tenant_id, site_id: row.site_id, industry_code, unit_id: row.unit_id, batch_id: row.batch_id,
      rule_id: rule.id, metric: rule.metric, value: row.last_value, severity: rule.severity, priority: rule.priority,
      sla_target_sec: rule.sla_target_sec, source, text: ruleText(industry_code, row.unit_id, rule, row.last_value, row.threshold_value),
      correlation_id: row.correlation_id, actor: row.actor ?? source, now, latched: rule.latched === true,
      details: { ...details, comparator: rule.comparator, threshold: row.threshold_value, hysteresis: rule.hysteresis ?? 0, hold_sec: rule.hold_sec ?? 0, breach_since: row.breach_since },
    });
    return event;
  };

  // Every reading reads its unit's states: one statement prepared once instead of a query built
  // and prepared per reading (on SQLite the statement's rows decoded here as Drizzle would; on
  // PostgreSQL a named prepared statement). Inside a transaction PostgreSQL needs the
  // transaction's connection, so the query is built there. The stored rule (JSON) is not read on
  // SQLite: the evaluation writes the rule in force, never the stored one, and decoding it was a
  // JSON.parse per rule state per reading.
  type StoredState = Omit<RuleStateRow, 'rule'>;
  const stateColumns = Object.keys(table.columns).filter((name) => name !== 'rule');
  const jsonColumns = Object.entries(table.columns).filter(([name, spec]) => spec.kind === 'json' && name !== 'rule').map(([name]) => name);
  let sqliteStates: SqliteStatement | undefined;
  let pgStates: PreparedQuery | undefined;
  const statesOf = async (tenant: string, unitId: string): Promise<StoredState[]> => {
    const db = services.db;
    if (db.prepareSqlite) {
      sqliteStates ??= db.prepareSqlite(`select ${stateColumns.map((n) => `"${n}"`).join(', ')} from "${table.name}" where "tenant_id" = ? and "industry_code" = ? and "unit_id" = ?`);
      const rows = sqliteStates.all(tenant, industry_code, unitId) as Record<string, unknown>[];
      for (const row of rows) for (const name of jsonColumns) if (typeof row[name] === 'string') row[name] = JSON.parse(row[name]);
      return rows as StoredState[];
    }
    const where = (tenantValue: unknown, unitValue: unknown) => and(eq(c('tenant_id'), tenantValue), eq(c('industry_code'), industry_code), eq(c('unit_id'), unitValue));
    if (db.inTransaction()) return (await db.orm.select().from(t()).where(where(tenant, unitId))) as RuleStateRow[];
    pgStates ??= (db.baseOrm.select().from(t()).where(where(sql.placeholder('tenant'), sql.placeholder('unit'))) as unknown as Preparable).prepare(`${table.name}_unit_states`);
    return (await pgStates.execute({ tenant, unit: unitId })) as RuleStateRow[];
  };

  // A state changes on a few readings of many (pending, raised, cleared, and while pending or
  // raised). On SQLite two statements prepared once, run at once when no transaction of anyone is
  // open on the one connection (the single statement commits by itself, nothing interleaves),
  // else under the writer lock, so the write never lands in another caller's transaction.
  const key = table.primaryKey;
  const columns = Object.entries(table.columns);
  const rest = columns.map(([name]) => name).filter((name) => !key.includes(name));
  let sqliteUpdate: SqliteStatement | undefined;
  let sqliteUpsert: SqliteStatement | undefined;
  const saveSqlite = (prepare: (text: string) => SqliteStatement, row: RuleStateRow, exists: boolean) => {
    const value = (name: string) => {
      const v = (row as Record<string, unknown>)[name];
      return v === undefined || v === null ? null : table.columns[name]?.kind === 'json' ? JSON.stringify(v) : v;
    };
    if (exists) {
      sqliteUpdate ??= prepare(`update "${table.name}" set ${rest.map((n) => `"${n}" = ?`).join(', ')} where ${key.map((n) => `"${n}" = ?`).join(' and ')}`);
      sqliteUpdate.run(...rest.map(value), ...key.map(value));
    } else {
      sqliteUpsert ??= prepare(`insert into "${table.name}" (${columns.map(([n]) => `"${n}"`).join(', ')}) values (${columns.map(() => '?').join(', ')}) `
        + `on conflict (${key.map((n) => `"${n}"`).join(', ')}) do update set ${rest.map((n) => `"${n}" = excluded."${n}"`).join(', ')}`);
      sqliteUpsert.run(...columns.map(([n]) => value(n)));
    }
  };
  const save = async (row: RuleStateRow, exists: boolean) => {
    const db = services.db;
    const prepare = db.prepareSqlite;
    if (prepare) {
      if (db.writerIdle?.()) saveSqlite(prepare, row, exists);
      else await db.transaction(async () => saveSqlite(prepare, row, exists));
      return;
    }
    await saveOrm(row, exists);
  };
  // PostgreSQL: a statement outside a transaction runs on a pool connection of its own, so it
  // needs no transaction of its own either.
  const saveOrm = async (row: RuleStateRow, exists: boolean) => {
    if (exists) {
      await services.db.orm.update(t()).set(row as never).where(and(
        eq(c('tenant_id'), row.tenant_id), eq(c('industry_code'), row.industry_code), eq(c('unit_id'), row.unit_id), eq(c('rule_id'), row.rule_id),
      ));
    } else {
      await services.db.orm.insert(t()).values(row as never).onConflictDoUpdate({ target: [c('tenant_id'), c('industry_code'), c('unit_id'), c('rule_id')] as never, set: row as never });
    }
  };

  /** Raised with its alarm; without one, pending and due now (the scheduler retries it). */
  const raisedOrDue = (next: RuleStateRow, alarm: AlarmEventRow | undefined, now: Date): RuleOutcome['action'] => {
    if (alarm) {
      Object.assign(next, { state: 'raised', hold_until: null, alarm_id: alarm.id });
      return 'raised';
    }
    Object.assign(next, { state: 'pending', hold_until: now.toISOString(), alarm_id: null });
    return 'pending';
  };

  return {
    async evaluate(reading, rules) {
      const now = reading.at ?? new Date();
      const existing = await statesOf(reading.tenant_id, reading.unit_id);
      const byRule = new Map(existing.map((r) => [r.rule_id, r]));
      const outcomes: RuleOutcome[] = [];
      for (const rule of rules) {
        if (rule.unit_ids && !rule.unit_ids.includes(reading.unit_id)) continue;
        const raw = reading.metrics[rule.metric];
        const value = typeof raw === 'number' && Number.isFinite(raw) ? raw : null;
        const threshold = thresholdOf(rule, reading.limits);
        const prev = byRule.get(rule.id);
        const state: RuleState = prev?.state ?? 'normal';
        if (value === null || threshold === null) {
          outcomes.push({ rule_id: rule.id, metric: rule.metric, value, threshold, breached: false, state, action: 'skipped' });
          continue;
        }
        const breached = compare(rule.comparator, value, threshold);
        if (state === 'normal' && !breached) {
          // Steady and normal, the case of most readings: nothing to write, nothing to build.
          outcomes.push({ rule_id: rule.id, metric: rule.metric, value, threshold, breached, state, action: 'none' });
          continue;
        }
        // A typed reading back in range ends nothing: the equipment's own readings must show it.
        const back = reading.source !== 'manual' && recovered(rule.comparator, value, threshold, rule.hysteresis ?? 0);
        const base: StoredState = prev ?? {
          tenant_id: reading.tenant_id, industry_code, unit_id: reading.unit_id, rule_id: rule.id, site_id: reading.site_id ?? null,
          batch_id: reading.batch_id ?? null, state: 'normal', breach_since: null, last_value: null, threshold_value: null,
          correlation_id: null, actor: null, alarm_id: null, hold_until: null, updated_at: now.toISOString(),
        };
        const next: RuleStateRow = {
          ...base, site_id: reading.site_id ?? base.site_id, batch_id: reading.batch_id ?? base.batch_id, last_value: value, threshold_value: threshold,
          rule: { ...rule }, updated_at: now.toISOString(), actor: reading.actor, correlation_id: reading.correlation_id ?? base.correlation_id,
        };
        let action: RuleOutcome['action'] = 'none';
        let alarm: AlarmEventRow | undefined;
        if (state === 'normal' && breached) {
          const hold = rule.hold_sec ?? 0;
          next.breach_since = now.toISOString();
          next.correlation_id = reading.correlation_id ?? null;
          if (hold > 0) {
            next.state = 'pending';
            next.hold_until = new Date(now.getTime() + hold * 1000).toISOString();
            action = 'pending';
          } else {
            alarm = await raise(next, rule, now, reading.details);
            action = raisedOrDue(next, alarm, now);
          }
        } else if (state === 'pending' && back) {
          Object.assign(next, { state: 'normal', breach_since: null, hold_until: null });
        } else if (state === 'pending' && next.hold_until && Date.parse(next.hold_until) <= now.getTime()) {
          alarm = await raise(next, rule, now, reading.details);
          action = raisedOrDue(next, alarm, now);
        } else if (state === 'raised' && back) {
          await services.industryAlarms.clear({ tenant_id: reading.tenant_id, industry_code, unit_id: reading.unit_id, rule_id: rule.id, actor: reading.actor, now });
          Object.assign(next, { state: 'normal', breach_since: null, hold_until: null, alarm_id: null });
          action = 'cleared';
        }
        await save(next, Boolean(prev));
        outcomes.push({ rule_id: rule.id, metric: rule.metric, value, threshold, breached, state: next.state, action, ...(alarm ? { alarm } : {}) });
      }
      return outcomes;
    },

    async tick(now = new Date()) {
      const due = (await services.db.orm.select().from(t()).where(and(
        eq(c('state'), 'pending'), lte(c('hold_until'), now.toISOString()),
      )).limit(500)) as RuleStateRow[];
      let raised = 0;
      for (const row of due) {
        const rule = row.rule as unknown as AlarmRule;
        // Raised as of the moment the hold time completed (also when the box was down then), so
        // the SLA counts from when the condition was confirmed, not from when the pass ran.
        const alarm = await raise(row, rule, new Date(Math.min(now.getTime(), Date.parse(row.hold_until ?? now.toISOString()))), { raised_by: 'scheduler' });
        // Not raised: it stays pending and due, and the next pass tries again.
        if (!alarm) continue;
        // Conditional on still pending: a reading that ended the breach meanwhile wins.
        const done = await services.db.orm.update(t()).set({ state: 'raised', hold_until: null, alarm_id: alarm.id, updated_at: now.toISOString() } as never).where(and(
          eq(c('tenant_id'), row.tenant_id), eq(c('industry_code'), row.industry_code), eq(c('unit_id'), row.unit_id), eq(c('rule_id'), row.rule_id), eq(c('state'), 'pending'),
        )).returning();
        if ((done as unknown[]).length) raised++;
      }
      return raised;
    },
  };
}

export interface RuleScheduler {
  /** One pass now (tests, start-up). */
  tick(now?: Date): Promise<number>;
  stop(): void;
}

/**
 * Runs `pass` every `intervalMs` on the box by itself (no cloud, no person), never two passes at
 * once; the first pass runs at start, so what fell due while the box was down is handled.
 */
export function startRuleScheduler(services: Services, intervalMs: number, pass: (now: Date) => Promise<number>): RuleScheduler {
  let running: Promise<number> | undefined;
  const tick = async (now = new Date()) => (services.lifecycle.state === 'ready' ? pass(now) : 0);
  const run = () => {
    if (running) return;
    running = tick().catch((err: Error) => {
      services.log.error('rule evaluation pass failed', { error: err.message });
      return 0;
    }).finally(() => { running = undefined; });
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return { tick, stop: () => clearInterval(timer) };
}

