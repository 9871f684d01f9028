// melioration-control-mode: one row per field.
//   C  automatic: the box runs the field from its water balance with the station's weather.
//   B  probe-driven: weather is not trusted; soil-moisture probes alone drive the decisions.
//   A  manual: nothing automatic; the operator irrigates, the box advises and alerts.
// commands/set is a person's choice (auto_degraded=false; C only while the site's station is
// healthy, else 409 lifecycle_conflict). commands/degrade (and unhealthy station telemetry)
// moves a field in C to its fallback mode with auto_degraded=true; the next healthy station
// telemetry returns every auto-degraded field of the site to C.
import * as v from 'valibot';
import { command, defineResource } from '../../kernel/resource.js';
import { need } from '../../kernel/context.js';
import { ApiError } from '../../kernel/errors.js';
import { ident, text } from './inputs.js';
import { loadField } from './fields.js';
import { CONTROL_MODES, controlModeRecord, FALLBACK_MODES, type ControlModeRow } from './schema.js';

const setBody = v.strictObject({
  field_id: ident,
  control_mode: v.picklist(CONTROL_MODES),
  fallback_mode: v.optional(v.picklist(FALLBACK_MODES)),
  reason: v.optional(text),
});

const degradeBody = v.strictObject({
  field_id: ident,
  fallback_mode: v.optional(v.picklist(FALLBACK_MODES)),
  reason: v.optional(text),
});

export const controlModeResource = defineResource<ControlModeRow>({
  name: 'melioration-control-mode',
  module: 'melioration',
  title: 'Field control modes',
  record: controlModeRecord,
  idColumn: 'field_id',
  access: { resource: 'melioration-control-mode', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'field_id', order: 'asc' },
  commands: {
    set: command({
      summary: 'Set a field\'s control mode (A manual, B probe-driven, C automatic) and optionally its fallback mode; C needs a healthy station (409 lifecycle_conflict otherwise)',
      action: 'execute',
      errors: ['not_found', 'lifecycle_conflict'],
      body: setBody,
      handler: async (ctx, kit) => {
        const b = ctx.body;
        const field = await loadField(ctx, b.field_id, 'field_id');
        const current = (await kit.load(ctx, field.id)) as ControlModeRow;
        const station = await need(ctx.services, 'melioration').stationState(field.tenant_id, field.site_id);
        if (b.control_mode === 'C' && !station?.healthy) {
          throw new ApiError('lifecycle_conflict', station
            ? `the weather station of site ${field.site_id} is unhealthy (${station.health_reasons.join(', ')}); field ${field.id} stays in ${current.control_mode} until it is healthy`
            : `site ${field.site_id} has no station telemetry yet: automatic mode C needs a healthy station`, [{ field: 'control_mode', reason: 'station_unhealthy' }]);
        }
        const saved = (await kit.store(ctx.services.db).update({ ...kit.scope(ctx.caller), field_id: field.id }, {
          control_mode: b.control_mode, fallback_mode: b.fallback_mode ?? current.fallback_mode, auto_degraded: false,
          station_healthy: station ? station.healthy : null, reason: b.reason ?? 'set by a person', changed_at: new Date().toISOString(), changed_by: ctx.caller?.subject ?? 'system',
        })) as ControlModeRow;
        await ctx.services.audit.record({ actor: ctx.caller?.subject ?? 'system', action: 'control_mode.set', resource: 'melioration-control-mode', result: 'success', tenant_id: field.tenant_id, correlation_id: ctx.requestId, details: { field_id: field.id, from: current.control_mode, to: saved.control_mode, fallback_mode: saved.fallback_mode } });
        return saved;
      },
    }),
    degrade: command({
      summary: 'Degrade a field in automatic mode C to its fallback mode (A or B) with auto_degraded=true; 409 lifecycle_conflict when it is not in C',
      action: 'execute',
      errors: ['not_found', 'lifecycle_conflict'],
      body: degradeBody,
      handler: async (ctx, kit) => {
        const b = ctx.body;
        const field = await loadField(ctx, b.field_id, 'field_id');
        const current = (await kit.load(ctx, field.id)) as ControlModeRow;
        if (current.control_mode !== 'C') {
          throw new ApiError('lifecycle_conflict', `field ${field.id} is in ${current.control_mode}; only automatic mode C degrades`, [{ field: 'field_id', reason: `control_mode_${current.control_mode}` }]);
        }
        const reason = b.reason ?? 'degraded by command';
        // Conditional on C, so a concurrent set or telemetry decides once.
        const saved = (await kit.store(ctx.services.db).update({ ...kit.scope(ctx.caller), field_id: field.id, control_mode: 'C' }, {
          control_mode: b.fallback_mode ?? current.fallback_mode, auto_degraded: true, reason, changed_at: new Date().toISOString(), changed_by: ctx.caller?.subject ?? 'system',
        })) as ControlModeRow | undefined;
        if (!saved) return kit.load(ctx, field.id);
        await ctx.services.audit.record({ actor: ctx.caller?.subject ?? 'system', action: 'control_mode.degrade', resource: 'melioration-control-mode', result: 'success', tenant_id: field.tenant_id, correlation_id: ctx.requestId, details: { field_id: field.id, control_mode: saved.control_mode, reason } });
        await ctx.services.status?.publish({ tenant_id: field.tenant_id, site_id: field.site_id, source: 'melioration-control-mode', event: 'control_mode_degraded', status: 'warn', correlation_id: ctx.requestId, details: { field_id: field.id, control_mode: saved.control_mode, fallback_mode: saved.fallback_mode, auto_degraded: true, reason } });
        return saved;
      },
    }),
  },
});

export const controlModeRoutes = controlModeResource.routes;
