// The one industry alarm service, in a real server on both dialects: raise (dedupe per rule and
// unit, SLA deadline, bridging), ack once, escalate after the deadline only, clear; each step
// stored, audited, on the bus, and bridged to status with the alarm's correlation_id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import type { RunningServer } from '../../src/server.js';
import type { IndustryAlarmService } from '../../src/industry/alarm-service.js';
import type { AlarmEvent, StatusEvent } from '../../src/realtime/bus.js';
import { need } from '../../src/kernel/context.js';

for (const dialect of DIALECTS) {
  describe(`industry alarm service (${dialect})`, () => {
    let env: TestEnv;
    let server: RunningServer;
    let alarms: IndustryAlarmService;
    const statuses: StatusEvent[] = [];
    const bus: AlarmEvent[] = [];
    beforeAll(async () => {
      env = await createTestEnv(dialect);
      server = await env.start();
      alarms = need(server.services, 'industryAlarms');
      need(server.services, 'bus').on('status', (e) => statuses.push(e));
      need(server.services, 'bus').on('alarm', (e) => bus.push(e));
    });
    afterAll(async () => env?.cleanup());

    const base = { tenant_id: 't1', site_id: 's1', industry_code: 'poultry' as const, unit_id: 'house-1', source: 'poultry-rules', actor: 'poultry-rules' };

    it('raises once per open rule and unit, with an SLA deadline, bridged when severe', async () => {
      const t0 = new Date('2026-01-01T00:00:00.000Z');
      const first = await alarms.raise({ ...base, rule_id: 'temp_high', metric: 'temp', value: 35.2, severity: 'critical', priority: 'P1', title: 'House 1 too hot', sla_target_sec: 300, now: t0 });
      expect(first.created).toBe(true);
      expect(first.event).toMatchObject({ status: 'active', escalation_level: 0, sla_breached: false, bridged_to_status: true, sla_deadline_at: '2026-01-01T00:05:00.000Z' });
      const again = await alarms.raise({ ...base, rule_id: 'temp_high', severity: 'critical', title: 'House 1 too hot', now: t0 });
      expect(again).toEqual({ event: first.event, created: false });
      // The contract's bridge (critical, high); the alarm view's alarm_changed comes for every raise.
      const bridged = statuses.filter((s) => s.correlation_id === first.event.correlation_id && s.event !== 'alarm_changed');
      expect(bridged).toEqual([expect.objectContaining({ event: 'alarm_raised', status: 'error', tenant_id: 't1', site_id: 's1' })]);
      expect(bus.filter((b) => b.alarm.id === first.event.id).map((b) => b.kind)).toEqual(['raised']);
      const mild = await alarms.raise({ ...base, rule_id: 'rh_low', severity: 'medium', title: 'Dry air' });
      expect(mild.event.bridged_to_status).toBe(false);
      // Not bridged: no contract status event; the alarm view's alarm_changed, stored with the change, still comes.
      expect(statuses.filter((s) => s.correlation_id === mild.event.correlation_id).map((s) => s.event)).toEqual(['alarm_changed']);
      const all = await alarms.raise({ ...base, unit_id: 'house-2', severity: 'medium', title: 'Published', bridge: 'all' });
      expect(statuses.find((s) => s.correlation_id === all.event.correlation_id)?.status).toBe('warn');
    });

    it('lists a unit\'s open alarms by tenant, industry and unit (the prepared lookup), oldest first', async () => {
      const ofUnit = async (unit: string, industry = 'poultry', tenant = 't1') => (await alarms.open({ tenant_id: tenant, industry_code: industry, unit_id: unit })).map((r) => r.rule_id ?? r.title);
      const byFilter = async (unit: string) => (await alarms.open({ tenant_id: 't1', industry_code: 'poultry' })).filter((r) => r.unit_id === unit).map((r) => r.rule_id ?? r.title);
      expect(await ofUnit('house-1')).toEqual(['temp_high', 'rh_low']);
      expect(await ofUnit('house-1')).toEqual(await byFilter('house-1'));
      expect(await ofUnit('house-2')).toEqual(['Published']);
      expect(await ofUnit('house-1', 'swine')).toEqual([]);
      expect(await ofUnit('house-1', 'poultry', 't2')).toEqual([]);
      await alarms.raise({ ...base, unit_id: 'house-9', rule_id: 'nh3_high', severity: 'high', title: 'NH3' });
      expect(await ofUnit('house-9')).toEqual(['nh3_high']);
      await alarms.clear({ tenant_id: 't1', industry_code: 'poultry', unit_id: 'house-9', rule_id: 'nh3_high', actor: 'poultry-rules' });
      // A cleared condition stays open until acknowledged (alarm-states.ts); what open() lists is the status.
      expect(await ofUnit('house-9')).toEqual(await byFilter('house-9'));
    });

    it('escalates only after the deadline (or when forced), moving the deadline on', async () => {
      const [open] = await alarms.open({ tenant_id: 't1', rule_id: 'temp_high' });
      await expect(alarms.escalate({ id: open!.id, actor: 'op', now: new Date('2026-01-01T00:04:00.000Z') })).rejects.toMatchObject({ code: 'lifecycle_conflict' });
      expect((await alarms.overdue(new Date('2026-01-01T00:04:00.000Z'))).map((r) => r.id)).not.toContain(open!.id);
      expect((await alarms.overdue(new Date('2026-01-01T00:06:00.000Z'))).map((r) => r.id)).toContain(open!.id);
      const up = await alarms.escalate({ id: open!.id, actor: 'scheduler', now: new Date('2026-01-01T00:06:00.000Z') });
      expect(up).toMatchObject({ escalation_level: 1, sla_breached: true, status: 'active', sla_deadline_at: '2026-01-01T00:11:00.000Z' });
      expect(statuses.filter((s) => s.correlation_id === open!.correlation_id && s.event !== 'alarm_changed').map((s) => s.event)).toEqual(['alarm_raised', 'alarm_escalated']);
      const audit = await server.services.db.rows<{ action: string }>((await import('drizzle-orm')).sql`select action from audit_records where correlation_id = ${open!.correlation_id} order by id`);
      expect(audit.map((a) => a.action)).toEqual(['alarm.raise', 'alarm.escalate']);
    });

    it('acknowledges once, keeping the first, and refuses another tenant', async () => {
      const [open] = await alarms.open({ tenant_id: 't1', rule_id: 'temp_high' });
      await expect(alarms.ack({ id: open!.id, tenant_id: 't2', assignee: 'x', actor: 'x' })).rejects.toMatchObject({ code: 'alarm_not_found' });
      const acked = await alarms.ack({ id: open!.id, tenant_id: 't1', assignee: 'anna', actor: 'op-1' });
      expect(acked).toMatchObject({ status: 'acked', assignee: 'anna', acked_by: 'op-1' });
      expect(acked.acked_at).not.toBeNull();
      await expect(alarms.ack({ id: open!.id, assignee: 'bob', actor: 'op-2' })).rejects.toMatchObject({ code: 'alarm_already_acknowledged' });
      await expect(alarms.escalate({ id: open!.id, actor: 'op', force: true })).rejects.toMatchObject({ code: 'lifecycle_conflict' });
      expect((await alarms.overdue(new Date('2027-01-01T00:00:00.000Z'))).map((r) => r.id)).not.toContain(open!.id);
    });

    it('clears the open event of a rule, after which the rule raises anew', async () => {
      const cleared = await alarms.clear({ tenant_id: 't1', industry_code: 'poultry', unit_id: 'house-1', rule_id: 'temp_high', actor: 'poultry-rules' });
      expect(cleared).toMatchObject({ status: 'cleared' });
      expect(statuses.filter((s) => s.correlation_id === cleared!.correlation_id).map((s) => s.event)).toContain('alarm_cleared');
      expect(await alarms.clear({ tenant_id: 't1', industry_code: 'poultry', unit_id: 'house-1', rule_id: 'temp_high', actor: 'poultry-rules' })).toBeUndefined();
      const fresh = await alarms.raise({ ...base, rule_id: 'temp_high', severity: 'high', title: 'Hot again' });
      expect(fresh.created).toBe(true);
      expect(fresh.event.id).not.toBe(cleared!.id);
    });
  });
}
