// One telemetry point as devices send it, over HTTP (commands/ingest) and MQTT alike.
import * as v from 'valibot';
import { ApiError } from '../../kernel/errors.js';
import { validate } from '../../kernel/validate.js';
import type { TelemetryPoint } from '../../realtime/bus.js';
import { DEVICE_STATUSES } from './schema.js';

const ident = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(128), v.regex(/^[^\s/+#]+$/, 'no spaces, /, + or #'));

export const pointSchema = v.strictObject({
  device_id: v.optional(ident),
  site_id: v.optional(ident),
  metric: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(128)),
  value: v.nullable(v.pipe(v.number(), v.finite())),
  unit: v.optional(v.pipe(v.string(), v.maxLength(32))),
  status: v.optional(v.picklist(DEVICE_STATUSES)),
  latency_ms: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0))),
  ts: v.optional(v.pipe(v.string(), v.isoTimestamp())),
});

export type PointInput = v.InferOutput<typeof pointSchema>;

export const MAX_POINTS_PER_REQUEST = 5000;

export const ingestBody = v.strictObject({
  points: v.pipe(v.array(pointSchema), v.minLength(1), v.maxLength(MAX_POINTS_PER_REQUEST)),
  site_id: v.optional(ident),
  tenant_id: v.optional(ident),
});

/** The stored point for an input, with the isolation keys decided by the caller or the topic. */
export function toPoint(p: PointInput, keys: { tenant_id: string; site_id: string | null; device_id?: string }, now: string): TelemetryPoint {
  const device = keys.device_id ?? p.device_id;
  if (!device) throw new ApiError('validation_error', 'a point needs a device_id', [{ field: 'device_id', reason: 'required' }]);
  return {
    tenant_id: keys.tenant_id,
    site_id: p.site_id ?? keys.site_id,
    device_id: device,
    metric: p.metric,
    value: p.value,
    unit: p.unit ?? null,
    status: p.status ?? 'online',
    latency_ms: p.latency_ms ?? null,
    ts: p.ts ? new Date(p.ts).toISOString() : now,
    received_at: now,
  };
}

const pointList = v.pipe(v.array(pointSchema), v.minLength(1), v.maxLength(MAX_POINTS_PER_REQUEST));

/** Parses an MQTT payload: one point, an array of points, or {points: [...]}. */
export function parseMqttPayload(payload: Buffer): PointInput[] {
  let json: unknown;
  try {
    json = JSON.parse(payload.toString('utf8'));
  } catch {
    throw new ApiError('validation_error', 'telemetry payload is not JSON', [{ field: 'payload', reason: 'malformed_json' }]);
  }
  if (Array.isArray(json)) return validate(pointList, json, 'points');
  if (json && typeof json === 'object' && 'points' in json) return validate(pointList, (json as { points: unknown }).points, 'points');
  // One point per message is the common case: checked by the same schema, without wrapping it in a list.
  return [validate(pointSchema, json, 'points.0')];
}

/** RFC 3339 text of the current time, made once per millisecond (one MQTT message per point asks for it often). */
export const nowIso = (() => {
  let ms = 0;
  let text = '';
  return (): string => {
    const t = Date.now();
    if (t !== ms) { ms = t; text = new Date(t).toISOString(); }
    return text;
  };
})();
