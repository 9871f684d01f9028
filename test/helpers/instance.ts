// Builds a valid instance of a JSON schema (the subset the OpenAPI document uses), so a test can
// send every operation a request the document itself calls valid. `minimal` fills required
// properties only; `full` fills every property and puts one element in every array, so a
// mismatch in an optional or nested field is found too.
import { randomUUID } from 'node:crypto';

export type Schema = Record<string, unknown>;
export interface InstanceOptions {
  mode: 'minimal' | 'full';
  /** The document `$ref`s point into. */
  root?: Schema;
  /** Values for properties by name, used when they satisfy the schema (an id shared by several requests). */
  fixed?: Record<string, unknown>;
}

export class NoInstance extends Error {}

// Candidates tried against a `pattern`; the first that matches (and fits the length bounds) wins.
const PATTERN_CANDIDATES = [
  'a1', 'a', 'abc', 'sample-1', 'x.y_z:1', '1.0.0', '2026-01-15', '2026', '10.0.0.1', '*', 'deadbeef', '0', '1', 'A1', 'ab', 'site-1@farm-1',
];

function resolve(schema: Schema, root: Schema | undefined): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  if (!root || !ref.startsWith('#/')) throw new NoInstance(`cannot resolve ${ref}`);
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return resolve(node as Schema, root);
}

function fitsString(s: string, schema: Schema): boolean {
  if (typeof schema.minLength === 'number' && s.length < schema.minLength) return false;
  if (typeof schema.maxLength === 'number' && s.length > schema.maxLength) return false;
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(s)) return false;
  return true;
}

function stringOf(schema: Schema): string {
  if (schema.contentMediaType === 'application/json') return '{}';
  const today = new Date();
  switch (schema.format) {
    case 'date-time': return today.toISOString();
    case 'date': return today.toISOString().slice(0, 10);
    case 'uuid': return randomUUID();
    case 'email': return 'someone@example.com';
    case 'uri': case 'url': return 'http://example.com/';
    case 'ipv4': return '10.0.0.1';
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
  const candidates = typeof schema.pattern === 'string' ? PATTERN_CANDIDATES : ['a'.repeat(Math.max(min, 1))];
  for (const c of candidates) if (fitsString(c, schema)) return c;
  throw new NoInstance(`no candidate string matches ${JSON.stringify(schema)}`);
}

function numberOf(schema: Schema, integer: boolean): number {
  let n = integer ? 1 : 1.5;
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + (integer ? 1 : 0.5) : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - (integer ? 1 : 0.5) : undefined;
  if (min !== undefined && n < min) n = integer ? Math.ceil(min) : min;
  if (max !== undefined && n > max) n = integer ? Math.floor(max) : max;
  return n;
}

export function instanceOf(input: Schema, opts: InstanceOptions, name = ''): unknown {
  const schema = resolve(input, opts.root);
  if (name && opts.fixed && name in opts.fixed) return opts.fixed[name];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('default' in schema && opts.mode === 'minimal') return schema.default;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) {
    const nonNull = branches.filter((b) => resolve(b, opts.root).type !== 'null');
    return instanceOf(nonNull[0] ?? branches[0]!, opts, name);
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...(schema.allOf as Schema[]).map((s) => instanceOf(s, opts, name) as object));
  }
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') as string) : (schema.type as string | undefined);
  switch (type) {
    case 'object': case undefined: {
      if (type === undefined && !schema.properties) return {};
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(props)) {
        if (opts.mode === 'full' || required.has(key)) out[key] = instanceOf(sub, opts, key);
      }
      return out;
    }
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const max = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
      // 'full' gives every array one item, unless the document allows none (maxItems 0).
      const count = opts.mode === 'full' ? Math.min(Math.max(min, 1), max) : min;
      const items = (schema.items ?? {}) as Schema;
      return Array.from({ length: count }, () => instanceOf(items, opts));
    }
    case 'string': return stringOf(schema);
    case 'integer': return numberOf(schema, true);
    case 'number': return numberOf(schema, false);
    case 'boolean': return false;
    case 'null': return null;
    default: throw new NoInstance(`unsupported schema type ${String(type)}`);
  }
}

/** A query parameter's value as text (undefined: leave it out). */
export function queryValueOf(schema: Schema, opts: InstanceOptions, name: string): string | undefined {
  const value = instanceOf(schema, opts, name);
  return value === undefined || value === null ? undefined : String(value);
}
