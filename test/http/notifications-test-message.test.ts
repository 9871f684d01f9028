// notification-channels/commands/test against real peers (aiosmtpd requiring AUTH, an HTTP
// receiver checking the signature): the answer says in words what the server replied; a closed
// port, a wrong password and a receiver's error are 502 notification_test_failed with the cause in
// words, audited, nothing queued; the seventh test of a channel within a minute is 429; operators
// may not send one. Also the channel's own recipients (a rule without recipients sends to them) and
// rules narrowed to houses (unit_ids).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { freePort, Receiver, SmtpSink, until, verifySignature } from '../helpers/notification-peers.js';
import type { RunningServer } from '../../src/server.js';

const USER = 'cabinet-box';
const PASSWORD = 'smtp-Pa55-test-message-4c1e';
const KEY = 'whk-test-message-key-never-shown-77aa';
const SITE = { tenant_id: 'farm-t', site_id: 'site-1' };

describe.each(DIALECTS)('a channel\'s test message (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let op: Client;
  let smtp: SmtpSink;
  const hooks = new Receiver();
  const test = (id: string, extra: Record<string, unknown> = {}) => admin.post('/api/v1/notification-channels/commands/test', { id, ...extra });
  const audits = async (result: string) => (await admin.get(`/api/v1/audit/list?action=notification-channel.test&result=${result}&limit=50`)).body.items as { details: Record<string, unknown> }[];
  const mailChannel = (id: string, over: Record<string, unknown> = {}) => admin.post('/api/v1/notification-channels', { item: {
    id, name: `Mail ${id}`, kind: 'email', smtp_host: '127.0.0.1', smtp_port: smtp.port, smtp_tls: 'none', smtp_user: USER, smtp_password: PASSWORD,
    smtp_from: 'box@farm-t.test', recipients: ['crew@farm-t.test', 'boss@farm-t.test'], site_name: 'Farm T', ...over,
  } });

  beforeAll(async () => {
    smtp = new SmtpSink(await freePort(), USER, PASSWORD);
    await smtp.start();
    await hooks.start();
    env = await createTestEnv(dialect);
    writeFileSync(join(env.dataDir, 'site.json'), JSON.stringify(SITE));
    server = await env.start({ mqtt_broker: 'off' });
    admin = await clientAs(env, server, { subject: 'installer', role: 'admin', scope_type: 'tenant', ...SITE });
    op = await clientAs(env, server, { subject: 'op', role: 'operator', scope_type: 'tenant', ...SITE }, admin.contract);
  }, 120_000);
  afterAll(async () => {
    await smtp?.close();
    await hooks.stop();
    await env?.cleanup();
  });

  it('sends an e-mail to the channel\'s recipients and says what the mail server answered', async () => {
    expect((await mailChannel('mail')).status).toBe(201);
    const r = await test('mail');
    expect(r.status, r.text).toBe(200);
    expect(r.body.item).toMatchObject({ channel_id: 'mail', kind: 'email', sent_to: ['crew@farm-t.test', 'boss@farm-t.test'] });
    expect(r.body.item.reply).toMatch(/^250\b/);
    expect(r.body.item.words).toBe(`Sent: the mail server accepted it (${r.body.item.reply}).`);
    const mail = await until('the test e-mail', () => smtp.messages().find((m) => m.subject.includes('test message')));
    expect(mail).toMatchObject({ mail_from: 'box@farm-t.test', auth_user: USER, rcpt_tos: ['crew@farm-t.test', 'boss@farm-t.test'] });
    expect(mail.subject).toBe('Farm T: test message (channel Mail mail)');
    expect(mail.text).toContain('Alarm messages will come this way.');
    // Other addresses on request; the audit names them, never the password.
    expect((await test('mail', { to: ['night@farm-t.test'] })).body.item.sent_to).toEqual(['night@farm-t.test']);
    await until('the second e-mail', () => smtp.messages().some((m) => m.rcpt_tos.includes('night@farm-t.test')));
    const done = await audits('success');
    expect(done.map((a) => a.details.sent_to)).toEqual(expect.arrayContaining([['night@farm-t.test']]));
    expect(JSON.stringify(done)).not.toContain(PASSWORD);
    // Not a delivery: nothing queued.
    expect((await admin.get('/api/v1/notification-deliveries/list')).body.total).toBe(0);
  });

  it('signs a webhook test as every delivery is signed', async () => {
    expect((await admin.post('/api/v1/notification-channels', { item: { id: 'hook', name: 'Dialler', kind: 'webhook', webhook_url: `${hooks.url}?token=t0k`, webhook_key: KEY } })).status).toBe(201);
    const r = await test('hook');
    expect(r.status, r.text).toBe(200);
    expect(r.body.item).toMatchObject({ kind: 'webhook', sent_to: [hooks.url], reply: '204', words: 'Sent: the receiver accepted it (it answered 204).' });
    const got = await until('the webhook test', () => hooks.got.at(-1));
    expect(got.path).toBe('/hooks/cabinet?token=t0k');
    expect(verifySignature(got, KEY)).toBe(true);
    expect(verifySignature(got, 'some-other-key-of-length')).toBe(false);
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ event: 'test', alarm: null, site: { tenant_id: 'farm-t', site_id: 'site-1', name: 'site-1' } });
    expect(got.headers['x-cabinet-delivery']).toBe(body.delivery_id);
    expect(body.delivery_id).toMatch(/^test-/);
    expect(r.text).not.toContain('t0k');
  });

  it('answers a refused or unreachable server with the reason in words, audited, nothing stored', async () => {
    const closed = await freePort();
    expect((await mailChannel('closed', { smtp_port: closed })).status).toBe(201);
    expect((await mailChannel('wrong', { smtp_password: 'not-the-password' })).status).toBe(201);
    const down = await test('closed');
    expect(down.status).toBe(502);
    expect(down.body.error).toMatchObject({ code: 'notification_test_failed', details: [{ field: 'id', reason: 'unreachable' }] });
    expect(down.body.error.message).toBe(`The test message was not sent: nothing answers at the mail server 127.0.0.1 port ${closed} (connection refused).`);
    const login = await test('wrong');
    expect(login.body.error.details[0].reason, login.body.error.message).toBe('login_refused');
    expect(login.body.error.message).toMatch(/refused the login: 535\b.*check the login name and password\.$/);
    expect(login.text).not.toContain('not-the-password');

    hooks.answer = 500;
    const refused = await test('hook');
    hooks.answer = 204;
    expect(refused.status).toBe(502);
    expect(refused.body.error.details[0].reason).toBe('answered_error');
    expect(refused.body.error.message).toBe(`The test message was not sent: the receiver at ${hooks.url} answered 500 (an error on the receiver), not success.`);

    const failed = await audits('error');
    expect(failed.map((a) => a.details.reason).sort()).toEqual(['answered_error', 'login_refused', 'unreachable']);
    expect(JSON.stringify(failed)).not.toContain('not-the-password');
    expect((await admin.get('/api/v1/notification-deliveries/list')).body.total).toBe(0);
  });

  it('refuses what it cannot test, operators, and a button pressed in a loop', async () => {
    expect((await op.post('/api/v1/notification-channels/commands/test', { id: 'mail' })).body.error.code).toBe('rbac_forbidden');
    expect((await test('nope')).status).toBe(404);
    expect((await admin.post('/api/v1/notification-channels', { item: { id: 'bare', name: 'No one', kind: 'email', smtp_host: '127.0.0.1', smtp_port: smtp.port, smtp_tls: 'none', smtp_from: 'box@farm-t.test' } })).status).toBe(201);
    expect((await test('bare')).body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'to', reason: 'required' }] });
    expect((await test('hook', { to: ['a@farm-t.test'] })).body.error.details[0]).toMatchObject({ field: 'to', reason: 'not_allowed' });
    expect((await test('mail', { to: ['not an address'] })).status).toBe(400);
    // 'closed' was tried once above: five more pass, the seventh within the minute is refused.
    for (let i = 0; i < 5; i++) expect((await test('closed')).status).toBe(502);
    const limited = await test('closed');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Other channels are not held back by it.
    expect((await test('hook')).status).toBe(200);
  });

  it('keeps recipients on the channel for rules without their own, and narrows rules to houses', async () => {
    expect((await admin.post('/api/v1/notification-channels', { item: { name: 'x', kind: 'email', smtp_host: 'h', smtp_from: 'a@farm-t.test', recipients: ['crew@farm-t.test', 'no address'] } })).status).toBe(400);
    expect((await admin.post('/api/v1/notification-channels', { item: { name: 'x', kind: 'webhook', webhook_url: hooks.url, webhook_key: KEY, recipients: ['a@farm-t.test'] } })).body.error.details[0]).toMatchObject({ field: 'item.recipients', reason: 'not_allowed' });
    expect((await admin.post('/api/v1/notification-rules', { item: { name: 'x', channel_id: 'bare' } })).body.error.details[0]).toMatchObject({ field: 'item.recipients', reason: 'required' });
    const rule = await admin.post('/api/v1/notification-rules', { item: { id: 'h3', name: 'House 3 at once', channel_id: 'mail', priorities: ['P1'], unit_ids: ['3'] } });
    expect(rule.status, rule.text).toBe(201);
    expect(rule.body.item).toMatchObject({ recipients: [], unit_ids: ['3'] });
    const publish = (unit: string) => admin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', unit_id: unit, severity: 'critical', priority: 'P1', title: `House ${unit}: Water line pressure lost`, correlation_id: `units-${dialect}-${unit}` });
    const four = (await publish('4')).body.item;
    const three = (await publish('3')).body.item;
    const sent = await until('house 3 delivered to both channel recipients', async () => {
      const items = (await admin.get(`/api/v1/notification-deliveries/list?alarm_id=${three.id}&status=sent`)).body.items as { recipient: string }[];
      return items.length === 2 && items;
    });
    expect(sent.map((d) => d.recipient).sort()).toEqual(['boss@farm-t.test', 'crew@farm-t.test']);
    expect((await admin.get(`/api/v1/notification-deliveries/list?alarm_id=${four.id}`)).body.total).toBe(0);
  });
});
