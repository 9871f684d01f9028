// The tablet shell: login at the panel (RFID reader typing into the card field), the phone
// hand-off (QR link or 4-digit code), the workspace with the modules the caller may see, and the
// live status stream. Served by the binary; no external assets.
'use strict';
const $ = (id) => document.getElementById(id);
const api = async (method, path, body) => {
  const res = await fetch(path, { method, credentials: 'same-origin', headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error((data.error && data.error.message) || res.statusText), { status: res.status, code: data.error && data.error.code });
  return data;
};
let stream;

function show(section) {
  $('login').hidden = section !== 'login';
  $('home').hidden = section !== 'home';
  $('logout').hidden = section !== 'home';
}

async function startAndComplete(method, credential) {
  const ch = (await api('POST', '/api/v1/auth/passkey/commands/start', { method })).item;
  await api('POST', '/api/v1/auth/passkey/commands/complete', { challenge_id: ch.challenge_id, credential });
}

async function login(fn) {
  $('login-error').textContent = '';
  try {
    await fn();
    await enter();
  } catch (err) {
    $('login-error').textContent = err.code === 'rate_limited' ? 'Too many attempts: wait a few minutes.' : 'Login refused.';
  }
}

async function enter() {
  const me = (await api('GET', '/api/v1/auth/me')).item;
  if (!me.authenticated) { show('login'); $('card').focus(); return; }
  const ctx = (await api('GET', '/api/v1/app/context')).item;
  $('workspace').textContent = `${ctx.industry_code} workspace`;
  $('who').textContent = `${ctx.user.role} · ${ctx.user.scope}`;
  $('title').textContent = ctx.deployment_mode === 'edge-single' ? `${ctx.industry_code[0].toUpperCase()}${ctx.industry_code.slice(1)} site` : 'Fleet';
  const modules = await api('GET', '/api/v1/modules/list?limit=500').catch(() => ({ items: [] }));
  const view = ctx.policy.permissions.ui;
  $('modules').replaceChildren(...modules.items.filter((m) => m.installed && view[`ui:module.${m.id}.view`]).map((m) => {
    const li = document.createElement('li');
    li.dataset.module = m.id;
    li.textContent = m.name;
    const small = document.createElement('small');
    small.textContent = m.description;
    li.append(small);
    return li;
  }));
  show('home');
  connectStream(0);
}

function connectStream(since) {
  if (stream) stream.close();
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/status/stream${since ? `?since=${since}` : ''}`;
  stream = new WebSocket(url);
  let last = since;
  stream.onopen = () => { $('stream-state').textContent = 'connected'; };
  stream.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type !== 'event') return;
    last = msg.data.id;
    const li = document.createElement('li');
    li.className = msg.data.status;
    li.textContent = `${msg.data.timestamp.slice(11, 19)} ${msg.data.source}: ${msg.data.event} (${msg.data.status})`;
    $('events').prepend(li);
  };
  stream.onclose = (e) => {
    $('stream-state').textContent = 'reconnecting';
    if (e.code === 4401) { show('login'); return; }
    if (!$('home').hidden) setTimeout(() => connectStream(last), 2000);
  };
}

$('card-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const raw = $('card').value.trim();
  $('card').value = '';
  const credential = raw.startsWith('RF-') ? raw : `RF-${raw}`;
  void login(() => startAndComplete('rfid', credential));
});
$('code-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const code = $('code').value.trim();
  $('code').value = '';
  void login(() => api('POST', '/api/v1/auth/passkey/commands/complete', { code }));
});
$('logout').addEventListener('click', async () => {
  if (stream) { stream.onclose = null; stream.close(); }
  await api('POST', '/api/v1/auth/commands/logout').catch(() => undefined);
  show('login');
});
$('handoff').addEventListener('click', async () => {
  $('handoff-box').hidden = true; // never show a spent link while the new one is on its way
  const ch = (await api('POST', '/api/v1/auth/passkey/commands/start', { method: 'qr' })).item;
  $('handoff-code').textContent = ch.code;
  // The SVG comes from our own server (drawn by the qrcode library), not from user input.
  $('handoff-qr').innerHTML = ch.qr_svg || '';
  $('handoff-link').textContent = ch.qr_payload;
  $('handoff-link').href = ch.qr_payload;
  $('handoff-box').hidden = false;
});

// A phone arriving from the hand-off link: /#/login?challenge=...&secret=...
async function boot() {
  const m = /^#\/login\?(.*)$/.exec(location.hash);
  if (m) {
    const q = new URLSearchParams(m[1]);
    history.replaceState(null, '', '/');
    if (q.get('challenge') && q.get('secret')) {
      await login(() => api('POST', '/api/v1/auth/passkey/commands/complete', { challenge_id: q.get('challenge'), credential: q.get('secret') }));
      return;
    }
  }
  await enter().catch(() => show('login'));
}
void boot();
