// Plays systemd inside one box's sandbox (scripts/ship-fleet-update.mjs): cabinet.service (the
// service as user cabinet, restarted 1 s after it exits, NRestarts counted), cabinet-updater.path
// (runs `cabinet update apply` while <data_dir>/updates/request.json exists) and the boot run of
// cabinet-updater.service (once at start). The installer controls the service through svcctl.mjs
// (update_service_control), which talks to this process over a unix socket.
//   node supervisor.mjs --config /etc/cabinet/cabinet.yaml --run /run/cabinet-e2e
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { config: { type: 'string' }, run: { type: 'string' }, 'data-dir': { type: 'string', default: '/var/lib/cabinet' } } });
const CONFIG = values.config;
const RUN = values.run;
mkdirSync(RUN, { recursive: true });
const request = join(values['data-dir'], 'updates', 'request.json');
const log = createWriteStream(join(RUN, 'supervisor.log'), { flags: 'a' });
const say = (m) => log.write(`${new Date().toISOString()} ${m}\n`);
// What systemd would put in the journal: a supervisor that stops would stop the box's "systemd".
process.on('uncaughtException', (err) => say(`supervisor error: ${err.stack ?? err.message}`));

let service = null;
let wanted = false;
let restarts = 0;
let restartTimer = null;

function startService() {
  if (service) return;
  clearTimeout(restartTimer);
  wanted = true;
  const out = createWriteStream(join(RUN, 'service.log'), { flags: 'a' });
  const child = spawn('runuser', ['-u', 'cabinet', '--', 'env', 'CABINET_CACHE_DIR=/var/cache/cabinet', '/usr/bin/cabinet', 'serve', '--config', CONFIG], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  service = child;
  say(`service started (pid ${child.pid})`);
  child.on('exit', (code, signal) => {
    say(`service exited (${code ?? signal})`);
    if (service === child) service = null;
    if (wanted) {
      restarts++;
      restartTimer = setTimeout(startService, 1000);
    }
  });
}

function stopService() {
  wanted = false;
  clearTimeout(restartTimer);
  const child = service;
  if (!child) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

let installer = null;
function runInstaller(why) {
  if (installer) return;
  const out = createWriteStream(join(RUN, 'installer.log'), { flags: 'a' });
  say(`installer run (${why})`);
  installer = spawn('/usr/bin/cabinet', ['update', 'apply', '--config', CONFIG], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CABINET_CACHE_DIR: '/var/cache/cabinet-updater' } });
  installer.stdout.pipe(out);
  installer.stderr.pipe(out);
  installer.on('exit', (code, signal) => {
    say(`installer exited (${code ?? signal})`);
    installer = null;
  });
}

// cabinet-updater.path: PathExists= (checked often; systemd uses inotify).
setInterval(() => {
  if (existsSync(request)) runInstaller('request.json');
}, 200);

// The control socket svcctl.mjs talks to: POST /<verb>.
const sock = join(RUN, 'supervisor.sock');
rmSync(sock, { force: true });
createServer((req, res) => {
  const verb = req.url.slice(1);
  const answer = (text) => res.end(`${text}\n`);
  say(`control: ${verb}`);
  if (verb === 'stop') void stopService().then(() => answer('stopped'));
  else if (verb === 'start') { startService(); answer('started'); }
  else if (verb === 'restart') void stopService().then(() => { startService(); answer('restarted'); });
  else if (verb === 'show') answer(String(restarts));
  else { res.statusCode = 400; answer(`unknown verb ${verb}`); }
}).listen(sock);

// Boot: the service (enabled) and the installer's boot run, unordered, as systemd starts them.
say('boot');
mkdirSync('/var/cache/cabinet-updater', { recursive: true, mode: 0o700 });
startService();
runInstaller('boot');
process.on('SIGTERM', () => void stopService().then(() => process.exit(0)));
