// Versioned records, one mechanism for every industry: a *lineage* is the set of rows that are
// versions of one thing (an industry profile, the climate targets of one house, batch and age
// phase, ...), named by equality conditions on its key columns. Versions are append-only:
//   draft      -> a proposal; any number may exist
//   published  -> the one version in force; publishing archives the previous one
//   archived   -> kept for history and rollback
// Rollback copies a chosen version's content into a new published version whose `rollback_of`
// names the chosen one, so history is never rewritten and every change is one more row.
import { and, desc, eq, ne, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import type { Filter } from '../db/store.js';
import type { NeutralTable } from '../db/table.js';
import { colOf, tableOf } from '../db/sql.js';
import { ApiError } from '../kernel/errors.js';
import type { FieldSpec } from '../kernel/resource.js';
import { inForceChanged } from './in-force.js';

export const VERSION_STATES = ['draft', 'published', 'archived'] as const;
export type VersionState = (typeof VERSION_STATES)[number];

/** The version columns every versioned record carries; spread them into its defineRecord fields. */
export const versionFields = {
  version_id: { type: 'integer', label: 'Version', readOnly: true, filter: true, sortable: true, description: 'Increases by one per new version of the same lineage.' },
  state: { type: 'string', label: 'State', enum: VERSION_STATES, readOnly: true, filter: true, sortable: true },
  change_note: { type: 'string', label: 'Change note', nullable: true },
  rollback_of: { type: 'integer', label: 'Rollback of version', nullable: true, readOnly: true },
  created_by: { type: 'string', label: 'Created by', readOnly: true },
  created_at: { type: 'datetime', label: 'Created', readOnly: true, sortable: true },
  published_at: { type: 'datetime', label: 'Published', nullable: true, readOnly: true },
} as const satisfies Record<string, FieldSpec>;

export interface VersionColumns {
  id: string;
  version_id: number;
  state: VersionState;
  change_note: string | null;
  rollback_of: number | null;
  created_by: string;
  created_at: string;
  published_at: string | null;
}

export interface Versioned<Row extends VersionColumns> {
  /** The table the versions live in. */
  table: NeutralTable;
  /** The lineage a row belongs to (its lineage key columns). */
  lineage(row: Row): Filter;
  /** All versions of a lineage, newest first. */
  history(db: Database, lineage: Filter): Promise<Row[]>;
  /** The version in force, if any. */
  published(db: Database, lineage: Filter): Promise<Row | undefined>;
  /**
   * Stores `content` as the next version of its lineage (lineage keys are taken from content).
   * With `publish`, it becomes the published version in the same transaction.
   */
  add(db: Database, content: Omit<Row, keyof VersionColumns> & Partial<Pick<Row, 'id'>>, meta: { actor: string; change_note?: string | null; publish?: boolean; rollback_of?: number | null; id: string }): Promise<Row>;
  /** Makes a draft the published version; the previous published one becomes archived. 409 lifecycle_conflict unless draft. */
  publish(db: Database, row: Row): Promise<{ published: Row; archived: Row | undefined }>;
  /** A new published version with the content of `version_id`, `rollback_of` naming it. 404 when no such version. */
  rollback(db: Database, lineage: Filter, version_id: number, meta: { actor: string; change_note?: string | null; id: string }): Promise<{ published: Row; archived: Row | undefined }>;
}

const META = new Set(['id', 'version_id', 'state', 'change_note', 'rollback_of', 'created_by', 'created_at', 'published_at']);

/** What a version holds besides its version columns (used by rollback to copy a version). */
export function contentOf<Row extends VersionColumns>(row: Row): Omit<Row, keyof VersionColumns> {
  return Object.fromEntries(Object.entries(row).filter(([k]) => !META.has(k))) as Omit<Row, keyof VersionColumns>;
}

/**
 * The versioning operations over `table`, whose lineage is named by `lineageKeys` (for example
 * ['tenant_id', 'site_id', 'house_id', 'batch_id', 'age_phase_id']). Null lineage values are
 * matched as empty strings would not be: keep lineage columns NOT NULL (use '' for "any").
 */
/** Every versioned write may change what is in force (in-force.ts): say so once it committed, or failed. */
async function changes<T>(db: Database, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    inForceChanged(db);
  }
}

export function versioned<Row extends VersionColumns>(table: NeutralTable, lineageKeys: readonly string[]): Versioned<Row> {
  const where = (db: Database, lineage: Filter): SQL | undefined =>
    and(...lineageKeys.map((k) => {
      if (lineage[k] === undefined) throw new Error(`lineage of ${table.name} needs ${k}`);
      return eq(colOf(table, db, k), lineage[k] as never);
    }));
  const lineageOf = (row: Record<string, unknown>): Filter => Object.fromEntries(lineageKeys.map((k) => [k, row[k] as string | number | boolean]));

  async function archivePublished(db: Database, lineage: Filter, except: string): Promise<Row | undefined> {
    const t = tableOf(table, db);
    const out = (await db.orm.update(t).set({ state: 'archived' } as never)
      .where(and(where(db, lineage), eq(colOf(table, db, 'state'), 'published'), ne(colOf(table, db, 'id'), except)))
      .returning()) as Row[];
    return out[0];
  }

  const api: Versioned<Row> = {
    table,
    lineage: (row) => lineageOf(row as unknown as Record<string, unknown>),
    async history(db, lineage) {
      return (await db.orm.select().from(tableOf(table, db)).where(where(db, lineage)).orderBy(desc(colOf(table, db, 'version_id')))) as Row[];
    },
    async published(db, lineage) {
      const rows = (await db.orm.select().from(tableOf(table, db))
        .where(and(where(db, lineage), eq(colOf(table, db, 'state'), 'published'))).limit(1)) as Row[];
      return rows[0];
    },
    async add(db, content, meta) {
      const lineage = lineageOf(content as Record<string, unknown>);
      return changes(db, () => db.transaction(async () => {
        const [latest] = (await db.orm.select().from(tableOf(table, db)).where(where(db, lineage))
          .orderBy(desc(colOf(table, db, 'version_id'))).limit(1)) as Row[];
        const now = new Date().toISOString();
        const row = {
          ...content,
          id: meta.id,
          version_id: (latest?.version_id ?? 0) + 1,
          state: meta.publish ? 'published' : 'draft',
          change_note: meta.change_note ?? null,
          rollback_of: meta.rollback_of ?? null,
          created_by: meta.actor,
          created_at: now,
          published_at: meta.publish ? now : null,
        } as unknown as Row;
        if (meta.publish) await archivePublished(db, lineage, row.id);
        const [saved] = (await db.orm.insert(tableOf(table, db)).values(row as never).returning()) as Row[];
        return saved!;
      }));
    },
    async publish(db, row) {
      return changes(db, () => db.transaction(async () => {
        const now = new Date().toISOString();
        // Conditional on state = draft, so two concurrent publishes cannot both win.
        const [published] = (await db.orm.update(tableOf(table, db)).set({ state: 'published', published_at: now } as never)
          .where(and(eq(colOf(table, db, 'id'), row.id), eq(colOf(table, db, 'state'), 'draft'))).returning()) as Row[];
        if (!published) throw new ApiError('lifecycle_conflict', `version ${row.version_id} is ${row.state}; only a draft can be published`, [{ field: 'id', reason: 'not_draft' }]);
        const archived = await archivePublished(db, lineageOf(row as unknown as Record<string, unknown>), row.id);
        return { published, archived };
      }));
    },
    async rollback(db, lineage, version_id, meta) {
      return changes(db, () => db.transaction(async () => {
        const [target] = (await db.orm.select().from(tableOf(table, db))
          .where(and(where(db, lineage), eq(colOf(table, db, 'version_id'), version_id))).limit(1)) as Row[];
        if (!target) throw new ApiError('not_found', `version ${version_id} not found`, [{ field: 'version_id', reason: 'not_found' }]);
        const before = await api.published(db, lineage);
        const published = await api.add(db, contentOf(target) as never, {
          id: meta.id, actor: meta.actor, publish: true, rollback_of: version_id,
          change_note: meta.change_note ?? `rollback to version ${version_id}`,
        });
        return { published, archived: before };
      }));
    },
  };
  return api;
}
