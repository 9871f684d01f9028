// SLA escalation runs on the box by itself: an unacknowledged industry alarm is escalated after
// its SLA target with no request, also when it fell due while the service was stopped; an
// acknowledged one is not. Each escalation is a status event and an audit record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import type { RunningServer } from '../../src/server.js';
import { need } from '../../src/kernel/context.js';

const until = async <T>(fn: () => Promise<T | undefined>, ms = 5000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
};

for (const dialect of DIALECTS) {
  describe(`SLA escalation on the box (${dialect})`, () => {
    let env: TestEnv;
    let server: RunningServer;
    beforeAll(async () => {
      env = await createTestEnv(dialect);
      server = await env.start({ mqtt_broker: 'off', alarm_escalation_interval_ms: '50' });
    });
    afterAll(async () => env?.cleanup());

    const raise = (s: RunningServer, title: string, sla = 1) => need(s.services, 'industryAlarms').raise({
      tenant_id: 't1', site_id: 's1', industry_code: 'poultry', unit_id: title, rule_id: 'temp_high', severity: 'critical', priority: 'P1',
      source: 'test', title, sla_target_sec: sla, actor: 'test',
    });
    const row = async (s: RunningServer, id: string) => (await need(s.services, 'industryAlarms').open({ tenant_id: 't1' })).find((e) => e.id === id);

    it('escalates an unacknowledged alarm after its SLA, and not an acknowledged one', async () => {
      const { event } = await raise(server, 'house-1');
      const { event: acked } = await raise(server, 'house-2');
      await need(server.services, 'industryAlarms').ack({ id: acked.id, assignee: 'anna', actor: 'op' });
      const up = await until(async () => { const r = await row(server, event.id); return r && r.escalation_level >= 1 ? r : undefined; });
      expect(up).toMatchObject({ escalation_level: 1, sla_breached: true, status: 'active' });
      expect(Date.parse(up.escalated_at!)).toBeGreaterThanOrEqual(Date.parse(event.sla_deadline_at!));
      expect((await row(server, acked.id))!.escalation_level).toBe(0);
      // The status event and the audit record follow the row's update.
      // The contract's events, and the alarm view's one event per change (raised, escalated) beside them.
      const status = await until(async () => {
        const rows = await server.services.db.rows<{ event: string }>(sql`select event from status_events where correlation_id = ${event.correlation_id} order by id`);
        return rows.length >= 4 ? rows : undefined;
      });
      expect(status.map((s) => s.event).filter((e) => e !== 'alarm_changed')).toEqual(['alarm_raised', 'alarm_escalated']);
      expect(status.filter((s) => s.event === 'alarm_changed')).toHaveLength(2);
      const audit = await server.services.db.rows<{ actor: string }>(sql`select actor from audit_records where correlation_id = ${event.correlation_id} and action = 'alarm.escalate'`);
      expect(audit.map((a) => a.actor)).toContain('sla-escalator');
    });

    it('escalates after a restart what fell due while the service was stopped', async () => {
      const { event } = await raise(server, 'house-3', 1);
      await server.close();
      await new Promise((r) => setTimeout(r, 1200));
      server = await env.start({ mqtt_broker: 'off', alarm_escalation_interval_ms: '50' });
      const up = await until(async () => { const r = await row(server, event.id); return r && r.escalation_level >= 1 ? r : undefined; });
      expect(up.sla_breached).toBe(true);
    });
  });
}
