// Renders route declarations as an OpenAPI 3.1 document.
import { stringify } from 'yaml';
import { ERROR_CODES, type ErrorCode } from './errors.js';
import { DECISIONS } from './decisions.js';
import type { AnyRoute, JsonSchema } from './route.js';
import type { ParamSpec } from './query.js';
import { ownerStatement, requiredScope } from './scope.js';
import { requestJsonSchema } from './json-schema.js';

export { requestJsonSchema };

const meta = { $ref: '#/components/schemas/Meta' };
const COMMON_ERRORS: ErrorCode[] = ['validation_error', 'internal_error'];
const PROTECTED_ERRORS: ErrorCode[] = ['auth_required', 'rbac_forbidden', 'module_not_installed', 'tenant_boundary_denied'];

function paramSchema(p: ParamSpec): JsonSchema {
  const s: JsonSchema = { type: p.type };
  if (p.enum) s.enum = [...p.enum];
  if (p.format) s.format = p.format;
  if (p.min !== undefined) s.minimum = p.min;
  if (p.max !== undefined) s.maximum = p.max;
  if (p.default !== undefined) s.default = p.default;
  return s;
}

function bodySchema(route: AnyRoute): JsonSchema | undefined {
  if (route.bodyJsonSchema) return route.bodyJsonSchema;
  return route.body ? requestJsonSchema(route.body) : undefined;
}

function successContent(route: AnyRoute): { status: string; body: JsonSchema } {
  const r = route.response;
  const status = String(r.kind === 'none' ? 204 : (route.status ?? 200));
  switch (r.kind) {
    case 'single':
      return { status, body: { description: 'Single envelope', content: { 'application/json': { schema: { type: 'object', required: ['item', 'meta'], properties: { item: r.item, meta } } } } } };
    case 'list':
      return { status, body: { description: 'List envelope', content: { 'application/json': { schema: { type: 'object', required: ['items', 'offset', 'limit', 'total', 'has_more', 'meta'], properties: { items: { type: 'array', items: r.item }, offset: { type: 'integer' }, limit: { type: 'integer' }, total: { type: 'integer' }, has_more: { type: 'boolean' }, meta } } } } } };
    case 'raw':
      return { status, body: { description: r.description, content: { [r.contentType]: { schema: r.schema ?? { type: 'string' } } } } };
    case 'none':
      return { status, body: { description: 'No content' } };
  }
}

function errorResponses(route: AnyRoute): Record<string, JsonSchema> {
  const codes = new Set<ErrorCode>([...COMMON_ERRORS, ...(route.errors ?? [])]);
  if (!('public' in route.access)) PROTECTED_ERRORS.forEach((c) => codes.add(c));
  // Every /api route answers 503 while the database is not ready or the service is stopping.
  if (route.path.startsWith('/api/')) codes.add('service_unavailable');
  if (requiredScope(route) !== 'any') codes.add('scope_boundary_denied');
  // A write can meet a unique key (two creates of one id at once): the pipeline answers 409 already_exists (unique.ts).
  if (route.method === 'post' || route.method === 'put' || route.method === 'patch') { codes.add('payload_too_large'); codes.add('unsupported_media_type'); codes.add('already_exists'); }
  if (route.method === 'post' && route.idempotent !== false) { codes.add('idempotency_key_reused'); codes.add('idempotency_in_progress'); }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
  const out: Record<string, JsonSchema> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: list.map((c) => `\`${c}\`: ${ERROR_CODES[c].when}`).join(' '),
      content: { 'application/json': { schema: { allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }, { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: list } } } } }] } } },
    };
  }
  return out;
}

export function buildOpenApi(routes: readonly AnyRoute[], info: { version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const parameters: JsonSchema[] = [];
    for (const m of route.path.matchAll(/\{(\w+)\}/g)) {
      const p = route.params?.[m[1] as string];
      parameters.push({ name: m[1], in: 'path', required: true, schema: p ? paramSchema(p) : { type: 'string' } });
    }
    for (const [name, p] of Object.entries(route.query ?? {})) {
      parameters.push({ name, in: 'query', required: Boolean(p.required), schema: paramSchema(p), ...(p.description ? { description: p.description } : {}) });
    }
    if (route.method === 'post' && route.idempotent !== false) {
      parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 200 }, description: 'Replays the first answer for a repeated key (24 h).' });
    }
    const body = bodySchema(route);
    const success = successContent(route);
    const description = [route.description, ownerStatement(route)].filter(Boolean).join('\n\n');
    const operation: Record<string, unknown> = {
      operationId: `${route.method}_${route.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
      summary: route.summary,
      ...(description ? { description } : {}),
      tags: route.tags ?? [route.module],
      'x-module': route.module,
      ...('public' in route.access ? { security: [] } : { 'x-permission': route.access }),
      ...(parameters.length ? { parameters } : {}),
      ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: body } } } } : {}),
      ...(route.rawBody ? { requestBody: { required: true, description: route.rawBody.description, content: { [route.rawBody.contentType]: { schema: { type: 'string', format: 'binary' } } } } } : {}),
      responses: { [success.status]: success.body, ...errorResponses(route) },
    };
    (paths[route.path] ??= {})[route.method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'cabinet API',
      version: info.version,
      description: [
        'The cabinet service: modules, alarms, tasks, telemetry, audit and site control, from one edge binary.',
        '',
        '## Decisions where the contract is silent',
        ...DECISIONS.map((d) => `- **${d.topic}**: ${d.decision}`),
      ].join('\n'),
    },
    'x-decisions': DECISIONS,
    servers: [{ url: '/' }],
    security: [{ cookieAuth: [] }, { bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        cookieAuth: { type: 'apiKey', in: 'cookie', name: 'cabinet_session' },
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
      schemas: {
        Meta: { type: 'object', required: ['request_id', 'timestamp'], properties: { request_id: { type: 'string' }, timestamp: { type: 'string', format: 'date-time' }, total_estimated: { type: 'boolean', description: 'Lists only, present (true) when `total` is a lower bound: more rows match than are counted (see decision Totals).' } } },
        ErrorEnvelope: {
          type: 'object', required: ['error', 'meta'],
          properties: {
            error: {
              type: 'object', required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: Object.keys(ERROR_CODES) },
                message: { type: 'string' },
                details: {
                  type: 'array',
                  items: {
                    type: 'object', required: ['field', 'reason'],
                    description: 'One field issue: a machine reason, and (validation_error of a body) what a reader needs to word it in their language: min/max of a range, min_length/max_length of a text, min_items/max_items of a list, allowed values, the format or type expected.',
                    properties: {
                      field: { type: 'string' }, reason: { type: 'string' }, min: { type: 'number' }, max: { type: 'number' },
                      min_length: { type: 'integer' }, max_length: { type: 'integer' }, min_items: { type: 'integer' }, max_items: { type: 'integer' },
                      allowed: { type: 'array', items: {} }, format: { type: 'string' }, expected: { type: 'string' },
                    },
                  },
                },
              },
            },
            meta,
          },
        },
      },
    },
  };
}

export const toYaml = (doc: Record<string, unknown>): string => stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 });
