// Summary of a V8 CPU profile (`--cpu-prof`, e.g. from bench/overhead.ts --cpu-prof DIR): the
// functions by self time and by total time (what they and their callees took), as shares of the
// profile's busy samples (idle and the profiler's own program samples left out). Run:
// `npx tsx bench/profile-summary.ts FILE.cpuprofile [top] [--from-s S] [--match TEXT]`
// --from-s: only samples from S seconds after the profile's start (leaves the start-up out);
// --match: only functions whose name or file contains TEXT in the total-time list;
// --bundle FILE: the bundle the profile ran (a built executable's, `node build.mjs --keep` leaves it
// in dist/.build/cabinet.cjs): its frames are shown with the text where each function starts,
// since a bundle's long lines make line numbers say little.
import { readFileSync } from 'node:fs';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number }

const file = process.argv[2];
if (!file) throw new Error('usage: profile-summary.ts FILE.cpuprofile [top] [--from-s S] [--match TEXT]');
const top = Number(process.argv[3] && !process.argv[3].startsWith('--') ? process.argv[3] : 30);
const opt = (name: string) => { const i = process.argv.indexOf(`--${name}`); return i < 0 ? undefined : process.argv[i + 1]; };
const fromUs = Number(opt('from-s') ?? 0) * 1e6;
const match = opt('match');
const bundleFile = opt('bundle');
const bundleLines = bundleFile ? readFileSync(bundleFile, 'utf8').split('\n') : undefined;
const bundleName = bundleFile?.split('/').at(-1);

const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const short = (url: string) => url.replace(/^.*\/(node_modules\/)/, '$1').replace(/^.*\/src\//, 'src/').replace(/^file:\/\//, '');
const label = (n: Node) => {
  const f = n.callFrame;
  if (bundleLines && bundleName && f.url.endsWith(bundleName)) {
    const text = (bundleLines[f.lineNumber] ?? '').slice(Math.max(0, f.columnNumber - 40), f.columnNumber + 60);
    return `${f.functionName || '(anonymous)'} [${text}]`;
  }
  return `${f.functionName || '(anonymous)'} ${short(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
};

const self = new Map<string, number>();
const total = new Map<string, number>();
let busy = 0;
let t = 0;
p.samples.forEach((id, i) => {
  t += p.timeDeltas[i] ?? 0;
  if (t < fromUs) return;
  const n = byId.get(id)!;
  const name = n.callFrame.functionName;
  if (name === '(idle)' || name === '(program)') return;
  busy++;
  self.set(label(n), (self.get(label(n)) ?? 0) + 1);
  // Each function once per sample, however deep it recurses.
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (seen.has(l)) continue;
    seen.add(l);
    total.set(l, (total.get(l) ?? 0) + 1);
  }
});
const pct = (n: number) => `${((n / busy) * 100).toFixed(1).padStart(5)} %`;
console.log(`${file}: ${busy} busy samples`);
console.log('-- self time');
for (const [l, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(n)}  ${l}`);
console.log('-- total time (the function and what it called)');
for (const [l, n] of [...total].sort((a, b) => b[1] - a[1]).filter(([l]) => !match || l.includes(match)).slice(0, top)) console.log(`${pct(n)}  ${l}`);
