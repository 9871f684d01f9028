// Tables of the fleet's releases (master side). A release is one cabinet version (its id is the
// version), with a package per Debian architecture; the package's bytes are kept in chunks IN THE
// DATABASE, so that several master processes on one PostgreSQL serve the same bytes. A rollout
// takes a published release to the sites whose version policies ask for it, in waves; the sites a
// wave reached are written down when the wave starts (release_rollout_sites), so that a box's pull
// reads one row to know whether the rollout reached it, and the rollout page shows its waves.
import { defineRecord } from '../../kernel/record.js';
import { col, defineTable } from '../../db/table.js';

export const RELEASE_STATES = ['draft', 'published', 'withdrawn'] as const;
export type ReleaseState = (typeof RELEASE_STATES)[number];
/** The Debian architectures `npm run build` makes packages for. */
export const RELEASE_ARCHES = ['amd64', 'arm64'] as const;
export type ReleaseArch = (typeof RELEASE_ARCHES)[number];
/** Bytes per chunk of a package upload and download: the default request body limit (max_body_bytes). */
export const CHUNK_SIZE = 1024 * 1024;

export const releaseRecord = defineRecord('releases', {
  id: { type: 'string', label: 'Release', sortable: true, searchable: true, description: 'The release\'s version (a release is one version of the cabinet package).' },
  version: { type: 'string', label: 'Version', column: { unique: true }, filter: true, sortable: true, description: 'Semantic version, as the package\'s Debian control says (dpkg-deb -f FILE Version).' },
  notes: { type: 'string', label: 'Notes', searchable: true, description: 'What changed, for the fleet team and the farms.' },
  state: { type: 'string', label: 'State', enum: RELEASE_STATES, readOnly: true, filter: true, sortable: true, ui: { badge: true }, description: 'draft while its packages are uploaded; published once checked (every chunk, size, sha256, signature, version and arch): only then can a rollout or a policy take it to the sites; withdrawn: no site is offered it any more.' },
  created_by: { type: 'string', label: 'Created by', readOnly: true },
  created_at: { type: 'datetime', label: 'Created', readOnly: true, sortable: true },
  published_at: { type: 'datetime', label: 'Published', nullable: true, readOnly: true, sortable: true },
  published_by: { type: 'string', label: 'Published by', nullable: true, readOnly: true },
  withdrawn_at: { type: 'datetime', label: 'Withdrawn', nullable: true, readOnly: true },
  withdrawn_reason: { type: 'string', label: 'Why withdrawn', nullable: true, readOnly: true },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true },
  packages: {
    type: 'array', items: 'object', label: 'Packages', readOnly: true,
    description: 'One per architecture: arch, size, sha256 and chunks (from the signed manifest, null until attached), chunk_size, received (chunks stored so far), signed (whether the signature document is attached), key_id (the key it names), complete (checked by publish).',
  },
});
export const releases = releaseRecord.table;
export type ReleaseRow = typeof releaseRecord.row;

/**
 * A release's package for one architecture. size, sha256, chunks and key_id come from the signed
 * manifest once attached (null before); `complete` is set by publish, after every check passed.
 */
export const releasePackages = defineTable('release_packages', {
  release_id: col.text({ notNull: true }),
  arch: col.text({ notNull: true }),
  size: col.integer(),
  sha256: col.text(),
  /** The .sig.json text exactly as the fleet team's `cabinet release sign` wrote it. */
  signed: col.text(),
  key_id: col.text(),
  chunk_size: col.integer({ notNull: true }),
  chunks: col.integer(),
  complete: col.boolean({ notNull: true }),
  updated_at: col.timestamp({ notNull: true }),
}, { primaryKey: ['release_id', 'arch'] });
export interface ReleasePackageRow extends Record<string, unknown> {
  release_id: string;
  arch: string;
  size: number | null;
  sha256: string | null;
  signed: string | null;
  key_id: string | null;
  chunk_size: number;
  chunks: number | null;
  complete: boolean;
  updated_at: string;
}

/** The package's bytes, chunk by chunk (chunk_size each, the last one shorter). */
export const releaseChunks = defineTable('release_chunks', {
  release_id: col.text({ notNull: true }),
  arch: col.text({ notNull: true }),
  idx: col.integer({ notNull: true }),
  size: col.integer({ notNull: true }),
  sha256: col.text({ notNull: true }),
  bytes: col.blob({ notNull: true }),
  stored_at: col.timestamp({ notNull: true }),
}, { primaryKey: ['release_id', 'arch', 'idx'] });

export const ROLLOUT_STATES = ['running', 'paused', 'done', 'aborted'] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];

export const rolloutRecord = defineRecord('release_rollouts', {
  id: { type: 'string', label: 'Rollout', sortable: true },
  release_id: { type: 'string', label: 'Release', filter: true, sortable: true, description: 'The release (its version) the rollout takes to the sites.' },
  canary_site_ids: { type: 'array', items: 'string', label: 'Canary sites', description: 'Sites (site@tenant) of wave 0, first; those whose policy does not allow the release are left out.' },
  waves: { type: 'array', items: 'integer', label: 'Waves', description: 'After the canaries, each wave reaches this percentage (cumulative) of the other eligible sites, e.g. [50, 100].' },
  failure_threshold_percent: { type: 'number', label: 'Failure threshold', ui: { unit: '%' }, description: 'Failed and rolled back sites over finished sites above this pauses the whole rollout.' },
  proof_timeout_s: { type: 'integer', label: 'Proof time', ui: { unit: 's' }, description: 'Seconds a box\'s new version has to prove itself healthy before the box goes back.' },
  state: { type: 'string', label: 'State', enum: ROLLOUT_STATES, readOnly: true, filter: true, sortable: true, ui: { badge: true }, description: 'running: waves start as the previous ones finish healthy; paused: no site that has not begun starts (by the failure threshold or a command); done: every wave finished; aborted: no site is offered the release by this rollout any more.' },
  wave: { type: 'integer', label: 'Current wave', readOnly: true, description: 'The newest wave started: 0 the canaries, k the k-th percentage of waves.' },
  paused_reason: { type: 'string', label: 'Why paused', nullable: true, readOnly: true, description: 'The failure rate and the failed sites with their reasons, or who paused it.' },
  /** Sites whose failure the fleet team accepted by resuming: not counted in the failure rate again. */
  accepted_failures: { type: 'array', items: 'string', label: 'Accepted failures', internal: true },
  created_by: { type: 'string', label: 'Created by', readOnly: true },
  created_at: { type: 'datetime', label: 'Created', readOnly: true, sortable: true },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true, sortable: true },
  finished_at: { type: 'datetime', label: 'Finished', nullable: true, readOnly: true },
  progress: {
    type: 'object', label: 'Progress', readOnly: true, nullable: true,
    description: 'Recomputed before every read and at each change of a site\'s report: eligible (sites whose policy allows the release), finished, done, failed (failed or rolled back), failure_rate_percent, and waves: one per wave (0 the canaries) with percent, started, and its sites: id, outcome (pending, done, failed), step, progress, reason.',
  },
}, { indexes: [{ name: 'release_rollouts_state', columns: ['state'] }] });
export const releaseRollouts = rolloutRecord.table;
export type RolloutRow = typeof rolloutRecord.row;

/** The sites a rollout's waves reached, written when each wave starts (never moved afterwards). */
export const rolloutSites = defineTable('release_rollout_sites', {
  rollout_id: col.text({ notNull: true }),
  tenant_id: col.text({ notNull: true }),
  site_id: col.text({ notNull: true }),
  wave: col.integer({ notNull: true }),
  assigned_at: col.timestamp({ notNull: true }),
}, { primaryKey: ['rollout_id', 'tenant_id', 'site_id'], indexes: [{ name: 'release_rollout_sites_site', columns: ['tenant_id', 'site_id'] }] });
export interface RolloutSiteRow extends Record<string, unknown> {
  rollout_id: string;
  tenant_id: string;
  site_id: string;
  wave: number;
  assigned_at: string;
}

export const RELEASE_TABLES = [releases, releasePackages, releaseChunks, releaseRollouts, rolloutSites];
