// A comment on an industry alarm (industry-alarms/commands/comment): what a person noted ("fan 3
// belt replaced", "vet called"), kept on the alarm as a list, oldest first, each with who and
// when, and audited (alarm.comment). A list rather than only the latest comment: a shift handover
// reads the whole story of an alarm on its record, and a later note must not hide an earlier one.
//
// The append is one UPDATE on both engines (no read-modify-write), so two people commenting at
// once both keep their comment. At most COMMENTS_KEPT stay on the alarm: the oldest leave it (the
// audit keeps every one), so a chattering alarm's record cannot grow without bound.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Services } from '../kernel/context.js';
import { announce, stageChange } from './alarm-items.js';
import { ApiError } from '../kernel/errors.js';
import { colOf, tableOf } from '../db/sql.js';
import { industryAlarmEvents, type AlarmComment, type AlarmEventRow } from './alarm-schema.js';

export const COMMENTS_KEPT = 50;
export const COMMENT_MAX_CHARS = 2000;

export interface CommentInput {
  id: string;
  /** The caller's tenant (a tenant caller only finds its own alarms). */
  tenant_id?: string;
  industry_code?: string;
  text: string;
  actor: string;
  now?: Date;
}

/** Appends {text, by, at} to the alarm's comments; 404 alarm_not_found when the caller cannot see it. */
export async function commentAlarm(services: Services, input: CommentInput): Promise<AlarmEventRow> {
  const { db } = services;
  const c = (n: string) => colOf(industryAlarmEvents, db, n);
  const entry: AlarmComment = { text: input.text, by: input.actor, at: (input.now ?? new Date()).toISOString() };
  const json = JSON.stringify(entry);
  // Append, then drop the oldest beyond COMMENTS_KEPT, in SQL on each engine.
  const appended: SQL = db.dialect === 'sqlite'
    ? sql`(select json_group_array(json(value)) from (select key, value from (select key, value from json_each(json_insert(coalesce(${c('comments')}, '[]'), '$[#]', json(${json}))) order by key desc limit ${COMMENTS_KEPT}) order by key))`
    : sql`(select jsonb_agg(e order by n) from (select e, n from jsonb_array_elements(coalesce(${c('comments')}, '[]'::jsonb) || jsonb_build_array(${json}::jsonb)) with ordinality as x(e, n) order by n desc limit ${COMMENTS_KEPT}) kept)`;
  const where = and(eq(c('id'), input.id),
    ...(input.tenant_id !== undefined ? [eq(c('tenant_id'), input.tenant_id)] : []),
    ...(input.industry_code !== undefined ? [eq(c('industry_code'), input.industry_code)] : []));
  const [row] = await db.transaction(async () => {
    const rows = (await db.orm.update(tableOf(industryAlarmEvents, db)).set({ comments: appended } as never).where(where).returning()) as AlarmEventRow[];
    await stageChange(services, 'commented', rows[0]);
    return rows;
  });
  if (!row) throw new ApiError('alarm_not_found', `alarm ${input.id} not found`, [{ field: 'id', reason: 'not_found' }]);
  await services.audit.record({
    actor: input.actor, action: 'alarm.comment', resource: `${row.industry_code}-alarms`, result: 'success',
    correlation_id: row.correlation_id, tenant_id: row.tenant_id, details: { id: row.id, text: input.text },
  });
  announce(services, 'commented', row);
  return row;
}
