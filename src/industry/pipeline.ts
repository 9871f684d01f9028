// The one reading pipeline of the industry workspaces. Every climate reading (poultry house,
// swine room) goes the same way:
//
//   normalise  the industry's API names -> the canonical vocabulary (vocabulary.ts); the rule
//              engine sees both, so a rule may name `temp` (poultry's API) or `temp_c`;
//   judge      against the profile/phase in force (the industry's band: warn-level flags) AND
//              the alarm rules in force (the defaults with the site's overrides): a reading
//              beyond a rule in force is `alarm` and carries the rule's flag; other band flags are
//              `warn`; none is `ok`. So a site that loosens a rule stops getting `alarm` for what
//              the rule now allows, and one that tightens it gets `alarm` sooner: status and
//              alarms are decided by the same rules;
//   alarms     the rule engine (rules.ts) raises and clears through the one alarm service, with
//              its hysteresis and hold time per rule (a reading can be `alarm` while its rule is
//              pending: the hold time is about raising, not about judging);
//   store      the industry stores the reading with its status and flags (its table, its
//              roll-ups and live cards read from there).
//
// What is in force (phase, profile, rules) is the caller's to look up through in-force.ts, so a
// reading costs its INSERT, one SELECT of the unit's rule states and writes only on change.
import { isPasskeySubject } from '../auth/scope.js';
import type { Database } from '../db/client.js';
import { Store } from '../db/store.js';
import { appendGrouped } from '../db/group-commit.js';
import type { NeutralTable } from '../db/table.js';
import type { AlarmRule, RuleEngine, RuleOutcome } from './rules.js';
import { breaches, flagOf } from './rules.js';
import { toCanonical, type Industry, type Values } from './vocabulary.js';

export const READING_STATUSES = ['ok', 'warn', 'alarm'] as const;
export type ReadingStatus = (typeof READING_STATUSES)[number];

export interface Judged {
  status: ReadingStatus;
  out_of_norm_flags: string[];
  /** The rules in force this reading is beyond. */
  breached: AlarmRule[];
}

export interface PipelineReading {
  tenant_id: string;
  site_id: string | null;
  unit_id: string;
  batch_id?: string | null;
  at?: Date;
  /** The reading in the industry's API names. */
  values: Values;
  /** Flags of the band in force (the industry's judgement of the phase), before the rules. */
  band_flags: readonly string[];
  rules: readonly AlarmRule[];
  /** Named limits of the phase in force that rules refer to. */
  limits: Record<string, number>;
  correlation_id: string;
  actor: string;
  /** How the reading came (device, mqtt, api, manual); a manual one never ends a condition (rules.ts). */
  source?: ReadingSource;
  details?: Record<string, unknown>;
}

export const READING_SOURCES = ['device', 'mqtt', 'api', 'manual'] as const;
export type ReadingSource = (typeof READING_SOURCES)[number];

/**
 * The source of a reading sent through the API: `manual` when a person typed it, which is a
 * session opened with a card or a QR badge (its subject is the passkey id, PK-..., also after a
 * hand-off to a phone), `api` for an integration's token.
 */
export const apiReadingSource = (caller: { subject: string } | undefined): ReadingSource => (caller && isPasskeySubject(caller.subject) ? 'manual' : 'api');

/** The values a rule may name: the API names and the canonical ones. */
export function ruleMetrics(industry: Industry, values: Values): Values {
  return { ...toCanonical(industry, values), ...values };
}

/** Status and flags of one reading by the band in force and the rules in force. */
export function judgeReading(industry: Industry, r: Pick<PipelineReading, 'unit_id' | 'values' | 'band_flags' | 'rules' | 'limits'>): Judged {
  const breached = breaches(r.rules, r.unit_id, ruleMetrics(industry, r.values), r.limits);
  const flags = [...r.band_flags];
  for (const rule of breached) {
    const flag = flagOf(rule);
    if (!flags.includes(flag)) flags.push(flag);
  }
  return { status: breached.length ? 'alarm' : flags.length ? 'warn' : 'ok', out_of_norm_flags: flags, breached };
}

export interface ReadingPipeline {
  readonly industry: Industry;
  /** Judges the reading, runs the rules (raise/clear), then `store`s it with its judgement. */
  run<T>(reading: PipelineReading, store: (judged: Judged, outcomes: RuleOutcome[]) => Promise<T>): Promise<{ judged: Judged; outcomes: RuleOutcome[]; stored: T }>;
}

export function readingPipeline(industry: Industry, engine: RuleEngine): ReadingPipeline {
  return {
    industry,
    async run(reading, store) {
      const judged = judgeReading(industry, reading);
      const outcomes = await engine.evaluate({
        tenant_id: reading.tenant_id, site_id: reading.site_id, unit_id: reading.unit_id, batch_id: reading.batch_id ?? null,
        ...(reading.at ? { at: reading.at } : {}), metrics: ruleMetrics(industry, reading.values), limits: reading.limits,
        correlation_id: reading.correlation_id, actor: reading.actor, source: reading.source, details: { ...reading.details, out_of_norm_flags: judged.out_of_norm_flags },
      }, reading.rules);
      const stored = await store(judged, outcomes);
      return { judged, outcomes, stored };
    },
  };
}

/**
 * The INSERT of an industry's reading rows: its id is new by construction, so no lookup first,
 * and on SQLite one statement prepared once instead of a query built per reading. Readings that
 * arrive together share one commit (src/db/group-commit.ts); the promise settles once the
 * reading's transaction has committed, so the answer to its sender still means "stored". Inside
 * a caller's transaction the row goes into that transaction.
 */
export function readingWriter<Row extends Record<string, unknown>>(table: NeutralTable): (db: Database, row: Row, opts?: { gatherMs?: number }) => Promise<void> {
  const stores = new WeakMap<Database, Store<Row>>();
  return (db, row, opts) => {
    let s = stores.get(db);
    if (!s) stores.set(db, (s = new Store<Row>(db, table)));
    return appendGrouped(db, s, row, opts);
  };
}

/**
 * How long a reading may wait for others to share its commit: a device poll's or an MQTT
 * reading (nobody waits for an answer) as long as a telemetry point (telemetry_flush_ms: fewer
 * commits, less flash wear); a reading sent through the API (its client waits) not at all.
 */
export function readingGather(source: ReadingSource | undefined, config: { telemetry_flush_ms: number }): { gatherMs: number } {
  return { gatherMs: source === 'device' || source === 'mqtt' ? config.telemetry_flush_ms : 0 };
}
