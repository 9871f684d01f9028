// Benchmark (not a test): building the OpenAPI document (its first request, /openapi.yaml), with
// request bodies converted as the client sends them (typeMode input, what the server does)
// beside the converter's default in the same run (the baseline, what it did before).
// Usage: npx tsx bench/openapi-document.ts [rounds=20]
import { toJsonSchema } from '@valibot/to-json-schema';
import { allRoutes } from '../src/app.js';
import { MODULES } from '../src/modules/index.js';
import { buildOpenApi, requestJsonSchema, toYaml } from '../src/kernel/openapi.js';

const ROUNDS = Number(process.argv[2] ?? 20);
const routes = allRoutes(MODULES).filter((r) => r.body && !r.bodyJsonSchema);

function time(label: string, fn: () => void): number {
  fn();
  const t0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) fn();
  const ms = (performance.now() - t0) / ROUNDS;
  console.log(`${label.padEnd(44)} ${ms.toFixed(2)} ms`);
  return ms;
}

console.log(`${routes.length} valibot bodies, ${ROUNDS} rounds`);
const base = time('bodies, converter default (baseline)', () => routes.forEach((r) => toJsonSchema(r.body!, { errorMode: 'ignore' })));
const input = time('bodies, typeMode input (served)', () => routes.forEach((r) => requestJsonSchema(r.body!)));
const doc = buildOpenApi(allRoutes(MODULES), { version: 'bench' });
time('whole document, built', () => buildOpenApi(allRoutes(MODULES), { version: 'bench' }));
time('whole document, rendered as YAML', () => toYaml(doc));
console.log(`input / baseline: ${(input / base).toFixed(2)}`);
