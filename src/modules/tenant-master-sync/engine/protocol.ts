// What the edge and the master say to each other, over the ordinary HTTP API with a session
// opened by the site's passkey credential (POST /api/v1/site-sync/commands/push and /pull).
// Both bodies carry the box's own report of its outbox, so the master's sync record shows
// pending counts and lag computed from the real outbox, even while pushing is paused.
import * as v from 'valibot';
import type { VersionPolicyRow } from '../../version-policies/schema.js';
import type { ProfileRow } from '../../../industry/profiles.js';
import type { SyncMode } from '../schema.js';
import { heldSchema } from './held.js';

export const EVENT_KINDS = ['alarm', 'status', 'audit', 'telemetry', 'heartbeat'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Largest push the edge builds (events and bytes); the master refuses more events than this. */
export const PUSH_MAX_EVENTS = 2000;
export const PUSH_MAX_BYTES = 512 * 1024;

const short = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
/** Not strict, like held: a later box may report more. */
export const versionsSchema = v.object({
  app: short,
  modules: v.pipe(v.array(v.object({ id: short, version: short, industry_code: v.optional(v.nullable(short), null) })), v.maxLength(500)),
});
export type ReportedVersions = v.InferOutput<typeof versionsSchema>;

/**
 * The box's update report (module `updates` on the box; the steps of its state file): where its
 * self-update stands. Sent in every push and pull; the master keeps it on the site's sync record
 * (sync-sites: running/target/previous version, step, progress, reason, at) and counts it for the
 * release's rollout. Not strict: a later box may report more; a step this master does not know is
 * kept as it is. Steps: idle, downloading, verified, waiting_for_window, installing, proving, done,
 * rolled_back, failed.
 */
export const updateStateSchema = v.object({
  step: v.pipe(v.string(), v.minLength(1), v.maxLength(32)),
  target_version: v.optional(v.nullable(short), null),
  previous_version: v.optional(v.nullable(short), null),
  /** 0..1: the download's progress while downloading; 1 once verified. */
  progress: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1)), 0),
  /** Why the box is where it is, in English words (shown on the master); null when nothing to say. */
  reason: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(1000))), null),
  /** A stable code of the reason (no_release_key, bad_signature, proof_timeout, ...). */
  reason_code: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(64))), null),
  /** When the box entered the step. */
  at: v.pipe(v.string(), v.isoTimestamp()),
  /** The box's Debian architecture (amd64, arm64): the master offers the package of this arch. */
  arch: short,
  /** The master's rollout the update belongs to, as the pull answer named it. */
  rollout_id: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(100))), null),
});
export type UpdateStateReport = v.InferOutput<typeof updateStateSchema>;

const report = {
  /** Events left in the outbox after this request's events. */
  remaining: v.pipe(v.number(), v.integer(), v.minValue(0)),
  oldest_remaining_at: v.optional(v.nullable(v.pipe(v.string(), v.isoTimestamp()))),
  /** The master-owned state the box has applied (the revision of the last pull it applied). */
  down_revision: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(100)))),
  /** Round trip of the box's previous request, as it measured it. */
  rtt_ms: v.optional(v.nullable(v.pipe(v.number(), v.minValue(0), v.maxValue(3_600_000)))),
  industry_code: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(64)))),
  /** What the box holds of the master-owned state, a digest per kind (engine/held.ts); absent from older boxes. */
  held: v.optional(heldSchema),
  /**
   * The software the box runs: its cabinet version and its installed modules' versions (what its
   * own version-policies/commands/check judges). Absent from older boxes: the master shows
   * "unknown" for them.
   */
  versions: v.optional(versionsSchema),
  /** The box's self-update state (updateStateSchema). Absent from older boxes: they are offered no update. */
  update_state: v.optional(v.nullable(updateStateSchema)),
  /**
   * The newest forced run the box has completed, as the pull answer's run_requested_at named it:
   * its pushes left nothing of what its outbox held when it took that request. Absent from older
   * boxes, null from a box that completed none: the master then judges a run by the outbox the box
   * reports after the request (empty: done). A box that reports it sends it in every report, null
   * while it has completed none; its absence tells the master the box is older (engine/master.ts
   * runDoneReportOf).
   */
  run_done: v.optional(v.nullable(v.pipe(v.string(), v.isoTimestamp()))),
};

function parsedText(x: unknown): unknown {
  if (typeof x !== 'string' || x.length > PUSH_MAX_BYTES) return x;
  try {
    return JSON.parse(x) as unknown;
  } catch {
    return x;
  }
}

/**
 * The telemetry events of a push as columns (the pull answer's telemetry_columns says the master
 * takes them): event i has seq[i] and the next count[i] aggregates; an aggregate's strings
 * (device_id, metric, bucket, last_status) are indexes into `strings`, each said once a push.
 * The same aggregates as the object form's events[].payload.aggregates, less what the master
 * does not read of them (the aggregate's site_id, the event's created_at: a telemetry event's
 * record on the master is its per-minute rows). Seqs strictly increasing; telemetry events are
 * then not in `events`. engine/columns.ts builds and reads it.
 */
const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
/**
 * An array of numbers checked in one loop, not copied: a schema per element costs the master a
 * call each (about 2,000 aggregates a push).
 */
const numbers = <T = number>(ok: (x: unknown) => boolean, what: string, item: Record<string, unknown> = { type: 'number' }) =>
  v.pipe(v.custom<T[]>((a) => Array.isArray(a) && a.every(ok), what), v.metadata({ type: 'array', items: item }));
const integer = { type: 'integer', minimum: 0 };
const isIndex = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;
export const telemetryColumnsSchema = v.pipe(v.strictObject({
  seq: numbers((x) => typeof x === 'number' && Number.isInteger(x) && x >= 1, 'seqs are integers of 1 and more', { type: 'integer', minimum: 1 }),
  count: numbers(isIndex, 'counts are integers of 0 and more', integer),
  strings: numbers<string>((x) => typeof x === 'string', 'strings', { type: 'string' }),
  device: numbers(isIndex, 'indexes into strings', integer),
  metric: numbers(isIndex, 'indexes into strings', integer),
  bucket: numbers(isIndex, 'indexes into strings', integer),
  status: numbers(isIndex, 'indexes into strings', integer),
  points: numbers(finite, 'finite numbers'),
  sum: numbers(finite, 'finite numbers'),
  min: numbers<number | null>((x) => x === null || finite(x), 'finite numbers or null', { anyOf: [{ type: 'number' }, { type: 'null' }] }),
  max: numbers<number | null>((x) => x === null || finite(x), 'finite numbers or null', { anyOf: [{ type: 'number' }, { type: 'null' }] }),
}),
v.check((t) => t.count.length === t.seq.length, 'one count per seq'),
v.check((t) => t.seq.every((s, i) => i === 0 || s > t.seq[i - 1]!), 'seqs strictly increasing'),
v.check((t) => {
  const n = t.count.reduce((a, b) => a + b, 0);
  return [t.device, t.metric, t.bucket, t.status, t.points, t.sum, t.min, t.max].every((c) => c.length === n);
}, 'each aggregate column as long as the counts add up to'),
v.check((t) => [t.device, t.metric, t.bucket, t.status].every((c) => c.every((i) => i < t.strings.length)), 'indexes into strings'),
v.description('The push\'s telemetry events as columns, when the pull answer said telemetry_columns (then not in events): event i is seq[i] with the next count[i] aggregates; device, metric, bucket and status are indexes into strings; points, sum, min and max the aggregates\' values.'));
export type TelemetryColumns = v.InferOutput<typeof telemetryColumnsSchema>;

export const pushBody = v.pipe(v.strictObject({
  events: v.pipe(v.array(v.strictObject({
    seq: v.pipe(v.number(), v.integer(), v.minValue(1)),
    kind: v.picklist(EVENT_KINDS),
    created_at: v.pipe(v.string(), v.isoTimestamp()),
    // An object (the box's own record; it may name tenant ids of the box, and the master
    // attributes every event to the site's tenant from the session). Boxes before this version
    // send it as JSON text: a string is parsed first; one that is not JSON (or is larger than a
    // push) stays a string and is refused as not an object.
    // The document shows an object, or the JSON text of one (the metadata); the checks below
    // take exactly that (an array is refused, never copied to {} by an object schema).
    payload: v.pipe(v.unknown(), v.metadata({ anyOf: [{ type: 'object' }, { type: 'string', contentMediaType: 'application/json' }] }), v.transform((x): unknown => parsedText(x)), v.check((p) => !Array.isArray(p), 'an object, not an array'), v.record(v.string(), v.unknown())),
  })), v.maxLength(PUSH_MAX_EVENTS),
  // Each event once: a seq twice in one push would be applied twice (the inbox's key, which
  // refused it before, holds received_at and no longer holds telemetry events).
  v.check((events) => new Set(events.map((e) => e.seq)).size === events.length, 'each seq at most once in a push')),
  /**
   * The last seq of the push the box sent before this one and has no answer for yet (a box sends
   * its next batch while the master applies the one before, when the pull answer's push_after
   * says the master reads this field). The master takes this push's events only once it has
   * applied every event up to `after`; otherwise it takes none of them (accepted 0, applied_seq as
   * it stands), and the box sends them again from its oldest event.
   */
  after: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** The push's telemetry events as columns (telemetryColumnsSchema), when the master said telemetry_columns. */
  telemetry: v.optional(telemetryColumnsSchema),
  ...report,
}),
v.check((b) => !b.telemetry || b.events.length + b.telemetry.seq.length <= PUSH_MAX_EVENTS, `at most ${PUSH_MAX_EVENTS} events in a push`),
v.check((b) => !b.telemetry || !b.events.some((e) => e.kind === 'telemetry'), 'telemetry events in columns or in events, not both'),
v.check((b) => {
  if (!b.telemetry?.seq.length || !b.events.length) return true;
  const seqs = new Set(b.telemetry.seq);
  return !b.events.some((e) => seqs.has(e.seq));
}, 'each seq at most once in a push'));
export type PushBody = v.InferOutput<typeof pushBody>;
export type OutboxEvent = PushBody['events'][number];
/** An event as the box sends it. */
export type WireEvent = OutboxEvent;

export const pullBody = v.strictObject({ ...report });
export type PullBody = v.InferOutput<typeof pullBody>;

export interface PushAnswer {
  applied_seq: number;
  accepted: number;
  duplicates: number;
  mode: SyncMode;
}

/** A published release's package, as a box downloads it (GET /api/v1/releases/{version}/packages/{arch}/chunks/{idx}). */
export interface UpdatePackage {
  version: string;
  arch: string;
  size: number;
  sha256: string;
  /** Bytes per chunk (the last chunk may be shorter); chunks = ceil(size / chunk_size). */
  chunk_size: number;
  chunks: number;
  /** The .sig.json text as the fleet team signed it (release-signature.ts SignedRelease). */
  signed: string;
}

/** The version the master wants the box to run, for the box's reported arch. */
export interface UpdateOffer extends UpdatePackage {
  /** The rollout that reached this site. */
  rollout_id: string | null;
  /** Seconds the new version has to prove itself healthy (the rollout's; null: the box's update_proof_timeout_s). */
  proof_timeout_s: number | null;
  /**
   * The package of the version the box runs now, when the master has it published: the box keeps
   * it to go back to. Null when the master has none.
   */
  previous: UpdatePackage | null;
}

export interface PullAnswer {
  tenant_id: string;
  site_id: string;
  mode: SyncMode;
  run_requested_at: string | null;
  applied_seq: number;
  revision: string;
  version_policies: VersionPolicyRow[];
  /** Module site policies the master set for this site (modules/site-policy). */
  site_policies: { module_id: string; enabled: boolean }[];
  /**
   * The published industry profiles for this site (its tenant's, tenant-wide or for this site,
   * of the site's industry): one row per lineage, the master's version in force, content and
   * content_sha256 as the master holds them. Absent from an older master's answer.
   */
  industry_profiles?: ProfileRow[];
  /**
   * The release the box should install now (its target: the version policies in force for it and
   * the rollout that reached it, for the arch in its update_state), or null: stay on the version
   * it runs (no target, held by the fleet team, no update_state reported, no package of its
   * arch). Absent from an older master's answer (same as null).
   */
  update?: UpdateOffer | null;
  /**
   * The master reads a push's `after`: the box may send its next batch before the answer to the
   * one before. Absent from an older master's answer: the box waits for each answer.
   */
  push_after?: boolean;
  /**
   * The master takes a push's telemetry events as columns (PushBody.telemetry). Absent from an
   * older master's answer: the box sends them as events with their payload objects.
   */
  telemetry_columns?: boolean;
}

export const pushAnswerSchema = {
  type: 'object', required: ['applied_seq', 'accepted', 'duplicates', 'mode'],
  properties: { applied_seq: { type: 'integer' }, accepted: { type: 'integer' }, duplicates: { type: 'integer' }, mode: { enum: ['auto', 'manual', 'paused'] } },
};
export const pullAnswerSchema = {
  type: 'object', required: ['tenant_id', 'site_id', 'mode', 'run_requested_at', 'applied_seq', 'revision', 'version_policies', 'site_policies', 'industry_profiles', 'push_after', 'telemetry_columns'],
  properties: {
    tenant_id: { type: 'string' }, site_id: { type: 'string' }, mode: { enum: ['auto', 'manual', 'paused'] },
    run_requested_at: { anyOf: [{ type: 'string' }, { type: 'null' }] }, applied_seq: { type: 'integer' }, revision: { type: 'string' },
    push_after: { type: 'boolean', description: 'The master reads a push\'s after: the box may send its next batch before the answer to the one before.' },
    telemetry_columns: { type: 'boolean', description: 'The master takes a push\'s telemetry events as columns (the push body\'s telemetry); without it the box sends them in events.' },
    version_policies: { type: 'array', items: { type: 'object' } },
    site_policies: { type: 'array', items: { type: 'object', required: ['module_id', 'enabled'], properties: { module_id: { type: 'string' }, enabled: { type: 'boolean' } } } },
    update: {
      anyOf: [{ type: 'null' }, {
        type: 'object', required: ['version', 'arch', 'size', 'sha256', 'chunk_size', 'chunks', 'signed', 'rollout_id', 'proof_timeout_s', 'previous'],
        description: 'The release the box should install now, for its arch, or null (no target, held, or no package of its arch). previous: the package of the version the box runs, when published.',
      }],
    },
    industry_profiles: {
      type: 'array', description: 'The published industry profiles for the site (its tenant\'s, site_id empty or this site, of the site\'s industry); the box stores each as the published version of its lineage.',
      items: { type: 'object', required: ['id', 'site_id', 'industry_code', 'equipment_profile', 'name', 'version_id', 'content', 'content_sha256'] },
    },
  },
};
