// Request bodies are validated with valibot; every issue becomes a {field, reason} detail.
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

export function validate<T>(schema: v.GenericSchema<unknown, T>, input: unknown, prefix = ''): T {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const details: ErrorDetail[] = result.issues.map((i) => ({ field: fieldOf(i, prefix), reason: reasonOf(i) }));
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
