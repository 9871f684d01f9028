// Free-form JSON documents with runtime-set id, resource and timestamps (contract 4.6): the
// shape shared by the generic `tables` and `forms` resources, each in its own table.
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { defineRecord } from '../../kernel/record.js';
import { defineResource } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import { defineModule, grant } from '../../kernel/module.js';

const RUNTIME_FIELDS = ['id', 'created_at', 'updated_at', 'resource'] as const;
const idSchema = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'id: 1-128 of A-Z a-z 0-9 . _ : - (starting with a letter or digit)'));
const itemObject = v.record(v.string(), v.unknown());

const createBody = v.object({
  item: v.pipe(itemObject, v.check((i) => i.id === undefined || v.is(idSchema, i.id), 'item.id must be 1-128 of A-Z a-z 0-9 . _ : -')),
});
const patchBody = v.object({ item: itemObject });

function userData(item: Record<string, unknown>): Record<string, unknown> {
  const out = { ...item };
  for (const k of RUNTIME_FIELDS) delete out[k];
  return out;
}

/**
 * The record of a document resource: the item is the stored `data` object with the runtime's id,
 * resource and timestamps laid over it, so `tenant_id` and `data` are stored but never shown.
 */
export function documentsRecord(name: string, resource: string) {
  return defineRecord(name, {
    id: { type: 'string', label: 'ID', description: 'Given at create, or generated (UUID).', column: { primaryKey: true } },
    tenant_id: { type: 'string', label: 'Tenant', nullable: true, internal: true },
    data: { type: 'object', label: 'Data', internal: true },
    resource: { type: 'string', label: 'Resource', readOnly: true, enum: [resource], column: false },
    created_at: { type: 'datetime', label: 'Created', readOnly: true },
    updated_at: { type: 'datetime', label: 'Updated', readOnly: true },
  }, { indexes: [{ name: `${name}_tenant_created`, columns: ['tenant_id', 'created_at'] }] });
}

type DocumentsRecord = ReturnType<typeof documentsRecord>;
export type DocumentRow = DocumentsRecord['row'];

export function documentResource(opts: { name: string; module: string; title: string; record: DocumentsRecord }) {
  return defineResource<DocumentRow, v.InferOutput<typeof createBody>, v.InferOutput<typeof patchBody>>({
    name: opts.name,
    module: opts.module,
    title: opts.title,
    record: opts.record,
    access: { resource: opts.name, scope: 'any' },
    tenantColumn: 'tenant_id',
    openItems: true,
    sortable: ['id', 'created_at', 'updated_at'],
    defaultSort: { field: 'created_at', order: 'desc' },
    search: ['id', 'data'],
    toItem: (row) => ({ ...row.data, id: row.id, resource: opts.name, created_at: row.created_at, updated_at: row.updated_at }),
    create: {
      body: createBody,
      bodyJsonSchema: { type: 'object', required: ['item'], properties: { item: { type: 'object', description: 'Any JSON object; `id` optional (generated when absent); created_at, updated_at and resource are set by the runtime and ignored when sent.', properties: { id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' } } } } },
      toRow: (body) => {
        const now = new Date().toISOString();
        return { id: (body.item.id as string | undefined) ?? randomUUID(), tenant_id: null, data: userData(body.item), created_at: now, updated_at: now };
      },
    },
    patch: {
      body: patchBody,
      bodyJsonSchema: { type: 'object', required: ['item'], properties: { item: { type: 'object', description: 'Fields to merge into the record (shallow). A null value removes the field. `id` may be repeated but not changed.' } } },
      apply: (current, body) => {
        if (body.item.id !== undefined && body.item.id !== current.id) {
          throw new ApiError('validation_error', 'the id of a record cannot be changed', [{ field: 'item.id', reason: 'immutable' }]);
        }
        const data: Record<string, unknown> = { ...current.data };
        for (const [k, value] of Object.entries(userData(body.item))) {
          if (value === null) delete data[k];
          else data[k] = value;
        }
        return { data, updated_at: new Date().toISOString() };
      },
    },
    delete: true,
  });
}

/** The manifest of a document module: one resource over its own table. */
export function documentModule(opts: { id: string; name: string; description: string; keyEntity: string }) {
  const record = documentsRecord(`${opts.id}_items`, opts.id);
  const resource = documentResource({ name: opts.id, module: opts.id, title: opts.name, record });
  return defineModule({
    id: opts.id,
    name: opts.name,
    description: opts.description,
    version: '1.0.0',
    core: false,
    dependencies: [],
    industry_code: null,
    industry_scope: 'global',
    key_entity: opts.keyEntity,
    provides_enrichment_for: [],
    routes: resource.routes,
    tables: [record.table],
    permissions: grant(opts.id, { operator: ['read'], admin: ['read', 'create', 'update', 'delete'], security: ['read'] }),
  });
}
