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

export interface User { role: 'operator' | 'admin' | 'security'; scope: string; scope_type: 'master' | 'tenant'; subject?: string; tenant_id?: string; site_id?: string }

export interface AppContext {
  deployment_mode: 'edge-single' | 'cloud-multi';
  industry_code: string;
  available_industries: string[];
  tenant_id: string | null;
  site_id: string | null;
  feature_flags: Record<string, boolean>;
  /** Settings site_locale and site_clock (older boxes leave it out: en-GB, 24-hour). */
  display?: { locale: string; clock: '24h' | '12h' };
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
// events): copied from src/modules/alarm-view/item.ts, since the shell cannot import server code.
// The box decides annunciation, urgency and tone; the shell renders them and never re-derives them.
export type AlarmViewState = 'unacknowledged_active' | 'acknowledged_active' | 'unacknowledged_cleared' | 'latched' | 'shelved' | 'out_of_service' | 'normal';
export type AlarmChangeKind =
  | 'raised' | 'grouped' | 'returned' | 'cleared' | 'reset' | 'acknowledged' | 'commented' | 'shelved' | 'unshelved' | 'shelve_expired'
  | 'out_of_service' | 'returned_to_service' | 'escalated';
export type AlarmAction = 'ack' | 'comment' | 'shelve' | 'unshelve' | 'reset';
export type AlarmTone = 'alarm' | 'warn' | 'muted';

export interface AlarmViewItem {
  /** `<resource>:<id>`, unique across resources. */
  key: string;
  /** Where its commands are; sync-alarms (a farm's, on a master) is read-only. */
  resource: 'industry-alarms' | 'alarms' | 'sync-alarms';
  id: string;
  tenant_id: string | null;
  site_id: string | null;
  industry: string | null;
  unit_id: string | null;
  /** The unit in farm words ("House 2"); the farm on a master; null when none. */
  where: string | null;
  /** A farm's alarm on a master: the farm in words; null for the box's own. */
  farm: string | null;
  title: string;
  /** The cause in words ("Temperature 38 °C, above the limit of 31 °C"), or the alarm's own message. */
  cause: string | null;
  metric: string | null;
  value: number | null;
  threshold: number | null;
  comparator: string | null;
  priority: 'P1' | 'P2' | null;
  severity: string;
  condition: 'active' | 'cleared';
  alarm_state: 'unacknowledged_active' | 'acknowledged_active' | 'unacknowledged_cleared' | 'normal';
  state: AlarmViewState;
  /** Counted in the top bar: not acknowledged, not suppressed; active or back to normal. */
  annunciated: boolean;
  /** Sounds (tone, banner): annunciated, active, P1 (or critical/high without a priority). */
  urgent: boolean;
  tone: AlarmTone;
  /** A controller, bus or MQTT feed stopped answering. */
  comm_loss: boolean;
  latched: boolean;
  resettable: boolean;
  raise_count: number;
  raised_at: string;
  last_raised_at: string;
  returned_at: string | null;
  cleared_at: string | null;
  reset_at: string | null;
  reset_by: string | null;
  acked_at: string | null;
  acked_by: string | null;
  shelved_until: string | null;
  shelved_at: string | null;
  shelved_by: string | null;
  shelve_reason: string | null;
  sla_deadline_at: string | null;
  comments: { text: string; by: string; at: string }[];
  /** The commands that apply in this state (the role is checked apart). */
  applicable: AlarmAction[];
}

export interface AlarmCounts { listed: number; annunciated: number; urgent: number }

export interface AlarmSummary extends AlarmCounts {
  by_state: Record<Exclude<AlarmViewState, 'normal'>, number>;
  by_priority: { P1: AlarmCounts; P2: AlarmCounts; other: AlarmCounts };
  /** Changes whenever any listed alarm changes: equal revisions, equal lists. */
  revision: string;
  at: string;
}
