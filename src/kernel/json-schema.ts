// Request bodies as JSON Schema: for the OpenAPI document and for the resources' own scheme
// answers and declarations, which need it without the rest of the document's module (the
// decisions' texts, the YAML writer) loaded at start.
import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import type { JsonSchema } from './route.js';

/**
 * A request body schema as JSON Schema, describing what the client sends: `typeMode: 'input'`
 * stops each pipe at its first transformation, so a JSON-text field parsed by the server
 * (`pipe(string(), parseJson(), record(...))`) is documented as the string it is, not as the
 * object the handler receives. Checks the converter cannot express (trim, cross-field checks)
 * are left out; they answer 400 with a named reason (docs/api.md).
 */
export function requestJsonSchema(body: GenericSchema<unknown, unknown>): JsonSchema {
  const { $schema: _drop, ...schema } = toJsonSchema(body, { errorMode: 'ignore', typeMode: 'input' }) as JsonSchema;
  return schema;
}
