// What the industry alarm service hands its change committer: the shapes only. The committer
// itself writes through the audit, status and alarm-view modules, so it lives with them
// (src/modules/alarm-view/alarm-commit.ts) and the composition root passes it in: a shared layer
// never imports a module.
import type { AuditEntry } from '../kernel/context.js';
import type { StatusInput } from '../realtime/bus.js';
import type { AlarmEventRow } from './alarm-schema.js';
import type { ChangeKind } from './alarm-view-item.js';


/** What a change writes besides its rows, inside its transaction. */
export interface ChangeWrites {
  /** The change of a row: its bus event, emitted after the commit, and its alarm_changed status event, stored now. */
  changed(kind: ChangeKind, row: AlarmEventRow): Promise<void>;
  audit(entry: AuditEntry): Promise<void>;
  status(input: StatusInput): Promise<void>;
}

/** Runs one alarm change in one commit, then announces it. */
export type CommitChange = <T>(work: (writes: ChangeWrites) => Promise<T>) => Promise<T>;
