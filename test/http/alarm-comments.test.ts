// industry-alarms/commands/comment: an operator notes what they found on an alarm; the comment is
// kept on the alarm (comments, oldest first, with who and when), shown in its record and in the
// other industry views, audited (alarm.comment), and changes nothing else. Both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

describe.each(DIALECTS)('alarm comments (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let admin: Client;
  let op: Client;
  let sec: Client;
  let otherTenant: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    op = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    sec = await clientAs(env, server, { subject: 'sec-a', role: 'security', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    otherTenant = await clientAs(env, server, { subject: 'op-b', role: 'operator', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
  });
  afterAll(async () => env.cleanup());

  const publish = async (industry_code: string, unit_id: string, title: string) =>
    (await admin.post('/api/v1/industry-alarms/commands/publish', { industry_code, unit_id, severity: 'high', priority: 'P1', title })).body.item as { id: string; correlation_id: string };

  it('keeps each comment on the alarm with who and when, oldest first, shown in its record, audited, changing nothing else', async () => {
    const alarm = await publish('poultry', 'H1', 'House 1: temperature far above target');
    const before = (await op.get(`/api/v1/industry-alarms/${alarm.id}`)).body.item;
    expect(before.comments).toBeNull();

    const first = await op.post('/api/v1/industry-alarms/commands/comment', { id: alarm.id, text: '  Fan 3 belt broken, replacing  ' });
    expect(first.status).toBe(200);
    expect(first.body.item.comments).toHaveLength(1);
    expect(first.body.item.comments[0]).toMatchObject({ text: 'Fan 3 belt broken, replacing', by: 'op-a' });
    expect(Date.parse(first.body.item.comments[0].at)).toBeGreaterThan(Date.now() - 60_000);
    await admin.post('/api/v1/industry-alarms/commands/comment', { id: alarm.id, text: 'Electrician called' });

    const record = (await op.get(`/api/v1/industry-alarms/${alarm.id}`)).body.item;
    expect(record.comments.map((x: { text: string; by: string }) => `${x.by}: ${x.text}`)).toEqual(['op-a: Fan 3 belt broken, replacing', 'admin-a: Electrician called']);
    // Nothing else about the alarm changed: still unacknowledged and active.
    expect(record).toMatchObject({ alarm_state: before.alarm_state, status: 'active', acked_at: null, condition: 'active', shelved: false });
    // The same event in the industry's own view carries them.
    expect((await op.get(`/api/v1/poultry-alarms/${alarm.id}`)).body.item.comments).toHaveLength(2);
    // The scheme describes the field.
    const scheme = (await op.get('/api/v1/industry-alarms/scheme')).body.item;
    expect(JSON.stringify(scheme)).toContain('comments');

    const audit = (await master.get(`/api/v1/audit/list?action=alarm.comment&correlation_id=${alarm.correlation_id}&limit=10`)).body.items as { actor: string; details: { id: string; text: string } }[];
    expect(audit.map((a) => `${a.actor}: ${a.details.text}`).sort()).toEqual(['admin-a: Electrician called', 'op-a: Fan 3 belt broken, replacing']);
  });

  it('comments in any state, also after the alarm cleared, and in melioration alerts', async () => {
    const alarm = await publish('melioration', 'north', 'Water deficit on North');
    await op.post('/api/v1/industry-alarms/commands/ack', { id: alarm.id });
    await admin.post('/api/v1/industry-alarms/commands/reset', { id: alarm.id });
    const r = await op.post('/api/v1/industry-alarms/commands/comment', { id: alarm.id, text: 'Pivot repaired, watered 25 mm' });
    expect(r.body.item).toMatchObject({ alarm_state: 'normal' });
    expect((await op.get(`/api/v1/melioration-alerts/${alarm.id}`)).body.item.comments[0]).toMatchObject({ text: 'Pivot repaired, watered 25 mm', by: 'op-a' });
  });

  it('refuses bad input, other tenants and the security role, changing nothing', async () => {
    const alarm = await publish('poultry', 'H2', 'House 2: water meter silent');
    for (const body of [{ id: alarm.id }, { id: alarm.id, text: '   ' }, { id: alarm.id, text: 'x'.repeat(2001) }, { id: alarm.id, text: 'ok', extra: 1 }, { text: 'no id' }, { id: alarm.id, text: 42 }]) {
      const r = await op.post('/api/v1/industry-alarms/commands/comment', body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    }
    expect((await op.post('/api/v1/industry-alarms/commands/comment', { id: 'no-such-alarm', text: 'x' })).body.error.code).toBe('alarm_not_found');
    expect((await otherTenant.post('/api/v1/industry-alarms/commands/comment', { id: alarm.id, text: 'x' })).body.error.code).toBe('alarm_not_found');
    expect((await sec.post('/api/v1/industry-alarms/commands/comment', { id: alarm.id, text: 'x' })).body.error.code).toBe('rbac_forbidden');
    expect((await op.get(`/api/v1/industry-alarms/${alarm.id}`)).body.item.comments).toBeNull();
  });

  it('keeps the latest 50 on the alarm, in order, when people comment at once', async () => {
    const alarm = await publish('poultry', 'H3', 'House 3: chattering door contact');
    for (let i = 0; i < 40; i++) await op.post('/api/v1/industry-alarms/commands/comment', { id: alarm.id, text: `note ${i}` });
    // Twenty at once: none is lost (the append is one statement).
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => admin.post('/api/v1/industry-alarms/commands/comment', { id: alarm.id, text: `burst ${i}` })));
    expect(burst.every((r) => r.status === 200)).toBe(true);
    const comments = (await op.get(`/api/v1/industry-alarms/${alarm.id}`)).body.item.comments as { text: string }[];
    expect(comments).toHaveLength(50);
    // The 10 oldest left the alarm; the kept ones are in order.
    expect(comments.slice(0, 30).map((x) => x.text)).toEqual(Array.from({ length: 30 }, (_, i) => `note ${i + 10}`));
    expect(comments.slice(30).map((x) => x.text).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `burst ${i}`).sort());
    expect((await master.get(`/api/v1/audit/list?action=alarm.comment&correlation_id=${alarm.correlation_id}&limit=100`)).body.total).toBe(60);
  });
});
