// Shapes of the API answers the shell reads (contract 2.3; the resource kit's scheme).
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'datetime';

export interface SchemeField {
  name: string;
  type: FieldType;
  label: string;
  enum?: string[];
  read_only?: boolean;
  required?: boolean;
  nullable?: boolean;
  description?: string;
  sortable?: boolean;
  searchable?: boolean;
  /** ui hints spread into the field by the kit */
  hidden?: boolean;
  unit?: string;
  [hint: string]: unknown;
}

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  description?: string;
  title?: string;
  default?: unknown;
}

export interface SchemeCommand { name: string; summary: string; action: string; body: JsonSchema | null }

export interface Scheme {
  resource: string;
  title: string;
  module?: string;
  fields: SchemeField[];
  filters?: { name: string; type: string; enum?: string[]; description?: string; format?: string; op?: string }[];
  sortable?: string[];
  default_sort?: { field: string; order: 'asc' | 'desc' };
  search_fields?: string[];
  page?: { default_limit: number; max_limit: number };
  operations?: { create: boolean; patch: boolean; delete: boolean };
  commands?: SchemeCommand[];
}

export interface ModuleRecord {
  id: string;
  name: string;
  description: string;
  version: string;
  core: boolean;
  installed: boolean;
  industry_code?: string | null;
  industry_scope?: string;
  frontend: { block_id: string; component: string };
  backend: { routes: string[] };
}

export interface User { role: 'operator' | 'admin' | 'security'; scope: string; scope_type: 'master' | 'tenant'; subject?: string; tenant_id?: string; site_id?: string; /** The person's own (their card's); null: the site's default. */ language?: string | null }

export interface AppContext {
  deployment_mode: 'edge-single' | 'cloud-multi';
  industry_code: string;
  available_industries: string[];
  tenant_id: string | null;
  site_id: string | null;
  feature_flags: Record<string, boolean>;
  /** Settings site_locale and site_clock (older boxes leave it out: en-GB, 24-hour). */
  display?: { locale: string; clock: '24h' | '12h'; /** The site's default language (site_language). */ language?: string };
  user: User;
  policy: {
    scope_type: string;
    role: string;
    permissions: { ui: Record<string, boolean>; api: Record<string, boolean> };
    capabilities: Record<string, boolean>;
  };
}

export interface Preferences {
  theme: 'light' | 'dark' | 'system' | null;
  dashboard_layout: DashboardLayout | unknown[] | null;
  quick_module_ids: string[] | null;
  has_theme: boolean;
  has_dashboard_layout: boolean;
  has_quick_module_ids: boolean;
  source: 'user' | 'profile' | 'none';
}

/** What the shell keeps in ui-preferences' free-form dashboard_layout. */
export interface DashboardLayout {
  module_order?: string[];
  /** The API's theme enum has no high-contrast value: it is light + contrast high. */
  contrast?: 'high' | 'normal';
}

export type ThemeChoice = 'light' | 'dark' | 'high-contrast' | 'system';

export interface StatusEvent { id: number; source: string; event: string; status: string; timestamp: string; tenant_id?: string | null; site_id?: string | null; correlation_id?: string | null; details?: unknown }

// The alarm view (GET /api/v1/alarm-view/list and /summary, and the `alarm_changed` status
// events): the server's own types (src/industry/alarm-view-item.ts, which imports nothing), so the
// shape is written once. The box decides annunciation, urgency and tone; the shell renders them.
// Its texts the box wrote itself come with their keys (title_key, message_key, where_key) and
// text_params: render them with boxText(a.title_key, a.text_params, a.title).
export type {
  AlarmViewItem, AlarmSummary, AlarmCounts, AlarmAction, AlarmTone, ViewState as AlarmViewState, ChangeKind as AlarmChangeKind, TextParams,
} from '../../../industry/alarm-view-item';

/** Who is logged in and what the shell knows of their box (lib/session.ts keeps it). */
export interface Session {
  user: User;
  ctx: AppContext;
  modules: ModuleRecord[];
  /** Resource paths (below /api/v1/) that have a scheme, per module id. */
  resources: Map<string, string[]>;
  /** Industry shown (cloud-multi may switch it). */
  industry: string;
}
