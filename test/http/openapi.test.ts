// Every route the app really serves appears in /openapi.yaml, with its method.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createApp, allRoutes } from '../../src/app.js';
import { MODULES } from '../../src/modules/index.js';
import * as v from 'valibot';
import { jsonText as jsonTextField, validate } from '../../src/kernel/validate.js';
import { buildOpenApi, requestJsonSchema, toYaml } from '../../src/kernel/openapi.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/kernel/logger.js';
import { ERROR_CODES } from '../../src/kernel/errors.js';
import type { Services } from '../../src/kernel/context.js';

describe('OpenAPI document', () => {
  const doc = parse(toYaml(buildOpenApi(allRoutes(MODULES), { version: 'test' }))) as {
    openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  };

  it('is OpenAPI 3.1 and lists every route the Hono app serves', () => {
    expect(doc.openapi).toBe('3.1.0');
    const services = { config: loadConfig({}, {}), log: createLogger('error'), lifecycle: { state: 'ready' } } as unknown as Services;
    const app = createApp(services, MODULES);
    const served = app.routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method.toLowerCase(), path: r.path.replace(/:(\w+)/g, '{$1}') }));
    expect(served.length).toBeGreaterThan(10);
    for (const r of served) expect(doc.paths[r.path]?.[r.method], `${r.method} ${r.path}`).toBeDefined();
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    expect(documented.sort()).toEqual(served.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('documents an error envelope for every error status an operation can answer', () => {
    const list = doc.paths['/api/v1/tables/list']?.get;
    expect(Object.keys(list?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '500', '503']));
    // the probes are outside /api: they never answer the lifecycle gate's 503 envelope
    expect(Object.keys(doc.paths['/health']?.get?.responses ?? {})).not.toContain('503');
    const create = doc.paths['/api/v1/tables']?.post;
    expect(Object.keys(create?.responses ?? {})).toEqual(expect.arrayContaining(['201', '409', '413', '415', '422']));
    // Rendered once: the document is over a megabyte, and rendering it per code took longer than the test timeout.
    const yaml = toYaml(doc as unknown as Record<string, unknown>);
    for (const code of Object.keys(ERROR_CODES)) expect(yaml).toContain(code);
  });

  it('describes request bodies as sent, integer ids as integers, and 409 on every write', () => {
    type Op = { requestBody?: { content: Record<string, { schema: Record<string, any> }> }; parameters?: { name: string; in: string; schema: { type: string } }[]; responses: Record<string, unknown> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    const ops = doc.paths as unknown as Record<string, Record<string, Op>>;
    // A field parsed from JSON text by the server is documented as the string the client sends.
    const jsonText = requestJsonSchema(v.strictObject({ payload: v.pipe(v.string(), v.maxLength(100), v.parseJson(), v.record(v.string(), v.unknown())) }));
    expect(jsonText.properties).toEqual({ payload: { type: 'string', maxLength: 100 } });
    // The kit's jsonText() also says the text is JSON.
    expect(requestJsonSchema(jsonTextField(v.record(v.string(), v.unknown()), 100))).toEqual({ type: 'string', maxLength: 100, contentMediaType: 'application/json' });
    expect(() => validate(v.object({ p: jsonTextField(v.record(v.string(), v.unknown()), 100) }), { p: '{nope' })).toThrow(expect.objectContaining({ details: [{ field: 'p', reason: 'malformed_json' }] }));
    expect(validate(v.object({ p: jsonTextField(v.record(v.string(), v.unknown()), 100) }), { p: '{"a":1}' })).toEqual({ p: { a: 1 } });
    const statusId = ops['/api/v1/status/{id}']?.get?.parameters?.find((p) => p.in === 'path');
    expect(statusId?.schema.type).toBe('integer');
    expect(ops['/api/v1/tables/{id}']?.get?.parameters?.find((p) => p.in === 'path')?.schema.type).toBe('string');
    for (const [path, byMethod] of Object.entries(ops)) {
      for (const method of ['post', 'patch']) if (byMethod[method]) expect(Object.keys(byMethod[method]!.responses), `${method} ${path}`).toContain('409');
    }
    const topics = (doc as unknown as { 'x-decisions': { topic: string }[] })['x-decisions'].map((d) => d.topic);
    expect(topics).toEqual(expect.arrayContaining(['Request validation', 'Concurrent creates', 'Parser errors']));
  });
});
