// Request bodies are validated with valibot; every issue becomes a {field, reason} detail, with
// what a reader needs to word it in their language (the shell's error-words.ts): min and max of a
// range, min_length/max_length of a text, min_items/max_items of a list, the allowed values of a
// choice, the format or type expected. A check over several fields says what it checks in the
// answer's message (English), as before.
import * as v from 'valibot';
import { ApiError, type ErrorDetail } from './errors.js';

function reasonOf(issue: v.BaseIssue<unknown>): string {
  if (issue.input === undefined && issue.kind === 'schema') return 'required';
  switch (issue.type) {
    case 'picklist': case 'enum': case 'literal': case 'union': case 'variant': return 'unsupported_value';
    case 'min_value': case 'max_value': case 'min_length': case 'max_length': case 'min_size': case 'max_size': return 'out_of_range';
    case 'strict_object': case 'never': return 'unknown_field';
    case 'regex': case 'email': case 'url': case 'iso_timestamp': case 'uuid': return 'invalid_format';
    case 'integer': case 'finite': case 'safe_integer': return 'invalid_type';
    case 'check': case 'custom': return 'invalid_value';
    case 'parse_json': return 'malformed_json';
    default: return issue.kind === 'schema' ? 'invalid_type' : issue.type;
  }
}

function fieldOf(issue: v.BaseIssue<unknown>, prefix: string): string {
  const keys = (issue.path ?? []).map((p) => String(p.key));
  return [prefix, ...keys].filter(Boolean).join('.') || prefix || 'body';
}

type Node = { type?: string; entries?: Record<string, Node>; wrapped?: Node; item?: Node; pipe?: ({ type?: string; requirement?: unknown } & Node)[]; options?: unknown; enum?: Record<string, unknown>; literal?: unknown };

/** The schema at an issue's path (objects, arrays, optional/nullable wrappers, pipes); undefined where it cannot be told. */
function schemaAt(schema: Node, keys: readonly unknown[]): Node | undefined {
  let at: Node | undefined = schema;
  for (const key of keys) {
    while (at?.wrapped) at = at.wrapped;
    if (!at) return undefined;
    if (at.entries && typeof key === 'string') at = at.entries[key];
    else if (at.item && typeof key === 'number') at = at.item;
    else return undefined;
  }
  while (at?.wrapped) at = at.wrapped;
  return at;
}

const FORMATS = new Set(['email', 'url', 'iso_timestamp', 'uuid', 'iso_date', 'iso_time', 'ipv4', 'ip']);
const TYPES = new Set(['number', 'string', 'boolean', 'array', 'object', 'integer', 'date']);

/** What the reader of an issue needs besides its reason (error-words.ts issueText). */
function paramsOf(issue: v.BaseIssue<unknown>, schema: Node): Record<string, unknown> {
  if (reasonOf(issue) === 'required') return {};
  const at = schemaAt(schema, (issue.path ?? []).map((p) => p.key));
  const actions = at?.pipe ?? [];
  const requirement = (type: string): number | undefined => {
    const r = actions.find((a) => a.type === type)?.requirement ?? (issue.type === type ? issue.requirement : undefined);
    return typeof r === 'number' && Number.isFinite(r) ? r : undefined;
  };
  const out: Record<string, unknown> = {};
  switch (issue.type) {
    case 'min_value': case 'max_value': {
      const min = requirement('min_value');
      const max = requirement('max_value');
      if (min !== undefined) out.min = min;
      if (max !== undefined) out.max = max;
      break;
    }
    case 'min_length': case 'max_length': case 'min_size': case 'max_size': {
      const kind = Array.isArray(issue.input) || issue.input instanceof Set || issue.input instanceof Map ? 'items' : 'length';
      const min = requirement('min_length') ?? requirement('min_size');
      const max = requirement('max_length') ?? requirement('max_size');
      // The limit that was crossed is named; the other one too when it exists (a range).
      if (issue.type.startsWith('min') && min !== undefined) out[`min_${kind}`] = min;
      if (issue.type.startsWith('max') && max !== undefined) out[`max_${kind}`] = max;
      break;
    }
    case 'picklist': case 'enum': case 'literal': {
      const allowed = Array.isArray(at?.options) ? at.options : at?.enum ? Object.values(at.enum) : issue.type === 'literal' && at && 'literal' in at ? [at.literal] : undefined;
      if (allowed) out.allowed = allowed.filter((x) => ['string', 'number', 'boolean'].includes(typeof x));
      break;
    }
    case 'regex': out.format = 'pattern'; break;
    default:
      if (FORMATS.has(issue.type)) out.format = issue.type;
      else if (issue.type === 'integer' || issue.type === 'safe_integer') out.expected = 'integer';
      else if (issue.kind === 'schema' && TYPES.has(issue.type) && issue.input !== undefined) out.expected = issue.type;
  }
  return out;
}

export function validate<T>(schema: v.GenericSchema<unknown, T>, input: unknown, prefix = ''): T {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const details: ErrorDetail[] = result.issues.map((i) => ({ field: fieldOf(i, prefix), reason: reasonOf(i), ...paramsOf(i, schema as unknown as Node) }));
  const seen = new Set<string>();
  const unique = details.filter((d) => (seen.has(`${d.field}:${d.reason}`) ? false : (seen.add(`${d.field}:${d.reason}`), true)));
  // A check over several fields is described only by its message: it goes into the answer's message.
  const said = [...new Set(result.issues.filter((i) => i.type === 'check' || i.type === 'custom').map((i) => i.message))];
  throw new ApiError('validation_error', `invalid body: ${unique.map((d) => `${d.field} (${d.reason})`).join(', ')}${said.length ? `: ${said.join('; ')}` : ''}`, unique);
}

/**
 * A field that carries JSON as text (a record passed through unchanged): documented as a string
 * with contentMediaType application/json, parsed and checked against `inner` here.
 */
export const jsonText = <T>(inner: v.GenericSchema<unknown, T>, maxLength: number) =>
  v.pipe(v.string(), v.maxLength(maxLength), v.metadata({ contentMediaType: 'application/json' }), v.parseJson(), inner);
