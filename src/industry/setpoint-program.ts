// The one setpoint program of the industry workspaces: a setpoint change is
//   draft    a new DRAFT version of the unit's setpoints (versions.ts), answered with
//            adapter_dispatch {status: pending} when a controller of the unit holds one of the
//            changed keys, else not_configured; audited;
//   confirm  the operator's confirmation: the values that differ from the version in force (all of
//            them when none is) are written to the unit's controllers through the field-write
//            service (dispatch.ts: queue per bus, read-back, audit per item with the correlation
//            id); verified/written -> the draft is published and the previous version archived;
//            failed -> the draft stays a draft, the previous version stays in force, the field
//            service's message is on adapter_dispatch; audited with the same correlation id.
// Poultry (draft on commands/setpoint, confirm on commands/ack) and swine (commands/setpoint
// drafts and confirms at once: the swine contract has no ack) declare only data: their version
// table, adapter table, setpoint keys, audit action names and what an unconfigured unit means.
//
// Where they differ, it is declared, not coded:
//   unconfigured  'publish': no controller holds the keys, so there is nothing to disagree with
//                 and the values are in force as norms (poultry: the phase a reading is judged
//                 by); 'keep-draft': the setpoints exist only to reach a controller (swine).
//   skip          a reason not to write at all (poultry: the age phase is not in force, the
//                 controller keeps the active phase's values); the draft is published, status
//                 skipped.
import { and, eq } from 'drizzle-orm';
import type { Caller, Services } from '../kernel/context.js';
import type { NeutralTable } from '../db/table.js';
import { colOf, tableOf } from '../db/sql.js';
import { dispatchSetpoints, dispatchText, type AdapterRow, type DispatchResult } from './dispatch.js';
import type { TextParams } from './box-text.js';
import type { VersionColumns, Versioned } from './versions.js';

/** What every setpoint version row carries besides its version columns. */
export interface SetpointColumns extends VersionColumns {
  tenant_id: string;
  site_id: string | null;
  correlation_id: string | null;
  adapter_dispatch: Record<string, unknown> | null;
}

export interface SetpointProgramSpec<Row extends SetpointColumns> {
  industry: 'poultry' | 'swine';
  /** The audited resource (e.g. poultry-climate). */
  resource: string;
  versions: Versioned<Row>;
  adapters: NeutralTable;
  keys: readonly string[];
  /** The unit (house, room) whose controllers hold the setpoints. */
  unitOf(row: Row): string;
  audit: { draft: string; confirm: string };
  unconfigured: 'publish' | 'keep-draft';
}

export interface SetpointProgram<Row extends SetpointColumns> {
  readonly spec: SetpointProgramSpec<Row>;
  /** Adds `content` as a draft (with adapter_dispatch pending|not_configured) and audits it. */
  draft(services: Services, content: Omit<Row, keyof VersionColumns | 'adapter_dispatch' | 'correlation_id'>, opts: { id: string; actor: string; change_note: string | null; correlation_id: string; changed: string[]; details?: Record<string, unknown> }): Promise<Row>;
  /** Writes a draft to the controllers and publishes it when they confirmed (see the header). */
  /** skip: why nothing is written (status skipped), as the box's text (a key and its data) or as given. */
  confirm(services: Services, draft: Row, opts: { caller: Caller; correlation_id: string; change_note?: string; skip?: string | { key: string; params: TextParams } }): Promise<{ row: Row; dispatch: DispatchResult; previous: Row | undefined }>;
}

export function defineSetpointProgram<Row extends SetpointColumns>(spec: SetpointProgramSpec<Row>): SetpointProgram<Row> {
  const adaptersOf = async (services: Services, row: Row): Promise<AdapterRow[]> => {
    const db = services.db;
    const c = (n: string) => colOf(spec.adapters, db, n);
    const rows = (await db.orm.select().from(tableOf(spec.adapters, db)).where(and(eq(c('tenant_id'), row.tenant_id), eq(c('unit_id'), spec.unitOf(row))))) as AdapterRow[];
    // A site's unit is written through that site's controllers (or ones not bound to a site).
    return rows.filter((a) => !row.site_id || a.site_id === null || a.site_id === row.site_id);
  };

  const setDispatch = async (services: Services, row: Row, dispatch: DispatchResult, extra: Record<string, unknown> = {}) => {
    const db = services.db;
    const c = (n: string) => colOf(spec.versions.table, db, n);
    await db.orm.update(tableOf(spec.versions.table, db)).set({ adapter_dispatch: dispatch, ...extra } as never).where(and(eq(c('tenant_id'), row.tenant_id), eq(c('id'), row.id)));
  };

  const valuesOf = (row: Row): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const k of spec.keys) {
      const x = (row as unknown as Record<string, unknown>)[k];
      if (typeof x === 'number') out[k] = x;
    }
    return out;
  };

  return {
    spec,
    async draft(services, content, opts) {
      const probe = { ...content, id: opts.id } as unknown as Row;
      const adapters = await adaptersOf(services, probe);
      const keys = opts.changed.length ? opts.changed : [...spec.keys];
      const holder = adapters.find((a) => (a.points as { key: string }[]).some((p) => keys.includes(p.key)));
      const pending: DispatchResult = {
        adapter_profile_id: holder?.id ?? null, controller_id: holder?.controller_id ?? null, transport: (holder?.transport as DispatchResult['transport']) ?? null,
        status: holder ? 'pending' : 'not_configured',
        // The setpoint keys and the unit as data (codes and ids), worded in each reader's language.
        ...(holder ? dispatchText(services, 'box.dispatch.pending', {}) : dispatchText(services, 'box.dispatch.not_configured_unit', { unit: spec.unitOf(probe), keys: keys.join(', ') })),
        correlation_id: opts.correlation_id, at: new Date().toISOString(), written: [],
      };
      const row = await spec.versions.add(services.db, { ...content, correlation_id: opts.correlation_id, adapter_dispatch: pending } as never, { id: opts.id, actor: opts.actor, change_note: opts.change_note });
      await services.audit.record({
        actor: opts.actor, action: spec.audit.draft, resource: spec.resource, result: 'success', correlation_id: opts.correlation_id, tenant_id: row.tenant_id,
        details: { id: row.id, unit_id: spec.unitOf(row), version_id: row.version_id, changed: opts.changed, dispatch_status: pending.status, ...opts.details },
      });
      return row;
    },

    async confirm(services, draft, opts) {
      const { caller, correlation_id } = opts;
      const previous = await spec.versions.published(services.db, spec.versions.lineage(draft));
      const values = valuesOf(draft);
      let dispatch: DispatchResult;
      if (opts.skip) {
        const words = typeof opts.skip === 'string' ? { message: opts.skip } : dispatchText(services, opts.skip.key, opts.skip.params);
        dispatch = { adapter_profile_id: null, controller_id: null, transport: null, status: 'skipped', ...words, correlation_id, at: new Date().toISOString(), written: [] };
      } else {
        const prev = previous ? valuesOf(previous) : {};
        const changed = Object.fromEntries(Object.entries(values).filter(([k, x]) => prev[k] !== x));
        dispatch = await dispatchSetpoints(services, {
          adapters: await adaptersOf(services, draft), values: Object.keys(changed).length ? changed : values, correlation_id,
          actor: { id: caller.subject, role: caller.role, ...(caller.tenant_id ? { tenant_id: caller.tenant_id } : {}) },
        });
      }
      const status = dispatch.status;
      const publish = status === 'verified' || status === 'written' || status === 'skipped' || (status === 'not_configured' && spec.unconfigured === 'publish');
      await setDispatch(services, draft, dispatch, publish && opts.change_note ? { change_note: opts.change_note } : {});
      let row: Row = { ...draft, adapter_dispatch: dispatch as unknown as Record<string, unknown> };
      if (publish) row = { ...(await spec.versions.publish(services.db, { ...draft, state: 'draft' })).published, adapter_dispatch: dispatch as unknown as Record<string, unknown> };
      await services.audit.record({
        actor: caller.subject, action: spec.audit.confirm, resource: spec.resource, result: status === 'failed' ? 'error' : 'success', correlation_id, tenant_id: draft.tenant_id,
        details: { id: row.id, unit_id: spec.unitOf(row), version_id: row.version_id, state: row.state, values, dispatch_status: status, controller_id: dispatch.controller_id, message: dispatch.message, previous_published: previous?.version_id ?? null },
      });
      return { row, dispatch, previous };
    },
  };
}
