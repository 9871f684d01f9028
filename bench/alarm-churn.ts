// Alarm churn benchmark: `npx tsx bench/alarm-churn.ts [pairs]`. Not a test: prints figures only.
// A chattering rule raises and clears an alarm on one of 8 units, one at a time, through the one
// industry alarm service of a real server (SQLite file, or PostgreSQL with CABINET_TEST_PG_URL):
// each raise and clear is stored, audited, put on the bus (notifications look the alarm up and
// match their rules) and bridged to status. This is what a swine room reading beyond a rule
// without a hold time costs on top of the reading (bench/readings-pipeline.ts: 6 % of its swine
// readings raise and 6 % clear). Prints the mean wall time per raise and per clear, and the
// process CPU time per pair.
import { createTestEnv } from '../test/helpers/server.js';

const PAIRS = Number(process.argv[2] ?? 1000);
const dialect = process.env.CABINET_TEST_PG_URL ? 'postgres' : 'sqlite';

const env = await createTestEnv(dialect);
try {
  const server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off', log_level: 'warn', alarm_escalation_interval_ms: '3600000' });
  const alarms = server.services.industryAlarms!;
  const pair = async (i: number) => {
    const unit = `R${i % 8}`;
    const r0 = performance.now();
    await alarms.raise({
      tenant_id: 't1', site_id: 's1', industry_code: 'swine', unit_id: unit, rule_id: 'swine-climate:temp_high', metric: 'temp_c', value: 32, severity: 'high', priority: 'P1',
      sla_target_sec: 900, source: 'swine-climate', title: `Room ${unit}: room temperature 3 C or more above the band`, actor: 'bench', correlation_id: `c${i}`, details: { threshold: 31, comparator: 'gte' },
    });
    const r1 = performance.now();
    await alarms.clear({ tenant_id: 't1', industry_code: 'swine', unit_id: unit, rule_id: 'swine-climate:temp_high', actor: 'bench' });
    return [r1 - r0, performance.now() - r1] as const;
  };
  for (let i = 0; i < 200; i++) await pair(i);
  let raise = 0;
  let clear = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < PAIRS; i++) {
    const [a, b] = await pair(i);
    raise += a;
    clear += b;
  }
  const cpu = process.cpuUsage(cpu0);
  console.log(`alarm churn on ${dialect}: ${PAIRS} raise/clear pairs over 8 units, one at a time, Node ${process.version}`);
  console.log(`  raise ${(raise / PAIRS).toFixed(3)} ms, clear ${(clear / PAIRS).toFixed(3)} ms (mean wall time); process CPU ${((cpu.user + cpu.system) / 1000 / PAIRS).toFixed(3)} ms per pair`);
} finally {
  await env.cleanup();
}
