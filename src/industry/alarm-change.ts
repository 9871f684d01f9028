// What the industry alarm service hands its change committer: the shapes only. The committer
// itself writes through the audit, status and alarm-view modules, so it lives with them
// (src/modules/alarm-view/alarm-commit.ts) and the composition root passes it in: a shared layer
// never imports a module.
import type { AuditEntry } from '../kernel/context.js';
import type { StatusEvent } from '../realtime/bus.js';
import type { AlarmEventRow } from './alarm-schema.js';
import type { ChangeKind } from './alarm-view-item.js';

/** A status event to store with the change (the status service's input, by shape). */
export interface AlarmStatusInput {
  tenant_id: string | null;
  site_id?: string | null;
  source: string;
  event: string;
  status: StatusEvent['status'];
  correlation_id?: string | null;
  details?: Record<string, unknown> | null;
}

/** What a change writes besides its rows, inside its transaction. */
export interface ChangeWrites {
  /** The change of a row: its bus event, emitted after the commit, and its alarm_changed status event, stored now. */
  changed(kind: ChangeKind, row: AlarmEventRow): Promise<void>;
  audit(entry: AuditEntry): Promise<void>;
  status(input: AlarmStatusInput): Promise<void>;
}

/** Runs one alarm change in one commit, then announces it. */
export type CommitChange = <T>(work: (writes: ChangeWrites) => Promise<T>) => Promise<T>;
