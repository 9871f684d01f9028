// Benchmark (not a test): start time and memory of the shipped executable (dist/cabinet, built by
// `npm run build`), each figure beside its same-run baseline, a bare Node of the same version:
//   cabinet version / --help (spawn to exit)    vs  node -e "console.log(process.version)"
//   serve, restart spawn-to-/ready               vs  http.createServer().listen(0) spawn-to-listening
//   idle RSS 5 s after /ready                    vs  that bare server's idle RSS
//   peak RSS under 50 API clients
// The measuring is scripts/measure-binary.mjs (also run by .ci/ship.sh); this runs it.
// Usage: npx tsx bench/start.ts [--runs 5] [--clients 50] [--load-ms 10000] [--json]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const r = spawnSync(process.execPath, [join(import.meta.dirname, '..', 'scripts', 'measure-binary.mjs'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exitCode = r.status ?? 1;
