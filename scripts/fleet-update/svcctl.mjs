// systemctl's verbs for the installer inside a test sandbox (update_service_control): stop, start,
// restart <unit>; show -p NRestarts --value <unit>. Answered by supervisor.mjs.
//   node svcctl.mjs <verb> [...] <unit>
import { request } from 'node:http';

const verb = process.argv[2];
const sock = process.env.CABINET_E2E_SUPERVISOR ?? '/run/cabinet-e2e/supervisor.sock';
const req = request({ socketPath: sock, method: 'POST', path: `/${verb}` }, (res) => {
  let body = '';
  res.on('data', (d) => (body += d));
  res.on('end', () => {
    process.stdout.write(body);
    process.exit(res.statusCode === 200 ? 0 : 1);
  });
});
req.on('error', (err) => {
  process.stderr.write(`svcctl: ${err.message}\n`);
  process.exit(1);
});
req.end();
