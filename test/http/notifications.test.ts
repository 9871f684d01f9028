// Notification off site, against real peers: an SMTP server on loopback (Debian's python3-aiosmtpd,
// test/peers/smtp_sink.py, requiring AUTH) and a local HTTP receiver that checks the webhook
// signature. On the box: a P1 raise reaches the crew's e-mail and the webhook in farm words, an
// escalation reaches the manager only, a clear reaches the webhook; with the SMTP server down the
// delivery is retried and failed, audited each time, and delivered once the server is back (by
// the next retry, or by commands/retry); a pending delivery survives a restart. On the master: an
// alarm raised on a box arrives by sync and is notified with the tenant's master rules, naming the
// reading, the limit and since when, and its acknowledgement reaches the on_ack rules; an older
// box's event (no reading in its view) is still notified. A P1 raised on an out-of-service house,
// or escalated while shelved, sends nothing and is listed suppressed; the held raise goes out when
// the house returns to service. Every change to channels and rules is
// audited without its secret. Secrets are never in an answer, the audit or a log line; operators
// cannot manage channels.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, createClient, type Client } from '../helpers/client.js';
import { freePort, Receiver, SmtpSink, until, verifySignature } from '../helpers/notification-peers.js';
import type { RunningServer } from '../../src/server.js';

const SMTP_USER = 'cabinet-box';
const SMTP_PASSWORD = 'smtp-Pa55-never-shown-7f3a';
const WEBHOOK_KEY = 'whk-signing-key-never-shown-91c2';

const SITE = { tenant_id: 'farm-a', site_id: 'site-1' };

describe.each(DIALECTS)('notifications on the box (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let op: Client;
  let smtp: SmtpSink;
  const hooks = new Receiver();

  const connect = async () => {
    admin = await clientAs(env, server, { subject: 'boss', role: 'admin', scope_type: 'tenant', ...SITE }, (admin as Client | undefined)?.contract);
    op = await clientAs(env, server, { subject: 'op', role: 'operator', scope_type: 'tenant', ...SITE }, admin.contract);
  };
  const publish = (body: Record<string, unknown>) => admin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', ...body });
  const deliveries = async (query: string) => (await admin.get(`/api/v1/notification-deliveries/list?${query}`)).body.items as Record<string, unknown>[];

  beforeAll(async () => {
    smtp = new SmtpSink(await freePort(), SMTP_USER, SMTP_PASSWORD);
    await smtp.start();
    await hooks.start('/hooks/cabinet?token=abc');
    env = await createTestEnv(dialect);
    writeFileSync(join(env.dataDir, 'site.json'), JSON.stringify(SITE));
    server = await env.start({ mqtt_broker: 'off', site_timezone: 'Europe/Berlin', shutdown_timeout_ms: '1000' });
    await connect();
  });
  afterAll(async () => {
    await smtp.close();
    await hooks.stop();
    await env.cleanup();
  });

  it('keeps channel secrets write-only and lets only admins manage channels and rules', async () => {
    const mail = await admin.post('/api/v1/notification-channels', { item: {
      id: 'mail', name: 'Farm mail', kind: 'email', smtp_host: '127.0.0.1', smtp_port: smtp.port, smtp_tls: 'none', smtp_user: SMTP_USER,
      smtp_password: SMTP_PASSWORD, smtp_from: 'box@farm-a.test', site_name: 'Farm A north', link_url: 'http://box.farm-a.test:8080/', retry_max_attempts: 3, retry_base_ms: 200,
    } });
    expect(mail.status).toBe(201);
    expect(mail.body.item).toMatchObject({ id: 'mail', tenant_id: 'farm-a', kind: 'email', has_secret: true, smtp_port: smtp.port });
    const hook = await admin.post('/api/v1/notification-channels', { item: { id: 'hook', name: 'Farm webhook', kind: 'webhook', webhook_url: hooks.url, webhook_key: WEBHOOK_KEY, site_name: 'Farm A north' } });
    expect(hook.status).toBe(201);
    expect(hook.body.item).toMatchObject({ has_secret: true, retry_max_attempts: 8, retry_base_ms: 30_000 });

    const answers = [mail, hook, await admin.get('/api/v1/notification-channels/list'), await op.get('/api/v1/notification-channels/list'),
      await op.get('/api/v1/notification-channels/mail'), await admin.get('/api/v1/notification-channels/scheme')];
    for (const a of answers) {
      expect(a.status).toBeLessThan(300);
      expect(a.text).not.toContain(SMTP_PASSWORD);
      expect(a.text).not.toContain(WEBHOOK_KEY);
      expect(a.text).not.toContain('secret_enc');
    }
    expect((await op.get('/api/v1/notification-channels/list')).body.items).toHaveLength(2);
    // The webhook URL's query (a token) is write-only as well.
    expect(hook.body.item.webhook_url).toBe(hooks.url.replace('?token=abc', ''));
    for (const a of answers) expect(a.text).not.toContain('token=abc');
    // Stored sealed, not as typed.
    const stored = JSON.stringify(await server.services.db.orm.select().from((await import('../../src/db/sql.js')).tableOf((await import('../../src/modules/notifications/schema.js')).channelRecord.table, server.services.db)));
    expect(stored).not.toContain(SMTP_PASSWORD);
    expect(stored).not.toContain(WEBHOOK_KEY);

    // Operators read, never write; bad input is refused and changes nothing.
    expect((await op.post('/api/v1/notification-channels', { item: { name: 'x', kind: 'webhook', webhook_url: hooks.url, webhook_key: WEBHOOK_KEY } })).body.error.code).toBe('rbac_forbidden');
    expect((await op.patch('/api/v1/notification-channels/mail', { item: { smtp_password: 'stolen-password' } })).body.error.code).toBe('rbac_forbidden');
    expect((await op.post('/api/v1/notification-rules', { item: { name: 'x', channel_id: 'hook' } })).body.error.code).toBe('rbac_forbidden');
    const bad = [
      { name: 'no host', kind: 'email', smtp_from: 'a@b.test' },
      { name: 'no key', kind: 'webhook', webhook_url: hooks.url },
      { name: 'short key', kind: 'webhook', webhook_url: hooks.url, webhook_key: 'short' },
      { name: 'ftp', kind: 'webhook', webhook_url: 'ftp://x.test/', webhook_key: WEBHOOK_KEY },
      { name: 'wrong secret', kind: 'email', smtp_host: 'h', smtp_from: 'a@b.test', webhook_key: WEBHOOK_KEY },
    ];
    for (const item of bad) {
      const r = await admin.post('/api/v1/notification-channels', { item });
      expect(r.status, item.name).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    }
    expect((await admin.post('/api/v1/notification-rules', { item: { name: 'x', channel_id: 'nope', recipients: ['a@b.test'] } })).body.error.details[0]).toMatchObject({ field: 'item.channel_id', reason: 'not_found' });
    expect((await admin.post('/api/v1/notification-rules', { item: { name: 'x', channel_id: 'mail' } })).body.error.details[0]).toMatchObject({ field: 'item.recipients', reason: 'required' });
    expect((await admin.post('/api/v1/notification-rules', { item: { name: 'x', channel_id: 'mail', recipients: ['not an address'] } })).status).toBe(400);
    expect((await admin.get('/api/v1/notification-channels/list')).body.total).toBe(2);
    expect((await admin.get('/api/v1/notification-rules/list')).body.total).toBe(0);
    // Another tenant sees none of them.
    const other = await clientAs(env, server, { subject: 'x', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-z' }, admin.contract);
    expect((await other.get('/api/v1/notification-channels/list')).body.total).toBe(0);
    expect((await other.get('/api/v1/notification-channels/mail')).status).toBe(404);
  });

  it('audits every change to channels and rules, with no secret in the details', async () => {
    const NEW_PASSWORD = 'rotated-Pa55-never-in-audit-0b9d';
    const NEW_KEY = 'rotated-webhook-key-never-in-audit-55e1';
    const trail = async (prefix: string) => ((await admin.get(`/api/v1/audit/list?resource=${prefix.replace('.', 's')}&limit=100&sort=created_at&order=asc`)).body.items as { action: string; actor: string; resource: string; result: string; tenant_id: string; correlation_id: string; details: Record<string, unknown> }[])
      .filter((a) => a.action.startsWith(prefix) && [a.details.id, a.details.channel_id].some((x) => String(x).startsWith('aud-')));
    const made = await admin.post('/api/v1/notification-channels', { item: { id: 'aud-mail', name: 'Audit mail', kind: 'email', smtp_host: '127.0.0.1', smtp_port: smtp.port, smtp_tls: 'none', smtp_user: SMTP_USER, smtp_password: SMTP_PASSWORD, smtp_from: 'box@farm-a.test' } });
    expect(made.status).toBe(201);
    expect((await admin.post('/api/v1/notification-channels', { item: { id: 'aud-hook', name: 'Audit hook', kind: 'webhook', webhook_url: hooks.url, webhook_key: WEBHOOK_KEY } })).status).toBe(201);
    expect((await admin.patch('/api/v1/notification-channels/aud-mail', { item: { smtp_password: NEW_PASSWORD, retry_base_ms: 500 } })).status).toBe(200);
    expect((await admin.patch('/api/v1/notification-channels/aud-mail', { item: { smtp_password: null } })).status).toBe(200);
    expect((await admin.patch('/api/v1/notification-channels/aud-hook', { item: { webhook_key: NEW_KEY, webhook_url: `${hooks.url}&again=1` } })).status).toBe(200);
    expect((await admin.post('/api/v1/notification-rules', { item: { id: 'aud-rule', name: 'Audit rule', channel_id: 'aud-mail', recipients: ['audit@farm-a.test'], priorities: ['P1'] } })).status).toBe(201);
    expect((await admin.patch('/api/v1/notification-rules/aud-rule', { item: { on_clear: true, recipients: ['audit2@farm-a.test'] } })).status).toBe(200);
    // Refused changes change nothing and are not audited as done.
    expect((await admin.patch('/api/v1/notification-rules/aud-rule', { item: { recipients: [] } })).status).toBe(400);
    expect((await op.delete('/api/v1/notification-rules/aud-rule')).body.error.code).toBe('rbac_forbidden');
    expect((await admin.delete('/api/v1/notification-rules/aud-rule')).status).toBe(200);
    expect((await admin.delete('/api/v1/notification-channels/aud-mail')).status).toBe(200);
    expect((await admin.delete('/api/v1/notification-channels/aud-hook')).status).toBe(200);

    const channels = await trail('notification-channel.');
    expect(channels.map((a) => [a.action, a.details.id])).toEqual([
      ['notification-channel.create', 'aud-mail'], ['notification-channel.create', 'aud-hook'], ['notification-channel.update', 'aud-mail'],
      ['notification-channel.update', 'aud-mail'], ['notification-channel.update', 'aud-hook'], ['notification-channel.delete', 'aud-mail'], ['notification-channel.delete', 'aud-hook'],
    ]);
    expect(channels.every((a) => a.actor === 'boss' && a.resource === 'notification-channels' && a.result === 'success' && a.tenant_id === 'farm-a')).toBe(true);
    expect(channels[0]!.details).toMatchObject({ id: 'aud-mail', name: 'Audit mail', kind: 'email', smtp_host: '127.0.0.1', smtp_user: SMTP_USER, secret: 'set' });
    expect(channels[2]!.details).toEqual({ id: 'aud-mail', name: 'Audit mail', changed: { smtp_password: 'set', retry_base_ms: 500 } });
    expect(channels[3]!.details).toEqual({ id: 'aud-mail', name: 'Audit mail', changed: { smtp_password: 'removed' } });
    expect(channels[4]!.details).toEqual({ id: 'aud-hook', name: 'Audit hook', changed: { webhook_key: 'set', webhook_url: hooks.url.replace('?token=abc', '') } });
    const rules = await trail('notification-rule.');
    expect(rules.map((a) => [a.action, a.details.id])).toEqual([['notification-rule.create', 'aud-rule'], ['notification-rule.update', 'aud-rule'], ['notification-rule.delete', 'aud-rule']]);
    expect(rules[0]!.details).toMatchObject({ channel_id: 'aud-mail', recipients: ['audit@farm-a.test'], priorities: ['P1'], on_clear: false });
    expect(rules[1]!.details).toEqual({ id: 'aud-rule', name: 'Audit rule', changed: { on_clear: true, recipients: ['audit2@farm-a.test'] } });
    // The correlation id is the request's.
    expect(new Set(rules.map((a) => a.correlation_id)).size).toBe(3);
    const text = JSON.stringify([...channels, ...rules]);
    for (const secret of [SMTP_PASSWORD, WEBHOOK_KEY, NEW_PASSWORD, NEW_KEY, 'token=abc', 'secret_enc']) expect(text).not.toContain(secret);
    expect((await admin.get('/api/v1/audit/list?limit=500')).text).not.toContain(NEW_PASSWORD);
  });

  it('tells the crew and the webhook of a P1 in farm words, the manager on escalation, the webhook on clear', async () => {
    const rules = [
      { id: 'crew', name: 'Crew at once', channel_id: 'mail', recipients: ['crew@farm-a.test'], priorities: ['P1'], max_escalation_level: 0 },
      { id: 'manager', name: 'Manager from the first escalation', channel_id: 'mail', recipients: ['manager@farm-a.test'], priorities: ['P1'], min_escalation_level: 1 },
      { id: 'hook-all', name: 'Everything to the webhook', channel_id: 'hook', on_clear: true },
      { id: 'p2-only', name: 'P2 only', channel_id: 'mail', recipients: ['p2@farm-a.test'], priorities: ['P2'] },
    ];
    for (const item of rules) expect((await admin.post('/api/v1/notification-rules', { item })).status).toBe(201);
    const raisedAt = new Date();
    const alarm = (await publish({
      unit_id: '3', severity: 'critical', priority: 'P1', title: 'House 3: Temperature far below target', metric: 'temp', value: 14.2,
      sla_target_sec: 900, details: { threshold: 18 }, correlation_id: `notify-${dialect}`,
    })).body.item;
    expect(alarm.status).toBe('active');

    const mail = await until('the crew e-mail', () => smtp.messages().find((m) => m.rcpt_tos.includes('crew@farm-a.test')));
    expect(mail).toMatchObject({ mail_from: 'box@farm-a.test', auth_user: SMTP_USER });
    const hhmm = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(raisedAt);
    expect(mail.subject).toBe('Farm A north: House 3: Temperature far below target [P1 critical]');
    expect(mail.text).toMatch(/^Site Farm A north\r?\n/);
    expect(mail.text).toContain(`House 3: Temperature far below target, 14.2 °C against a limit of 18 °C, since ${hhmm}.`);
    expect(mail.text).toContain('Open the box: http://box.farm-a.test:8080/');
    expect(smtp.messages().some((m) => m.rcpt_tos.includes('manager@farm-a.test') || m.rcpt_tos.includes('p2@farm-a.test'))).toBe(false);

    const raisedHook = await until('the webhook', () => hooks.got.find((h) => JSON.parse(h.body).event === 'raised'));
    expect(verifySignature(raisedHook, WEBHOOK_KEY)).toBe(true);
    expect(verifySignature({ ...raisedHook, body: raisedHook.body.replace('14.2', '24.2') }, WEBHOOK_KEY)).toBe(false);
    expect(verifySignature(raisedHook, 'another-key-of-some-length')).toBe(false);
    const body = JSON.parse(raisedHook.body);
    expect(raisedHook.headers['x-cabinet-delivery']).toBe(body.delivery_id);
    expect(body).toMatchObject({
      event: 'raised', site: { tenant_id: 'farm-a', site_id: 'site-1', name: 'Farm A north' },
      alarm: { id: alarm.id, priority: 'P1', severity: 'critical', unit_id: '3', metric: 'temp', value: 14.2, threshold: 18, unit: '°C', escalation_level: 0 },
    });
    expect(body.text).toContain('14.2 °C against a limit of 18 °C');

    await until('both deliveries sent', async () => (await deliveries(`alarm_id=${alarm.id}&status=sent`)).length === 2);
    const sent = await deliveries(`alarm_id=${alarm.id}`);
    expect(sent.map((d) => d.recipient).sort()).toEqual(['crew@farm-a.test', hooks.url.replace('?token=abc', '')]);
    expect(sent.every((d) => d.attempts === 1 && d.sent_at && d.event === 'raised')).toBe(true);
    const audit = (await admin.get('/api/v1/audit/list?action=notification.deliver')).body.items as { result: string; details: Record<string, unknown> }[];
    expect(audit.filter((a) => a.details.alarm_id === alarm.id).map((a) => [a.result, a.details.status])).toEqual([['success', 'sent'], ['success', 'sent']]);
    // Operators see the deliveries, not the retry.
    expect((await op.get(`/api/v1/notification-deliveries/list?alarm_id=${alarm.id}`)).body.total).toBe(2);
    expect((await op.post('/api/v1/notification-deliveries/commands/retry', { id: sent[0]!.id })).body.error.code).toBe('rbac_forbidden');

    // Escalation (unacknowledged past its SLA): the manager, not the crew again.
    expect((await admin.post('/api/v1/poultry-alarms/commands/escalate', { id: alarm.id, force: true })).status).toBe(200);
    const escalated = await until('the manager e-mail', () => smtp.messages().find((m) => m.rcpt_tos.includes('manager@farm-a.test')));
    expect(escalated.subject).toBe('Farm A north: ESCALATION 1: House 3: Temperature far below target [P1 critical]');
    expect(escalated.text).toContain('Not acknowledged: escalation 1.');
    await until('the escalation webhook', () => hooks.got.find((h) => JSON.parse(h.body).event === 'escalated'));
    expect(smtp.messages().filter((m) => m.rcpt_tos.includes('crew@farm-a.test'))).toHaveLength(1);

    // Clear: only the rule that asked for it.
    await server.services.industryAlarms!.clear({ id: alarm.id, tenant_id: 'farm-a', actor: 'test' });
    const cleared = await until('the clear webhook', () => hooks.got.find((h) => JSON.parse(h.body).event === 'cleared'));
    expect(verifySignature(cleared, WEBHOOK_KEY)).toBe(true);
    expect(JSON.parse(cleared.body).text).toContain('The condition has ended.');
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages()).toHaveLength(2);
    // The same event read twice queues nothing new.
    const facts = (await import('../../src/modules/notifications/sources.js')).factsOfBus;
    const again = await facts(server.services, { kind: 'raised', alarm: { ...alarm, state: 'active', acknowledged_by: null, comment: null } });
    expect(await server.services.notifier!.enqueue(again!)).toBe(0);
  });

  it('tells the rules with on_ack who acknowledged an alarm, and no other rule', async () => {
    const rules = [
      { id: 'ack-crew', name: 'Crew hears of acknowledgements', channel_id: 'mail', recipients: ['ack-crew@farm-a.test'], priorities: ['P1'], on_ack: true },
      { id: 'ack-late', name: 'Manager, only past the SLA', channel_id: 'mail', recipients: ['ack-manager@farm-a.test'], priorities: ['P1'], min_escalation_level: 1, on_ack: true },
    ];
    for (const item of rules) expect((await admin.post('/api/v1/notification-rules', { item })).body.item).toMatchObject({ on_ack: true });
    expect((await admin.get('/api/v1/notification-rules/crew')).body.item.on_ack).toBe(false);
    const alarm = (await publish({ unit_id: '6', severity: 'critical', priority: 'P1', title: 'House 6: Water line pressure lost', correlation_id: `ack-${dialect}` })).body.item;
    await until('the raise e-mail', () => smtp.messages().find((m) => m.rcpt_tos.includes('ack-crew@farm-a.test') && m.subject.includes('House 6')));
    expect((await op.post('/api/v1/poultry-alarms/commands/ack', { id: alarm.id })).status).toBe(200);
    const acked = await until('the acknowledgement e-mail', () => smtp.messages().find((m) => m.rcpt_tos.includes('ack-crew@farm-a.test') && m.subject.includes('acknowledged: ')));
    expect(acked.subject).toBe('Farm A north: acknowledged: House 6: Water line pressure lost [P1 critical]');
    expect(acked.text).toMatch(/Acknowledged by op at (?:\S+ )?\d\d:\d\d; someone is on it\./);
    const acks = await until('the acknowledgement delivery sent', async () => {
      const items = await deliveries(`alarm_id=${alarm.id}&event=acknowledged`);
      return items.length > 0 && items.every((d) => d.status === 'sent') && items;
    });
    // Only the rule that asked, of those told of the alarm: not the crew rule without on_ack, not the webhook (on_clear only), not the manager (level 1).
    await new Promise((r) => setTimeout(r, 300));
    expect((await deliveries(`alarm_id=${alarm.id}&event=acknowledged`)).map((d) => d.rule_id)).toEqual(['ack-crew']);
    expect(acks[0]).toMatchObject({ recipient: 'ack-crew@farm-a.test', event: 'acknowledged' });
    expect(hooks.got.some((h) => JSON.parse(h.body).event === 'acknowledged')).toBe(false);
    expect(smtp.messages().some((m) => m.rcpt_tos.includes('ack-manager@farm-a.test'))).toBe(false);
    for (const id of ['ack-crew', 'ack-late']) expect((await admin.delete(`/api/v1/notification-rules/${id}`)).status).toBe(200);
  });

  it('sends nothing for a P1 raised on an out-of-service unit or escalated while shelved, lists it suppressed, and tells it once the unit is back in service', async () => {
    const rules = [
      { id: 'sup-crew', name: 'Crew, P1 at once', channel_id: 'mail', recipients: ['sup-crew@farm-a.test'], priorities: ['P1'], max_escalation_level: 0, on_ack: true },
      { id: 'sup-manager', name: 'Manager, P1 escalations', channel_id: 'mail', recipients: ['sup-manager@farm-a.test'], priorities: ['P1'], min_escalation_level: 1 },
    ];
    for (const item of rules) expect((await admin.post('/api/v1/notification-rules', { item })).status).toBe(201);
    const toCrew = (house: string) => smtp.messages().filter((m) => m.rcpt_tos.includes('sup-crew@farm-a.test') && m.subject.includes(`House ${house}:`));
    const hooksFor = (id: string) => hooks.got.filter((h) => JSON.parse(h.body).alarm?.id === id);

    expect((await admin.post('/api/v1/industry-alarms/commands/out-of-service', { industry_code: 'poultry', unit_id: '8', reason: 'washing out between flocks' })).status).toBe(200);
    const quiet = (await publish({ unit_id: '8', severity: 'critical', priority: 'P1', title: 'House 8: Temperature far below target', correlation_id: `oos-${dialect}` })).body.item;
    expect(quiet.out_of_service).toBe(true);
    const loud = (await publish({ unit_id: '9', severity: 'critical', priority: 'P1', title: 'House 9: Temperature far below target' })).body.item;
    await until('the house 9 e-mail', () => toCrew('9')[0]);
    await until('the house 9 webhook', () => hooksFor(loud.id)[0]);
    // The out-of-service raise is listed, not sent: one row per rule and recipient it would have gone to.
    const held = await until('the suppressed deliveries', async () => {
      const items = await deliveries(`alarm_id=${quiet.id}`);
      return items.length === 3 && items;
    });
    // (crew and hook-all are the rules of the first test, still in force)
    expect(held.map((d) => [d.rule_id, d.event, d.status, d.suppressed, d.attempts, d.sent_at]).sort()).toEqual([
      ['crew', 'raised', 'suppressed', 'out_of_service', 0, null], ['hook-all', 'raised', 'suppressed', 'out_of_service', 0, null], ['sup-crew', 'raised', 'suppressed', 'out_of_service', 0, null],
    ]);
    expect((await deliveries('status=suppressed')).map((d) => d.alarm_id)).toContain(quiet.id);
    // Escalated by a person while out of service: nobody is told either.
    expect((await admin.post('/api/v1/poultry-alarms/commands/escalate', { id: quiet.id, force: true })).status).toBe(200);
    await until('the suppressed escalation', async () => (await deliveries(`alarm_id=${quiet.id}&event=escalated`)).length === 3);
    expect((await deliveries(`alarm_id=${quiet.id}&event=escalated`)).every((d) => d.status === 'suppressed' && d.suppressed === 'out_of_service')).toBe(true);

    // Shelved, then escalated: the manager is not called for a shelved alarm.
    expect((await op.post('/api/v1/industry-alarms/commands/shelve', { id: loud.id, reason: 'heater being fixed', minutes: 60 })).status).toBe(200);
    expect((await admin.post('/api/v1/poultry-alarms/commands/escalate', { id: loud.id, force: true })).status).toBe(200);
    const shelvedEscalation = await until('the shelved escalation listed', async () => {
      const items = await deliveries(`alarm_id=${loud.id}&event=escalated`);
      return items.length === 3 && items;
    });
    expect(shelvedEscalation.map((d) => [d.rule_id, d.status, d.suppressed]).sort()).toEqual([['hook-all', 'suppressed', 'shelved'], ['manager', 'suppressed', 'shelved'], ['sup-manager', 'suppressed', 'shelved']]);

    // Back in service, still active and unacknowledged: the held raise goes out now, once.
    expect((await admin.post('/api/v1/industry-alarms/commands/return-to-service', { industry_code: 'poultry', unit_id: '8' })).status).toBe(200);
    const late = await until('the house 8 e-mail after the return to service', () => toCrew('8')[0]);
    expect(late.subject).toBe('Farm A north: House 8: Temperature far below target [P1 critical]');
    await until('the raise deliveries sent', async () => (await deliveries(`alarm_id=${quiet.id}&event=raised`)).every((d) => d.status === 'sent'));
    // Its acknowledgement now reaches the crew, who were told.
    expect((await op.post('/api/v1/poultry-alarms/commands/ack', { id: quiet.id })).status).toBe(200);
    await until('the acknowledgement e-mail', () => toCrew('8').find((m) => m.subject.includes('acknowledged: ')));

    await new Promise((r) => setTimeout(r, 500));
    expect(toCrew('8').map((m) => m.subject.startsWith('Farm A north: acknowledged: '))).toEqual([false, true]);
    expect(toCrew('9')).toHaveLength(1);
    expect(smtp.messages().some((m) => m.rcpt_tos.includes('sup-manager@farm-a.test') || (m.rcpt_tos.includes('manager@farm-a.test') && /House [89]:/.test(m.subject)))).toBe(false);
    expect(hooksFor(quiet.id).map((h) => JSON.parse(h.body).event)).toEqual(['raised']);
    expect(hooksFor(loud.id).map((h) => JSON.parse(h.body).event)).toEqual(['raised']);
    for (const r of rules) expect((await admin.delete(`/api/v1/notification-rules/${r.id}`)).status).toBe(200);
    await op.post('/api/v1/poultry-alarms/commands/ack', { id: loud.id });
  });

  it('retries with back-off while the SMTP server is down, records failed, and delivers once it is back', async () => {
    await admin.post('/api/v1/notification-rules', { item: { id: 'p2-all', name: 'P2 to the office', channel_id: 'mail', recipients: ['office@farm-a.test'], priorities: ['P2'] } });
    await smtp.stop();
    const first = (await publish({ unit_id: '2', severity: 'high', priority: 'P2', title: 'House 2: Feed far below expected' })).body.item;
    const failed = await until('a failed delivery', async () => (await deliveries(`alarm_id=${first.id}&recipient=office@farm-a.test`)).find((d) => d.status === 'failed'));
    expect(failed).toMatchObject({ attempts: 3, next_attempt_at: null, last_error: expect.stringMatching(/ECONNREFUSED/) });
    // The audit record of an attempt follows the row's update: wait for the third.
    const trail = await until('three audited attempts', async () => {
      const items = ((await admin.get(`/api/v1/audit/list?action=notification.deliver&correlation_id=${first.id}&sort=created_at&order=asc`)).body.items as { result: string; created_at: string; details: Record<string, unknown> }[])
        .filter((a) => a.details.recipient === 'office@farm-a.test');
      return items.length >= 3 && items;
    });
    expect(trail.map((a) => [a.result, a.details.status, a.details.attempt])).toEqual([['error', 'retrying', 1], ['error', 'retrying', 2], ['error', 'failed', 3]]);
    // Back-off: the next attempt is due 200 ms, then 400 ms after a failure, and never runs sooner.
    // The audit record is written after the delivery's row, so its time is later than the failure
    // by that write (135 ms once on a loaded machine): the second wait is longer than the whole
    // first one while that write takes under 200 ms.
    const due = trail.slice(0, 2).map((a) => Date.parse(a.details.next_attempt_at as string) - Date.parse(a.created_at));
    expect(due[0]).toBeLessThanOrEqual(200);
    expect(due[0]).toBeGreaterThan(0);
    expect(due[1]).toBeLessThanOrEqual(400);
    expect(due[1]).toBeGreaterThan(200);
    for (const [i, a] of trail.slice(1).entries()) expect(Date.parse(a.created_at)).toBeGreaterThanOrEqual(Date.parse(trail[i]!.details.next_attempt_at as string));

    // A delivery still retrying goes out by itself once the server is back.
    await admin.patch('/api/v1/notification-channels/mail', { item: { retry_max_attempts: 10, retry_base_ms: 300 } });
    const second = (await publish({ unit_id: '4', severity: 'high', priority: 'P2', title: 'House 4: Water far below expected' })).body.item;
    await until('two failed attempts', async () => Number((await deliveries(`alarm_id=${second.id}&recipient=office@farm-a.test`))[0]?.attempts ?? 0) >= 2);
    expect((await deliveries(`alarm_id=${second.id}&recipient=office@farm-a.test`))[0]!.status).toBe('pending');
    await smtp.start();
    await until('the retried e-mail', () => smtp.messages().find((m) => m.text.includes('House 4: Water far below expected')));
    await until('sent', async () => (await deliveries(`alarm_id=${second.id}&recipient=office@farm-a.test`))[0]!.status === 'sent');

    // The failed one is queued again by an admin and goes out.
    const retry = await admin.post('/api/v1/notification-deliveries/commands/retry', { id: failed.id });
    expect(retry.body.item).toMatchObject({ status: 'pending', attempts: 0 });
    await until('the failed one sent', async () => (await admin.get(`/api/v1/notification-deliveries/${failed.id}`)).body.item.status === 'sent');
    expect(smtp.messages().some((m) => m.text.includes('House 2: Feed far below expected'))).toBe(true);
    expect((await admin.post('/api/v1/notification-deliveries/commands/retry', { id: failed.id })).body.error.code).toBe('lifecycle_conflict');
    expect((await admin.post('/api/v1/notification-deliveries/commands/retry', { id: 'nd-nope' })).status).toBe(404);
  });

  it('keeps a pending delivery across a restart and sends it after', async () => {
    await smtp.stop();
    await admin.patch('/api/v1/notification-channels/mail', { item: { retry_base_ms: 4000 } });
    const alarm = (await publish({ unit_id: '5', severity: 'high', priority: 'P2', title: 'House 5: NH3 above limit' })).body.item;
    const [pending] = [await until('a failed first attempt', async () => (await deliveries(`alarm_id=${alarm.id}&recipient=office@farm-a.test`)).find((d) => d.attempts === 1))];
    expect(pending).toMatchObject({ status: 'pending', last_error: expect.stringMatching(/ECONNREFUSED/) });
    // Stopped before its next attempt is due; the server comes back while the box is down.
    await server.close();
    await smtp.start();
    server = await env.start({ mqtt_broker: 'off', site_timezone: 'Europe/Berlin', shutdown_timeout_ms: '1000' });
    await connect();
    const sent = await until('sent after the restart', async () => (await deliveries(`alarm_id=${alarm.id}&recipient=office@farm-a.test`)).find((d) => d.status === 'sent'));
    expect(sent).toMatchObject({ id: pending!.id, attempts: 2, last_error: null });
    expect(Date.parse(sent.sent_at as string)).toBeGreaterThanOrEqual(Date.parse(pending!.updated_at as string) + 4000);
    expect(smtp.messages().filter((m) => m.rcpt_tos.includes('office@farm-a.test') && m.text.includes('House 5: NH3 above limit'))).toHaveLength(1);
  });

  it('never writes a secret to a log line or the audit', async () => {
    const audit = (await admin.get('/api/v1/audit/list?limit=500')).text;
    const logs = JSON.stringify(env.logs);
    for (const secret of [SMTP_PASSWORD, WEBHOOK_KEY, Buffer.from(SMTP_PASSWORD).toString('base64')]) {
      expect(audit).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    // The log did record the failed attempts (so the check above looked at real lines).
    expect(logs).toContain('notification attempt failed; will retry');
  });
});

describe.each(DIALECTS)('notifications on the master for every site (%s)', (dialect) => {
  let masterEnv: TestEnv;
  let edgeEnv: TestEnv;
  let master: RunningServer;
  let edge: RunningServer;
  let fleet: Client;
  let smtp: SmtpSink;
  const hooks = new Receiver();

  beforeAll(async () => {
    await hooks.start('/hooks/cabinet?token=abc');
    smtp = new SmtpSink(await freePort(), SMTP_USER, SMTP_PASSWORD);
    await smtp.start();
    masterEnv = await createTestEnv(dialect);
    edgeEnv = await createTestEnv('sqlite');
    // The test's webhook receiver and SMTP sink are on loopback: the master's operator allows it.
    master = await masterEnv.start({ mode: 'cloud-multi', master_private_targets: 'true', mqtt_broker: 'off' });
    fleet = await clientAs(masterEnv, master);
    const reg = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { ...SITE, industry_code: 'poultry' });
    writeFileSync(join(edgeEnv.dataDir, 'site-credential'), `${reg.body.item.credential}\n`, { mode: 0o600 });
    writeFileSync(join(edgeEnv.dataDir, 'site.json'), JSON.stringify(SITE));
    edge = await edgeEnv.start({ mqtt_broker: 'off', sync_master_url: master.url, sync_interval_ms: '100' });
  });
  afterAll(async () => {
    await edgeEnv.cleanup();
    await masterEnv.cleanup();
    await hooks.stop();
    await smtp.close();
  });

  it('notifies a site\'s alarm with the tenant\'s master rules, signed, naming the site', async () => {
    const owner = await clientAs(masterEnv, master, { subject: 'farm-a-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-a' }, fleet.contract);
    expect((await owner.post('/api/v1/notification-channels', { item: { id: 'hq', name: 'HQ', kind: 'webhook', webhook_url: hooks.url, webhook_key: WEBHOOK_KEY } })).status).toBe(201);
    expect((await owner.post('/api/v1/notification-rules', { item: { id: 'p1', name: 'P1 of every site', channel_id: 'hq', priorities: ['P1'] } })).status).toBe(201);
    expect((await owner.post('/api/v1/notification-channels', { item: { id: 'hq-mail', name: 'HQ mail', kind: 'email', smtp_host: '127.0.0.1', smtp_port: smtp.port, smtp_tls: 'none', smtp_user: SMTP_USER, smtp_password: SMTP_PASSWORD, smtp_from: 'master@farm-a.test' } })).status).toBe(201);
    expect((await owner.post('/api/v1/notification-rules', { item: { id: 'p1-mail', name: 'P1 to the manager', channel_id: 'hq-mail', recipients: ['manager@farm-a.test'], priorities: ['P1'] } })).status).toBe(201);
    const boxAdmin = await clientAs(edgeEnv, edge, { subject: 'boss', role: 'admin', scope_type: 'tenant', ...SITE }, fleet.contract);
    const alarm = (await boxAdmin.post('/api/v1/industry-alarms/commands/publish', {
      industry_code: 'poultry', unit_id: '1', severity: 'critical', priority: 'P1', title: 'House 1: Temperature far above target', metric: 'temp', value: 31.4,
      details: { threshold: 28, comparator: 'gt' },
    })).body.item;
    const hook = await until('the master webhook', () => hooks.got.find((h) => JSON.parse(h.body).alarm?.id === alarm.id), 30_000);
    expect(verifySignature(hook, WEBHOOK_KEY)).toBe(true);
    // The reading, its limit and the box's raise time came with the synced event.
    expect(JSON.parse(hook.body)).toMatchObject({
      event: 'raised', site: { tenant_id: 'farm-a', site_id: 'site-1', name: 'site-1' },
      alarm: { title: 'House 1: Temperature far above target', priority: 'P1', metric: 'temp', value: 31.4, threshold: 28, comparator: 'gt', unit: '°C', since: alarm.raised_at },
    });
    const mail = await until('the master e-mail', () => smtp.messages().find((m) => m.text.includes('House 1: Temperature far above target')), 30_000);
    expect(mail).toMatchObject({ mail_from: 'master@farm-a.test', rcpt_tos: ['manager@farm-a.test'] });
    const hhmm = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(alarm.raised_at));
    expect(mail.text).toContain(`House 1: Temperature far above target, 31.4 °C against a limit of 28 °C, since ${hhmm}.`);
    const listed = await until('the deliveries recorded sent', async () => {
      const items = (await owner.get(`/api/v1/notification-deliveries/list?alarm_id=${alarm.id}`)).body.items as { status: string; rule_id: string }[];
      return items.length === 2 && items.every((d) => d.status === 'sent') && items;
    });
    expect(listed.map((d) => d.rule_id).sort()).toEqual(['p1', 'p1-mail']);
    expect(listed).toMatchObject([{ status: 'sent', site_id: 'site-1' }, { status: 'sent', site_id: 'site-1' }]);
    // The box has no rules of its own: it sent nothing itself.
    expect(hooks.got.filter((h) => JSON.parse(h.body).alarm?.id === alarm.id)).toHaveLength(1);
    expect(JSON.stringify(masterEnv.logs)).not.toContain(WEBHOOK_KEY);

    // The box's acknowledgement reaches the master's on_ack rule, and no other.
    expect((await owner.post('/api/v1/notification-rules', { item: { id: 'ack-mail', name: 'Who took it', channel_id: 'hq-mail', recipients: ['duty@farm-a.test'], on_ack: true } })).status).toBe(201);
    expect((await boxAdmin.post('/api/v1/poultry-alarms/commands/ack', { id: alarm.id })).status).toBe(200);
    const acked = await until('the master acknowledgement e-mail', () => smtp.messages().find((m) => m.rcpt_tos.includes('duty@farm-a.test') && m.subject.includes('acknowledged: ')), 30_000);
    expect(acked.subject).toBe('site-1: acknowledged: House 1: Temperature far above target [P1 critical]');
    expect(acked.text).toMatch(/Acknowledged by boss at (?:\S+ )?\d\d:\d\d; someone is on it\./);
    await until('the acknowledgement delivery sent', async () => (await owner.get(`/api/v1/notification-deliveries/list?alarm_id=${alarm.id}&event=acknowledged&status=sent`)).body.total === 1);
    expect(hooks.got.some((h) => JSON.parse(h.body).event === 'acknowledged')).toBe(false);
  });

  it('notifies an alarm event of an older box, whose view has no reading, limit or raise time', async () => {
    const reg = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'farm-a', site_id: 'site-old', industry_code: 'poultry' });
    const site = await createClient(master.url, {}, fleet.contract);
    const start = await site.post('/api/v1/auth/passkey/commands/start', { method: 'qr' });
    const done = await site.post('/api/v1/auth/passkey/commands/complete', { challenge_id: start.body.item.challenge_id, credential: reg.body.item.credential });
    const asSite = site.withHeaders({ authorization: `Bearer ${/cabinet_session=([^;]+)/.exec(done.headers.get('set-cookie') ?? '')![1]!}` });
    const created_at = new Date().toISOString();
    // The bus view as boxes before this version pushed it.
    const view = { id: 'old-box-alarm-1', tenant_id: 'farm-a', site_id: 'site-old', severity: 'critical', state: 'active', source: 'poultry-rules', title: 'House 7: Temperature far above target',
      correlation_id: 'old-1', acknowledged_by: null, comment: null, industry_code: 'poultry', unit_id: '7', priority: 'P1', escalation_level: 0, sla_deadline_at: null };
    const pushed = await asSite.post('/api/v1/site-sync/commands/push', { events: [{ seq: 1, kind: 'alarm', created_at, payload: { kind: 'raised', alarm: view } }], remaining: 0 });
    expect(pushed.status).toBe(200);
    const hook = await until('the webhook for the older box', () => hooks.got.find((h) => JSON.parse(h.body).alarm?.id === 'old-box-alarm-1'), 30_000);
    expect(JSON.parse(hook.body)).toMatchObject({ event: 'raised', site: { site_id: 'site-old' }, alarm: { metric: null, value: null, threshold: null, comparator: null, since: created_at } });
    const mail = await until('the e-mail for the older box', () => smtp.messages().find((m) => m.text.includes('House 7: Temperature far above target')), 30_000);
    expect(mail.text).toMatch(/House 7: Temperature far above target, since (?:\S+ )?\d\d:\d\d\./);
    expect(mail.text).not.toContain('against a limit');
  });
});
