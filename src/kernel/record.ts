// One declaration of a resource's fields gives its table, its UI fields, its filters and its
// row type: defineRecord() derives the dialect-neutral table from the fields (type -> column
// kind, nullable -> NULL allowed), so a column is never written twice. Fields marked
// `column: false` are computed by the resource's toItem() and never stored.
import { defineTable, type ColumnSpec, type IndexSpec, type NeutralTable } from '../db/table.js';
import type { FieldSpec } from './resource.js';

const KIND: Record<FieldSpec['type'], ColumnSpec['kind']> = {
  string: 'text', integer: 'integer', number: 'real', boolean: 'boolean', object: 'json', array: 'json', datetime: 'timestamp',
};

type ElementOf<I> = I extends 'string' ? string : I extends 'integer' | 'number' ? number : I extends 'boolean' ? boolean : I extends 'object' ? Record<string, unknown> : unknown;

type TsOf<F extends FieldSpec> = F['enum'] extends readonly (infer E)[]
  ? E
  : F['type'] extends 'string' | 'datetime'
    ? string
    : F['type'] extends 'integer' | 'number'
      ? number
      : F['type'] extends 'boolean'
        ? boolean
        : F['type'] extends 'array'
          ? ElementOf<F['items']>[]
          : Record<string, unknown>;

type Stored<Fs extends Record<string, FieldSpec>> = { [K in keyof Fs]: Fs[K]['column'] extends false ? never : K }[keyof Fs];

/** The row a record's table reads back: stored fields only, `null` where the field is nullable. */
export type RecordRow<Fs extends Record<string, FieldSpec>> = {
  -readonly [K in Stored<Fs>]: Fs[K]['nullable'] extends true ? TsOf<Fs[K]> | null : TsOf<Fs[K]>;
};

export interface RecordDef<Fs extends Record<string, FieldSpec>> {
  table: NeutralTable;
  fields: Fs;
  /** Type-only: `typeof rec.row` is the row type. */
  row: RecordRow<Fs>;
}

export function defineRecord<const Fs extends Record<string, FieldSpec>>(
  name: string,
  fields: Fs,
  options: { primaryKey?: string[]; indexes?: IndexSpec[] } = {},
): RecordDef<Fs> {
  const columns: Record<string, ColumnSpec> = {};
  // Assigned, not spread: every restart runs this for every record's every field.
  for (const field in fields) {
    const f = fields[field] as FieldSpec;
    if (f.column === false) continue;
    const opts = f.column;
    const spec: ColumnSpec = { kind: KIND[f.type] };
    if (opts?.primaryKey) spec.primaryKey = true;
    if (opts?.unique) spec.unique = true;
    if (opts?.notNull ?? !f.nullable) spec.notNull = true;
    columns[field] = spec;
  }
  if (!options.primaryKey && !Object.values(columns).some((c) => c.primaryKey)) {
    if (!columns.id) throw new Error(`record ${name} needs an id field or a primaryKey option`);
    columns.id = { ...columns.id, primaryKey: true, notNull: true };
  }
  const table = defineTable(name, columns, { primaryKey: options.primaryKey, indexes: options.indexes });
  return { table, fields, row: undefined as unknown as RecordRow<Fs> };
}
