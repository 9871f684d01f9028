// Status stream clients for bench/fanout.ts, in their own process. The first IPC message is
// { url, tokens: string[], tenant } (one WebSocket per token; an empty token connects without one).
// Sends 'connected' when every client has its `ready`; on 'report' answers, per event name, how
// many clients received it and the monotonic time (process.hrtime, shared by the processes of one
// machine) at which the last one did, plus the events that reached a client of another tenant.
import WebSocket from 'ws';

const { url, tokens, tenant } = await new Promise<{ url: string; tokens: string[]; tenant: string | null }>((resolve) => process.once('message', (m) => resolve(m as never)));
const send = (m: unknown) => process.send?.(m);
/** Arrival times and raw messages; parsed only when reporting, so a client's turn stays short. */
const arrivals: { at: bigint; data: Buffer }[] = [];
const sockets: WebSocket[] = [];

function connect(token: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/v1/status/stream${token ? `?access_token=${token}` : ''}`);
    sockets.push(ws);
    let ready = false;
    ws.on('message', (data: Buffer) => {
      if (ready) { arrivals.push({ at: process.hrtime.bigint(), data }); return; }
      if ((JSON.parse(String(data)) as { type: string }).type === 'ready') { ready = true; resolve(); }
    });
    ws.on('error', reject);
    ws.on('close', (code) => { if (!ready) reject(new Error(`closed ${code}`)); });
  });
}

for (let i = 0; i < tokens.length; i += 50) await Promise.all(tokens.slice(i, i + 50).map(connect));
send('connected');

process.on('message', (m) => {
  if (m !== 'report') return;
  const events: Record<string, { count: number; last: string }> = {};
  let foreign = 0;
  for (const a of arrivals) {
    const msg = JSON.parse(String(a.data)) as { type: string; data?: { event: string; tenant_id: string | null } };
    if (msg.type !== 'event' || !msg.data) continue;
    if (tenant !== null && msg.data.tenant_id !== tenant) foreign++;
    const e = (events[msg.data.event] ??= { count: 0, last: '0' });
    e.count++;
    if (a.at > BigInt(e.last)) e.last = String(a.at);
  }
  arrivals.length = 0;
  send({ events, foreign });
});
process.on('disconnect', () => {
  for (const ws of sockets) ws.terminate();
  process.exit(0);
});
