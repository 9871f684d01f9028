// An alarm raise or clear is one commit: the alarm, its audit record and its status events
// (alarm_raised of a severe alarm, the alarm view's alarm_changed) commit together, before the
// bus hears of it. A failing audit insert does not undo the alarm: it rolls back to its savepoint,
// the alarm commits, and the record is written again after the commit. On both engines (on
// PostgreSQL a failed statement without a savepoint would abort the whole transaction).
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import type { RunningServer } from '../../src/server.js';
import type { IndustryAlarmService } from '../../src/industry/alarm-service.js';
import type { Database } from '../../src/db/client.js';
import { need } from '../../src/kernel/context.js';

for (const dialect of DIALECTS) {
  describe(`an alarm change is one commit (${dialect})`, () => {
    let env: TestEnv;
    let server: RunningServer;
    let alarms: IndustryAlarmService;
    let db: Database;
    // Transactions begun by the call under test (its async context), not by the server's timers.
    const mine = new AsyncLocalStorage<{ commits: number }>();
    beforeAll(async () => {
      env = await createTestEnv(dialect);
      server = await env.start({ alarm_escalation_interval_ms: '3600000' });
      alarms = need(server.services, 'industryAlarms');
      db = server.services.db;
      const transaction = db.transaction.bind(db);
      db.transaction = <T>(fn: () => Promise<T>): Promise<T> => {
        const count = mine.getStore();
        if (count && !db.inTransaction()) count.commits++;
        return transaction(fn);
      };
      // A lone audit insert on an idle SQLite writer commits by itself, without transaction(): counted too.
      if (db.writerIdle) db.writerIdle = () => false;
    });
    afterAll(async () => env?.cleanup());

    const base = { tenant_id: 't1', site_id: 's1', industry_code: 'swine' as const, source: 'swine-climate', actor: 'swine-rules' };
    const commitsOf = async <T>(fn: () => Promise<T>): Promise<{ out: T; commits: number }> => {
      const count = { commits: 0 };
      const out = await mine.run(count, fn);
      return { out, commits: count.commits };
    };
    const rowsOf = async (table: 'audit_records' | 'status_events', correlation: string) =>
      db.rows<{ action?: string; event?: string }>(table === 'audit_records'
        ? sql`select action from audit_records where correlation_id = ${correlation} order by id`
        : sql`select event from status_events where correlation_id = ${correlation} order by id`);

    it('raises and clears a severe alarm in one commit each, audited and on the status stream', async () => {
      const heard: string[] = [];
      const off = need(server.services, 'bus').on('status', (e) => {
        if (e.correlation_id === 'one-commit') heard.push(e.event);
      });
      const raised = await commitsOf(() => alarms.raise({ ...base, unit_id: 'R1', rule_id: 'temp_high', metric: 'temp_c', value: 32, severity: 'high', title: 'Room 1 too hot', correlation_id: 'one-commit' }));
      expect(raised.out.created).toBe(true);
      expect(raised.commits).toBe(1);
      const cleared = await commitsOf(() => alarms.clear({ tenant_id: 't1', industry_code: 'swine', unit_id: 'R1', rule_id: 'temp_high', actor: 'swine-rules' }));
      expect(cleared.out?.condition).toBe('cleared');
      expect(cleared.commits).toBe(1);
      off();
      expect((await rowsOf('audit_records', 'one-commit')).map((r) => r.action)).toEqual(['alarm.raise', 'alarm.clear']);
      const stored = (await rowsOf('status_events', 'one-commit')).map((r) => r.event);
      expect(stored).toEqual(['alarm_changed', 'alarm_raised', 'alarm_changed', 'alarm_cleared']);
      // Each status event reached the bus once, in the order stored.
      expect(heard).toEqual(stored);
    });

    it('keeps the alarm when its audit insert fails, and writes the record again after the commit', async () => {
      // Refuses an alarm.raise record while its alarm_raised status event is not stored yet: inside
      // the raise's transaction (the audit record is written before the status event), not after it.
      if (dialect === 'sqlite') {
        await db.exec(`CREATE TRIGGER fail_alarm_audit BEFORE INSERT ON audit_records
          WHEN NEW.action = 'alarm.raise' AND NOT EXISTS (SELECT 1 FROM status_events WHERE correlation_id = NEW.correlation_id AND event = 'alarm_raised')
          BEGIN SELECT RAISE(ABORT, 'forced audit failure'); END`);
      } else {
        await db.exec(`CREATE FUNCTION fail_alarm_audit() RETURNS trigger AS $$ BEGIN
          IF NEW.action = 'alarm.raise' AND NOT EXISTS (SELECT 1 FROM status_events WHERE correlation_id = NEW.correlation_id AND event = 'alarm_raised')
          THEN RAISE EXCEPTION 'forced audit failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
        await db.exec('CREATE TRIGGER fail_alarm_audit BEFORE INSERT ON audit_records FOR EACH ROW EXECUTE FUNCTION fail_alarm_audit()');
      }
      // What a reader outside the transaction sees when the bus announces the alarm (on SQLite the
      // read runs at once, on the read connection): the alarm is committed by then.
      const announced: Promise<{ id: string }[]>[] = [];
      const off = need(server.services, 'bus').on('alarm', (e) => {
        if (e.alarm.correlation_id === 'audit-fails') announced.push(db.rows<{ id: string }>(sql`select id from industry_alarm_events where id = ${e.alarm.id}`));
      });
      const raised = await commitsOf(() => alarms.raise({ ...base, unit_id: 'R2', rule_id: 'temp_high', metric: 'temp_c', value: 33, severity: 'critical', title: 'Room 2 too hot', correlation_id: 'audit-fails' }));
      off();
      expect(raised.out.created).toBe(true);
      // The alarm's commit, then the record's own.
      expect(raised.commits).toBe(2);
      expect(await Promise.all(announced)).toEqual([[{ id: raised.out.event.id }]]);
      const [open] = await alarms.open({ tenant_id: 't1', industry_code: 'swine', unit_id: 'R2' });
      expect(open).toMatchObject({ id: raised.out.event.id, condition: 'active', status: 'active' });
      expect((await rowsOf('status_events', 'audit-fails')).map((r) => r.event)).toEqual(['alarm_changed', 'alarm_raised']);
      expect((await rowsOf('audit_records', 'audit-fails')).map((r) => r.action)).toEqual(['alarm.raise']);
    });

    it('keeps the alarm when its audit record cannot be stored at all', async () => {
      await db.exec(dialect === 'sqlite'
        ? `CREATE TRIGGER fail_clear_audit BEFORE INSERT ON audit_records WHEN NEW.action = 'alarm.clear' BEGIN SELECT RAISE(ABORT, 'forced audit failure'); END`
        : `CREATE OR REPLACE FUNCTION fail_clear_audit() RETURNS trigger AS $$ BEGIN IF NEW.action = 'alarm.clear' THEN RAISE EXCEPTION 'forced audit failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
      if (dialect !== 'sqlite') await db.exec('CREATE TRIGGER fail_clear_audit BEFORE INSERT ON audit_records FOR EACH ROW EXECUTE FUNCTION fail_clear_audit()');
      const cleared = await alarms.clear({ tenant_id: 't1', industry_code: 'swine', unit_id: 'R2', rule_id: 'temp_high', actor: 'swine-rules' });
      expect(cleared?.condition).toBe('cleared');
      const [row] = await db.rows<{ condition: string }>(sql`select condition from industry_alarm_events where correlation_id = ${'audit-fails'}`);
      expect(row?.condition).toBe('cleared');
      expect((await rowsOf('status_events', 'audit-fails')).map((r) => r.event)).toEqual(['alarm_changed', 'alarm_raised', 'alarm_changed', 'alarm_cleared']);
      expect((await rowsOf('audit_records', 'audit-fails')).map((r) => r.action)).toEqual(['alarm.raise']);
    });
  });
}
