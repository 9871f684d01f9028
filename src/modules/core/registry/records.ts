// The module record of the contract (2.3), derived from the manifest: backend routes from the
// module's route declarations, database tables from its neutral tables, migrations from the
// generated migration folders. Nothing here is typed twice.
import type { ModuleManifest, PermissionRule } from '../../../kernel/module.js';
import type { NeutralTable } from '../../../db/table.js';
import type { JsonSchema } from '../../../kernel/route.js';

export interface TableRecord {
  name: string;
  primary_key: string[];
  columns: string[];
}

export interface ModuleRecord {
  id: string;
  name: string;
  description: string;
  version: string;
  core: boolean;
  installed: boolean;
  dependencies: string[];
  industry_code: string | null;
  industry_scope: ModuleManifest['industry_scope'];
  key_entity: string | null;
  provides_enrichment_for: string[];
  frontend: { block_id: string; component: string };
  backend: { routes: string[] };
  database: { migrations: string[]; tables: TableRecord[] };
  permissions: { rules: PermissionRule[] };
}

export const tableRecord = (t: NeutralTable): TableRecord => ({ name: t.name, primary_key: [...t.primaryKey], columns: Object.keys(t.columns) });

/** Path strings of the module's routes, once each, in declaration order. */
export const routePaths = (m: ModuleManifest): string[] => [...new Set(m.routes.map((r) => r.path))];

export function moduleRecord(m: ModuleManifest, state: { installed: boolean; rules: PermissionRule[]; migrations: string[] }): ModuleRecord {
  return {
    id: m.id,
    name: m.name,
    description: m.description,
    version: m.version,
    core: m.core,
    installed: state.installed,
    dependencies: [...m.dependencies],
    industry_code: m.industry_code,
    industry_scope: m.industry_scope,
    key_entity: m.key_entity,
    provides_enrichment_for: [...m.provides_enrichment_for],
    // Derived: the web shell draws every module's block at #/m/<id> with its one generic screen.
    frontend: { block_id: m.id, component: 'ModuleScreen' },
    backend: { routes: routePaths(m) },
    database: { migrations: state.migrations, tables: m.tables.map(tableRecord) },
    permissions: { rules: state.rules.map((r) => ({ role: r.role, resource: r.resource, actions: [...r.actions] })) },
  };
}

export const majorOf = (version: string): number => Number(version.split('.')[0]);

// JSON Schemas of the answers, for the OpenAPI document.
const strings = { type: 'array', items: { type: 'string' } };
const nullableString = { anyOf: [{ type: 'string' }, { type: 'null' }] };
export const ruleSchema: JsonSchema = {
  type: 'object', required: ['role', 'resource', 'actions'],
  properties: { role: { enum: ['operator', 'admin', 'security'] }, resource: { type: 'string' }, actions: strings },
};
export const tableSchema: JsonSchema = {
  type: 'object', required: ['name', 'primary_key', 'columns'],
  properties: { name: { type: 'string' }, primary_key: strings, columns: strings },
};
export const moduleRecordSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'description', 'version', 'core', 'installed', 'dependencies', 'frontend', 'backend', 'database', 'permissions', 'industry_code', 'industry_scope', 'key_entity', 'provides_enrichment_for'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' },
    core: { type: 'boolean', description: 'A core module cannot be uninstalled.' },
    installed: { type: 'boolean' },
    dependencies: { ...strings, description: 'Ids of modules that must be installed first.' },
    industry_code: { ...nullableString, description: 'The industry the module belongs to; null for global and master modules.' },
    industry_scope: { enum: ['global', 'industry', 'master'] },
    key_entity: nullableString,
    provides_enrichment_for: strings,
    frontend: { type: 'object', required: ['block_id', 'component'], properties: { block_id: { type: 'string' }, component: { type: 'string' } } },
    backend: { type: 'object', required: ['routes'], properties: { routes: { ...strings, description: 'Path of every route the module serves (OpenAPI style).' } } },
    database: {
      type: 'object', required: ['migrations', 'tables'],
      properties: { migrations: { ...strings, description: 'Migration tags of the module for the running database engine.' }, tables: { type: 'array', items: tableSchema } },
    },
    permissions: { type: 'object', required: ['rules'], properties: { rules: { type: 'array', items: ruleSchema, description: 'Effective rules: the manifest\'s, or the ones saved by permissions/commands/update.' } } },
  },
};
