// A resource is declared once (table, fields with UI metadata, filters, sortable fields, search
// fields, access, operations); defineResource() turns it into route declarations: scheme, list,
// {id}, create, PATCH, DELETE and commands. Tenant isolation of rows is applied here, for every
// resource that names a tenant column, so no handler can forget it.
import type * as v from 'valibot';
import { requestJsonSchema } from './json-schema.js';
import { ApiError, type ErrorCode } from './errors.js';
import { pagingSpec, PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT, type ParamSpec, type QuerySpec } from './query.js';
import type { AnyRoute, HandlerContext, JsonSchema, ResponseSpec, RouteDef } from './route.js';
import type { Caller } from './context.js';
import { Store, type Filter, type ListOptions, type RangeCondition } from '../db/store.js';
import type { NeutralTable } from '../db/table.js';
import type { Database } from '../db/client.js';

export interface FieldSpec {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'datetime';
  label: string;
  enum?: readonly string[];
  /** The element type of an `array` field (its JSON schema's `items`, its row type's elements). */
  items?: 'string' | 'integer' | 'number' | 'boolean' | 'object';
  /** Set by the runtime; ignored when a client sends it. */
  readOnly?: boolean;
  required?: boolean;
  nullable?: boolean;
  description?: string;
  /** Free-form hints for the backend-driven UI (hidden, unit, badge, primary, ...), spread into the scheme's field. */
  ui?: Record<string, unknown>;
  /**
   * Storage of the field when the resource's table is derived from its fields (defineRecord):
   * options of its column, or false for a field computed by toItem and never stored.
   */
  column?: false | { primaryKey?: boolean; unique?: boolean; notNull?: boolean };
  /** A list filter on this field (equality unless `op` says otherwise); an object refines the query parameter. */
  filter?: boolean | Omit<FilterSpec, 'type'>;
  /** The list may be sorted by this field. */
  sortable?: boolean;
  /** Stored but never shown (a credential digest): left out of the scheme, the items and the OpenAPI item. */
  internal?: boolean;
  /** `q` searches this field. */
  searchable?: boolean;
}

export type FilterOp = 'eq' | 'gt' | 'gte' | 'lt' | 'lte';

export interface FilterSpec extends ParamSpec {
  /** Column the filter compares with (defaults to the filter's name). */
  column?: string;
  /**
   * How the column compares with the value: `eq` (the default), or a range end: `gt`, `gte`, `lt`,
   * `lte` (column > value, ...). Timestamps are RFC 3339 UTC text in both engines, so a
   * `format: 'date-time'` filter (normalised to UTC by the query parser) compares them correctly.
   */
  op?: FilterOp;
  /** The list's order when this filter is given and the caller names no sort (e.g. `since`: oldest first). */
  defaultOrder?: 'asc' | 'desc';
  /** The value as the column stores it, when that differs from the parameter (a date-time kept as epoch ms, a name kept as a code). */
  encode?: (value: string | number | boolean) => string | number | boolean;
}

export interface CommandDef<B = unknown> {
  summary: string;
  action: string;
  body?: v.GenericSchema<unknown, B>;
  bodyJsonSchema?: JsonSchema;
  errors?: ErrorCode[];
  status?: 200 | 201 | 202;
  idempotent?: boolean;
  response?: JsonSchema;
  handler(ctx: HandlerContext<B>, kit: ResourceKit<Record<string, unknown>>): Promise<unknown>;
}

/**
 * Declares a command so that its handler receives the body typed by the body schema: write
 * `commands: { ack: command({ body: ackBody, handler: (ctx) => ctx.body.id, ... }) }`, no cast.
 */
export const command = <B = undefined>(def: CommandDef<B>): CommandDef<B> => def;

export interface ResourceDef<Row extends Record<string, unknown>, CreateBody = unknown, PatchBody = unknown> {
  /** Path segment under /api/v1 (kebab-case, plural). */
  name: string;
  module: string;
  title: string;
  table: NeutralTable;
  /** Permission resource id and scope the routes require. */
  access: { resource: string; scope?: 'master' | 'tenant' | 'any' };
  /** Column holding the tenant: tenant callers only ever see and write their own rows. */
  tenantColumn?: string;
  /** Column holding the site: a tenant session bound to a site (site_id claim) only ever sees and writes that site's rows. */
  siteColumn?: string;
  /** Conditions always applied (several resources sharing one table). */
  fixed?: Filter;
  /** Column(s) used by /{id}; defaults to `id`. */
  idColumn?: string;
  /**
   * For a table with no index on its id: where an id's row lies, as ranges on the key it is stored
   * by (the security log's time-ordered ids carry their time). /{id} reads within them through the
   * list path (the read worker on a large SQLite table), and only when the row is not there, or
   * the id says nothing, over the whole table, still off the event loop.
   */
  locate?: (id: string) => readonly RangeCondition[] | undefined;
  fields: Record<string, FieldSpec>;
  /** Items may carry fields beyond the declared ones (free-form documents). */
  openItems?: boolean;
  filters?: Record<string, FilterSpec>;
  /** Sortable fields besides those marked `sortable` on the field. */
  sortable?: readonly string[];
  defaultSort: { field: string; order: 'asc' | 'desc' };
  /** Searched fields besides those marked `searchable` on the field. */
  search?: readonly string[];
  /** Largest page (default PAGE_MAX_LIMIT): more only where one screen needs more rows at once, e.g. a chart. */
  maxLimit?: number;
  toItem(row: Row): Record<string, unknown>;
  /** Runs before list and get (e.g. flushing a write buffer so readers see every entry). */
  beforeRead?(ctx: HandlerContext<unknown>): Promise<void>;
  create?: {
    body: v.GenericSchema<unknown, CreateBody>;
    bodyJsonSchema?: JsonSchema;
    toRow(body: CreateBody, ctx: HandlerContext<CreateBody>): Row | Promise<Row>;
  };
  patch?: {
    body: v.GenericSchema<unknown, PatchBody>;
    bodyJsonSchema?: JsonSchema;
    apply(current: Row, body: PatchBody, ctx: HandlerContext<PatchBody>): Partial<Row> | Promise<Partial<Row>>;
  };
  delete?: boolean;
  commands?: Record<string, CommandDef<any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** What a command looks like to the UI: enough to render it as an action with a form. */
function commandScheme(name: string, cmd: CommandDef<unknown>) {
  const body: JsonSchema | null = cmd.bodyJsonSchema ?? (cmd.body ? requestJsonSchema(cmd.body) : null);
  return { name, summary: cmd.summary, action: cmd.action, body };
}

/** Filters, sortable and searched fields: those the resource lists plus those its fields mark. */
/** A row by its id on a table with no index on the id (ResourceDef.locate): within the ranges first, then anywhere. */
async function located<Row extends Record<string, unknown>>(store: Store<Row>, where: Filter, ranges: readonly RangeCondition[] | undefined, column: string): Promise<Row | undefined> {
  const first = (within?: readonly RangeCondition[]) => store.list({ where, ...(within ? { ranges: within } : {}), sort: { column, order: 'desc' }, limit: 1, offset: 0 });
  if (ranges) {
    const [hit] = (await first(ranges)).rows;
    if (hit) return hit;
  }
  return (await first()).rows[0];
}

function derivedLists(fields: Record<string, FieldSpec>, def: { filters?: Record<string, FilterSpec>; sortable?: readonly string[]; search?: readonly string[] }) {
  const filters: Record<string, FilterSpec> = {};
  const sortable = new Set(def.sortable ?? []);
  const search = new Set(def.search ?? []);
  for (const [name, f] of Object.entries(fields)) {
    if (f.filter) {
      const type = f.type === 'integer' ? 'integer' : f.type === 'boolean' ? 'boolean' : 'string';
      filters[name] = { type, ...(f.enum ? { enum: f.enum } : {}), ...(typeof f.filter === 'object' ? f.filter : {}) };
    }
    if (f.sortable) sortable.add(name);
    if (f.searchable) search.add(name);
  }
  return { filters: { ...filters, ...(def.filters ?? {}) }, sortable: [...sortable], search: [...search] };
}

/** A declaration's filter that cannot work, refused when the resource is defined (the lists themselves are made later). */
function checkFilters(def: { name: string; fields: Record<string, FieldSpec>; filters?: Record<string, FilterSpec> }): void {
  const check = (name: string, f: { type: FilterSpec['type']; op?: FilterOp; format?: FilterSpec['format'] }) => {
    if (f.op && f.op !== 'eq' && f.type === 'boolean') throw new Error(`${def.name}: filter ${name} compares a boolean with ${f.op}`);
    if (f.format && f.type !== 'string') throw new Error(`${def.name}: filter ${name} has format ${f.format} but type ${f.type}`);
  };
  // A field's filter takes its type from the field and may say more in an object; a declared filter of the same name replaces it.
  for (const name in def.fields) {
    const f = def.fields[name] as FieldSpec;
    if (typeof f.filter === 'object' && !(def.filters && name in def.filters)) check(name, { type: f.type === 'integer' ? 'integer' : f.type === 'boolean' ? 'boolean' : 'string', ...f.filter });
  }
  for (const name in def.filters) check(name, def.filters[name] as FilterSpec);
}

interface Lists {
  filters: Record<string, FilterSpec>;
  sortable: string[];
  search: string[];
  query: QuerySpec;
  /** Per filter, settled once: its column and whether it is a range end. */
  filterList: { name: string; column: string; op: Exclude<FilterOp, 'eq'> | undefined; defaultOrder: FilterSpec['defaultOrder']; encode: FilterSpec['encode'] }[];
}

function listsOf(def: { fields: Record<string, FieldSpec>; filters?: Record<string, FilterSpec>; sortable?: readonly string[]; search?: readonly string[] }, maxLimit: number): Lists {
  const { filters, sortable, search } = derivedLists(def.fields, def);
  return {
    filters, sortable, search,
    query: { ...pagingSpec(sortable, search.length > 0, maxLimit), ...filters },
    filterList: Object.entries(filters).map(([name, f]) => ({ name, column: f.column ?? name, op: f.op && f.op !== 'eq' ? f.op : undefined, defaultOrder: f.defaultOrder, encode: f.encode })),
  };
}

/** What commands and custom handlers get to work with the resource's rows safely. */
export interface ResourceKit<Row extends Record<string, unknown>> {
  store(db: Database): Store<Row>;
  /** The caller-visible row with this id, or a 404 with `code`. */
  load(ctx: HandlerContext<unknown>, id: string, code?: ErrorCode): Promise<Row>;
  /** Equality conditions every query of this caller must carry (fixed + tenant). */
  scope(caller: Caller | undefined): Filter;
  toItem(row: Row): Record<string, unknown>;
}

const jsonType: Record<FieldSpec['type'], JsonSchema> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  object: { type: 'object' },
  array: { type: 'array' },
  datetime: { type: 'string', format: 'date-time' },
};

export function itemSchema(allFields: Record<string, FieldSpec>, open = false): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const fields = Object.fromEntries(Object.entries(allFields).filter(([, f]) => !f.internal));
  for (const [name, f] of Object.entries(fields)) {
    const base: JsonSchema = { ...jsonType[f.type], ...(f.items ? { items: jsonType[f.items] } : {}), ...(f.enum ? { enum: [...f.enum] } : {}), description: f.description ?? f.label };
    properties[name] = f.nullable ? { anyOf: [base, { type: 'null' }], description: base.description } : base;
  }
  return { type: 'object', properties, required: Object.entries(fields).filter(([, f]) => !f.nullable).map(([n]) => n), additionalProperties: open };
}

/**
 * What a resource declaration gives: its table and fields, or the `record` that holds both
 * (defineRecord); `toItem` only where an item is not the row as it is.
 */
export type ResourceInput<Row extends Record<string, unknown>, C = unknown, P = unknown> =
  Omit<ResourceDef<Row, C, P>, 'table' | 'fields' | 'toItem'>
  & { toItem?: ResourceDef<Row, C, P>['toItem'] }
  & ({ table: NeutralTable; fields: Record<string, FieldSpec>; record?: never } | { record: { table: NeutralTable; fields: Record<string, FieldSpec> }; table?: never; fields?: never });

const asItem = (row: Record<string, unknown>): Record<string, unknown> => row;

export function defineResource<Row extends Record<string, unknown>, C = unknown, P = unknown>(
  input: ResourceInput<Row, C, P>,
): { routes: AnyRoute[]; kit: ResourceKit<Row>; def: ResourceDef<Row, C, P> } {
  const { record, ...rest } = input;
  const def: ResourceDef<Row, C, P> = {
    ...rest,
    table: record ? record.table : input.table!,
    fields: record ? record.fields : input.fields!,
    toItem: input.toItem ?? asItem,
  };
  const base = `/api/v1/${def.name}`;
  const idColumn = def.idColumn ?? 'id';
  const stores = new WeakMap<Database, Store<Row>>();
  const scopeAccess = (action: string) => ({ resource: def.access.resource, action, scope: def.access.scope ?? 'any' });
  const tag = [def.module];

  const kit: ResourceKit<Row> = {
    store(db) {
      let s = stores.get(db);
      if (!s) stores.set(db, (s = new Store<Row>(db, def.table)));
      return s;
    },
    scope(caller) {
      const filter: Filter = { ...(def.fixed ?? {}) };
      if (def.tenantColumn && caller?.scope_type === 'tenant') {
        if (!caller.tenant_id) throw new ApiError('tenant_boundary_denied', 'tenant session without a tenant id');
        filter[def.tenantColumn] = caller.tenant_id;
      }
      if (def.siteColumn && caller?.scope_type === 'tenant' && caller.site_id) filter[def.siteColumn] = caller.site_id;
      return filter;
    },
    async load(ctx, id, code = 'not_found') {
      const store = kit.store(ctx.services.db);
      const where = { ...kit.scope(ctx.caller), [idColumn]: id };
      const row = def.locate ? await located(store, where, def.locate(id), def.defaultSort.field) : await store.find(where);
      if (!row) throw new ApiError(code, `${def.title.toLowerCase()} ${id} not found`);
      return row;
    },
    toItem: def.toItem,
  };

  checkFilters(def);
  const maxLimit = def.maxLimit ?? PAGE_MAX_LIMIT;
  // The list's filters, sorts, search and query parameters are settled at the first request that
  // needs them (a list, the scheme; the route's `query` when first read), not at every start: a
  // restart defines every resource and answers few of them. The declaration's checks stay above.
  let listsMemo: Lists | undefined;
  const lists = () => (listsMemo ??= listsOf(def, maxLimit));
  // The item's JSON schema is read only by the OpenAPI document (which the executable carries
  // prebuilt): made when first read, not at every start (about 2 % of a restart's CPU).
  let itemMemo: JsonSchema | undefined;
  const lazyItem = () => (itemMemo ??= itemSchema(def.fields, def.openItems ?? false));
  // One answer shape for every route that answers an item (they only read it).
  const single: ResponseSpec = { kind: 'single', get item() { return lazyItem(); } };
  // An integer id is documented and checked as one: `/{id}` with text is a 400, never a database error.
  const idParams: QuerySpec | undefined = def.fields[idColumn]?.type === 'integer' ? { id: { type: 'integer', min: 0 } } : undefined;

  const routes: AnyRoute[] = [
    {
      method: 'get', path: `${base}/scheme`, module: def.module, tags: tag, summary: `UI metadata of ${def.title}`,
      access: scopeAccess('read'), response: { kind: 'single', item: { type: 'object' } },
      handler: async () => {
        const { filters, sortable, search } = lists();
        return {
          resource: def.name,
          title: def.title,
          module: def.module,
          fields: Object.entries(def.fields).filter(([, f]) => !f.internal).map(([name, f]) => ({
            name, type: f.type, label: f.label, enum: f.enum, read_only: f.readOnly ?? false,
            required: f.required ?? false, nullable: f.nullable ?? false, description: f.description,
            sortable: sortable.includes(name), searchable: search.includes(name), ...f.ui,
          })),
          filters: Object.entries(filters).map(([name, f]) => ({ name, type: f.type, enum: f.enum, format: f.format, op: f.op ?? 'eq', description: f.description })),
          sortable,
          default_sort: def.defaultSort,
          search_fields: search,
          page: { default_limit: PAGE_DEFAULT_LIMIT, max_limit: maxLimit },
          operations: { create: Boolean(def.create), patch: Boolean(def.patch), delete: Boolean(def.delete) },
          commands: Object.entries(def.commands ?? {}).map(([name, cmd]) => commandScheme(name, cmd)),
        };
      },
    },
    {
      method: 'get', path: `${base}/list`, module: def.module, tags: tag, summary: `List ${def.title}`,
      access: scopeAccess('read'), get query() { return lists().query; }, response: { kind: 'list', get item() { return lazyItem(); } },
      handler: async (ctx) => {
        await def.beforeRead?.(ctx);
        const { filterList, search } = lists();
        const q = ctx.query;
        const where: Filter = kit.scope(ctx.caller);
        const ranges: RangeCondition[] = [];
        let impliedOrder: 'asc' | 'desc' | undefined;
        for (const f of filterList) {
          const given = q[f.name];
          if (given === undefined) continue;
          const value = f.encode ? f.encode(given) : given;
          const column = f.column;
          if (f.op) {
            ranges.push({ column, op: f.op, value });
            impliedOrder ??= f.defaultOrder;
            continue;
          }
          // A filter on the tenant column cannot widen a tenant caller's scope.
          if (column in where && where[column] !== value) return { items: [], offset: q.offset, limit: q.limit, total: 0 };
          where[column] = value;
        }
        const term = typeof q.q === 'string' ? q.q : undefined;
        const opts: ListOptions = {
          where,
          ranges,
          q: term && search.length ? { columns: search, term } : undefined,
          sort: { column: (q.sort as string | undefined) ?? def.defaultSort.field, order: (q.order as 'asc' | 'desc' | undefined) ?? (q.sort ? 'asc' : (impliedOrder ?? def.defaultSort.order)) },
          limit: q.limit as number,
          offset: q.offset as number,
        };
        const { rows, total, estimated } = await kit.store(ctx.services.db).list(opts);
        return { items: rows.map(def.toItem), offset: q.offset, limit: q.limit, total, ...(estimated ? { total_estimated: true as const } : {}) };
      },
    },
  ];

  for (const [name, cmd] of Object.entries(def.commands ?? {})) {
    routes.push({
      method: 'post', path: `${base}/commands/${name}`, module: def.module, tags: tag, summary: cmd.summary,
      access: scopeAccess(cmd.action), body: cmd.body, bodyJsonSchema: cmd.bodyJsonSchema, status: cmd.status,
      errors: cmd.errors, idempotent: cmd.idempotent, response: cmd.response ? { kind: 'single', item: cmd.response } : single,
      handler: (ctx) => cmd.handler(ctx, kit as unknown as ResourceKit<Record<string, unknown>>),
    });
  }

  if (def.create) {
    const create = def.create;
    routes.push({
      method: 'post', path: base, module: def.module, tags: tag, summary: `Create a ${def.title} record`,
      access: scopeAccess('create'), body: create.body, bodyJsonSchema: create.bodyJsonSchema, status: 201,
      errors: ['already_exists'], response: single,
      handler: async (ctx: HandlerContext<C>) => {
        const row = { ...(await create.toRow(ctx.body, ctx)), ...kit.scope(ctx.caller) } as Row;
        const saved = await kit.store(ctx.services.db).insert(row);
        if (!saved) throw new ApiError('already_exists', `${def.title.toLowerCase()} ${String(row[idColumn])} already exists`);
        return def.toItem(saved);
      },
    } as RouteDef<C>);
  }

  routes.push({
    method: 'get', path: `${base}/{id}`, module: def.module, tags: tag, summary: `One ${def.title} record`,
    access: scopeAccess('read'), params: idParams, errors: ['not_found'], response: single,
    handler: async (ctx) => {
      await def.beforeRead?.(ctx);
      return def.toItem(await kit.load(ctx, ctx.params.id as string));
    },
  });

  if (def.patch) {
    const patch = def.patch;
    routes.push({
      method: 'patch', path: `${base}/{id}`, module: def.module, tags: tag, summary: `Change a ${def.title} record`,
      access: scopeAccess('update'), params: idParams, body: patch.body, bodyJsonSchema: patch.bodyJsonSchema, errors: ['not_found'],
      response: single,
      handler: async (ctx: HandlerContext<P>) => {
        const id = ctx.params.id as string;
        const current = await kit.load(ctx as HandlerContext<unknown>, id);
        const changes = await patch.apply(current, ctx.body, ctx);
        const saved = await kit.store(ctx.services.db).update({ ...kit.scope(ctx.caller), [idColumn]: id }, changes);
        if (!saved) throw new ApiError('not_found', `${def.title.toLowerCase()} ${id} not found`);
        return def.toItem(saved);
      },
    } as RouteDef<P>);
  }

  if (def.delete) {
    routes.push({
      method: 'delete', path: `${base}/{id}`, module: def.module, tags: tag, summary: `Delete a ${def.title} record`,
      access: scopeAccess('delete'), params: idParams, errors: ['not_found'], response: single,
      handler: async (ctx) => {
        const id = ctx.params.id as string;
        const gone = await kit.store(ctx.services.db).delete({ ...kit.scope(ctx.caller), [idColumn]: id });
        if (!gone) throw new ApiError('not_found', `${def.title.toLowerCase()} ${id} not found`);
        return def.toItem(gone);
      },
    });
  }

  return { routes, kit, def };
}
