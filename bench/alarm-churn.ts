// Alarm churn benchmark: `npx tsx bench/alarm-churn.ts [pairs] [--against <checkout> [rounds]]`.
// Not a test: prints figures only. A chattering rule raises and clears an alarm on one of 8 units,
// one at a time, through the one industry alarm service of a real server (SQLite file, or
// PostgreSQL with CABINET_TEST_PG_URL): each raise and clear is stored, audited, put on the bus
// (notifications look the alarm up and match their rules) and bridged to status. This is what a
// swine room reading beyond a rule without a hold time costs on top of the reading
// (bench/readings-pipeline.ts: 6 % of its swine readings raise and 6 % clear). Prints the mean
// wall time per raise and per clear, the process CPU time per pair, and how many transactions
// each began (an audit record written alone on an idle SQLite writer commits without one).
//
// --against <checkout>: the same script of another checkout (a `git worktree add <dir> <commit>`
// with node_modules linked) is the baseline: each round runs that one and this one, alternated,
// each in a fresh process, and the CPU per pair of both and their ratio are printed per round.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { createTestEnv } from '../test/helpers/server.js';

const PAIRS = Number(process.argv[2] ?? 1000);
const dialect = process.env.CABINET_TEST_PG_URL ? 'postgres' : 'sqlite';
const against = process.argv.indexOf('--against');

async function churn(): Promise<void> {
  const env = await createTestEnv(dialect);
  try {
    const server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off', log_level: 'warn', alarm_escalation_interval_ms: '3600000' });
    const alarms = server.services.industryAlarms!;
    const db = server.services.db;
    const transaction = db.transaction.bind(db);
    let transactions = 0;
    db.transaction = <T>(fn: () => Promise<T>): Promise<T> => {
      if (!db.inTransaction()) transactions++;
      return transaction(fn);
    };
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
    // The bridge's alarm_changed events are published after the change: let the last ones land.
    await new Promise((r) => setTimeout(r, 200));
    let raise = 0;
    let clear = 0;
    const t0 = transactions;
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < PAIRS; i++) {
      const [a, b] = await pair(i);
      raise += a;
      clear += b;
    }
    const cpu = process.cpuUsage(cpu0);
    console.log(`alarm churn on ${dialect}: ${PAIRS} raise/clear pairs over 8 units, one at a time, Node ${process.version}`);
    console.log(`  raise ${(raise / PAIRS).toFixed(3)} ms, clear ${(clear / PAIRS).toFixed(3)} ms (mean wall time); process CPU ${((cpu.user + cpu.system) / 1000 / PAIRS).toFixed(3)} ms per pair; ${((transactions - t0) / PAIRS).toFixed(2)} transactions per pair`);
  } finally {
    await env.cleanup();
  }
}

/** Runs the script of a checkout in a process of its own; answers its CPU per pair (ms) and its lines. */
function run(dir: string): { cpu: number; out: string } {
  // Its figures are printed before its server stops: a stop that does not settle (exit 13) does not void them.
  const out = spawnSync(resolve(dir, 'node_modules/.bin/tsx'), [resolve(dir, 'bench/alarm-churn.ts'), String(PAIRS)], { cwd: dir, encoding: 'utf8', env: process.env }).stdout;
  const m = /process CPU ([\d.]+) ms per pair/.exec(out);
  if (!m) throw new Error(`no figure from ${dir}: ${out}`);
  return { cpu: Number(m[1]), out: out.trim() };
}

if (against < 0) await churn();
else {
  const base = resolve(process.argv[against + 1] ?? '');
  const rounds = Number(process.argv[against + 2] ?? 3);
  const here = resolve(import.meta.dirname, '..');
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternated, the baseline first in even rounds and second in odd ones.
    const order = r % 2 === 0 ? [base, here] : [here, base];
    const got = new Map(order.map((dir) => [dir, run(dir)] as const));
    const b = got.get(base)!;
    const h = got.get(here)!;
    ratios.push(h.cpu / b.cpu);
    console.log(`round ${r + 1}: baseline (${base}) ${b.cpu.toFixed(3)} ms of CPU per pair, this checkout ${h.cpu.toFixed(3)} ms: ${(h.cpu / b.cpu).toFixed(2)}x`);
    console.log(`  baseline: ${b.out.split('\n').at(-1)!.trim()}`);
    console.log(`  this:     ${h.out.split('\n').at(-1)!.trim()}`);
  }
  console.log(`this checkout against the baseline, CPU per pair: ${ratios.map((x) => x.toFixed(2)).join(' / ')}x`);
}
