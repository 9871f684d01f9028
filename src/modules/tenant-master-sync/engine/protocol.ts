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
};

function parsedText(x: unknown): unknown {
  if (typeof x !== 'string' || x.length > PUSH_MAX_BYTES) return x;
  try {
    return JSON.parse(x) as unknown;
  } catch {
    return x;
  }
}

export const pushBody = v.strictObject({
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
  })), v.maxLength(PUSH_MAX_EVENTS)),
  /**
   * The last seq of the push the box sent before this one and has no answer for yet (a box sends
   * its next batch while the master applies the one before, when the pull answer's push_after
   * says the master reads this field). The master takes this push's events only once it has
   * applied every event up to `after`; otherwise it takes none of them (accepted 0, applied_seq as
   * it stands), and the box sends them again from its oldest event.
   */
  after: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  ...report,
});
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
}

export const pushAnswerSchema = {
  type: 'object', required: ['applied_seq', 'accepted', 'duplicates', 'mode'],
  properties: { applied_seq: { type: 'integer' }, accepted: { type: 'integer' }, duplicates: { type: 'integer' }, mode: { enum: ['auto', 'manual', 'paused'] } },
};
export const pullAnswerSchema = {
  type: 'object', required: ['tenant_id', 'site_id', 'mode', 'run_requested_at', 'applied_seq', 'revision', 'version_policies', 'site_policies', 'industry_profiles', 'push_after'],
  properties: {
    tenant_id: { type: 'string' }, site_id: { type: 'string' }, mode: { enum: ['auto', 'manual', 'paused'] },
    run_requested_at: { anyOf: [{ type: 'string' }, { type: 'null' }] }, applied_seq: { type: 'integer' }, revision: { type: 'string' },
    push_after: { type: 'boolean', description: 'The master reads a push\'s after: the box may send its next batch before the answer to the one before.' },
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
