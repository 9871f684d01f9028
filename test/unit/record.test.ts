// The kit's one-declaration path: fields give the table, the filters and the scheme's commands.
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { getTableConfig } from 'drizzle-orm/sqlite-core';
import { defineRecord } from '../../src/kernel/record.js';
import { command, defineResource } from '../../src/kernel/resource.js';
import { need, type Services } from '../../src/kernel/context.js';
import { ApiError } from '../../src/kernel/errors.js';

const rec = defineRecord('widgets', {
  id: { type: 'string', label: 'ID' },
  kind: { type: 'string', label: 'Kind', enum: ['a', 'b'], filter: true, sortable: true },
  weight: { type: 'number', label: 'Weight', nullable: true, sortable: true },
  count: { type: 'integer', label: 'Count', filter: { description: 'exact count' } },
  tags: { type: 'array', label: 'Tags', nullable: true },
  seen_at: { type: 'datetime', label: 'Seen', searchable: true },
  age_days: { type: 'integer', label: 'Age', column: false },
  secret_digest: { type: 'string', label: 'Digest', internal: true, nullable: true },
});

describe('defineRecord', () => {
  it('derives columns, kinds, nullability and the primary key from the fields', () => {
    expect(Object.keys(rec.table.columns)).toEqual(['id', 'kind', 'weight', 'count', 'tags', 'seen_at', 'secret_digest']);
    expect(rec.table.columns.id).toMatchObject({ kind: 'text', primaryKey: true, notNull: true });
    expect(rec.table.columns.weight).toEqual({ kind: 'real' });
    expect(rec.table.columns.count).toEqual({ kind: 'integer', notNull: true });
    expect(rec.table.columns.tags).toEqual({ kind: 'json' });
    expect(rec.table.columns.seen_at).toEqual({ kind: 'timestamp', notNull: true });
    const cfg = getTableConfig(rec.table.sqlite);
    expect(cfg.columns.find((c) => c.name === 'weight')?.notNull).toBe(false);
    expect(cfg.columns.find((c) => c.name === 'kind')?.notNull).toBe(true);
  });

  it('refuses a record without a key', () => {
    expect(() => defineRecord('nokey', { name: { type: 'string', label: 'Name' } })).toThrow(/id field or a primaryKey/);
  });
});

describe('defineResource with field flags and typed commands', () => {
  const body = v.strictObject({ id: v.string(), n: v.number() });
  const res = defineResource<typeof rec.row>({
    name: 'widgets', module: 'w', title: 'Widgets', table: rec.table, access: { resource: 'widgets' },
    fields: rec.fields, defaultSort: { field: 'kind', order: 'asc' },
    toItem: (row) => row,
    commands: {
      bump: command({ summary: 'Bump', action: 'execute', body, handler: async (ctx) => ({ id: ctx.body.id, n: ctx.body.n + 1 }) }),
    },
  });

  it('builds list filters, sort and search from the fields', () => {
    const list = res.routes.find((r) => r.path === '/api/v1/widgets/list')!;
    expect(Object.keys(list.query!)).toEqual(expect.arrayContaining(['kind', 'count', 'sort', 'order', 'q']));
    expect(list.query!.kind).toMatchObject({ type: 'string', enum: ['a', 'b'] });
    expect(list.query!.count).toMatchObject({ type: 'integer', description: 'exact count' });
    expect(list.query!.sort!.enum).toEqual(['kind', 'weight']);
    expect(list.query).not.toHaveProperty('weight');
  });

  it('describes each command with its body schema in the scheme', async () => {
    const scheme = res.routes.find((r) => r.path === '/api/v1/widgets/scheme')!;
    const out = (await scheme.handler({} as never)) as { commands: { name: string; body: { properties: Record<string, unknown>; required: string[] } }[]; fields: { name: string; nullable: boolean }[] };
    expect(out.commands).toEqual([{ name: 'bump', summary: 'Bump', action: 'execute', body: expect.objectContaining({ type: 'object', required: ['id', 'n'] }) }]);
    expect(out.commands[0]!.body.properties.n).toEqual({ type: 'number' });
    expect(out.fields.find((f) => f.name === 'weight')!.nullable).toBe(true);
    // internal fields are stored, never shown: not in the scheme, not in the documented item
    expect(out.fields.map((f) => f.name)).not.toContain('secret_digest');
    const list = res.routes.find((r) => r.path === '/api/v1/widgets/list')!;
    expect(Object.keys((list.response as unknown as { item: { properties: object } }).item.properties)).not.toContain('secret_digest');
  });
});

describe('need()', () => {
  it('returns a running service and answers 503 service_unavailable for a missing one', () => {
    const alarms = { raise: async () => ({}) };
    expect(need({ alarms } as unknown as Services, 'alarms')).toBe(alarms);
    try {
      need({} as Services, 'alarms');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('service_unavailable');
    }
  });
});
