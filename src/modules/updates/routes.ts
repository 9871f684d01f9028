// GET /api/v1/updates/status: where the box's self-update stands, for its admins and security. Every
// text a reader sees comes as a catalogue key with its parameters beside the English (step_key,
// reason_key + reason_params, waiting_for as codes with updates.waiting.<code>), so a shell words it
// in its reader's language; times as ISO instants.
import { existsSync } from 'node:fs';
import { defineRoute, type AnyRoute } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import { need, type Services } from '../../kernel/context.js';
import { packageOnDisk } from './download.js';
import { readGates, WAITS } from './gates.js';
import { requestPath, UPDATE_STEPS } from './state.js';

const nstr = { type: ['string', 'null'] };
const ntime = { type: ['string', 'null'], format: 'date-time' };

const statusItem = {
  type: 'object',
  required: ['step', 'step_key', 'running_version', 'target_version', 'previous_version', 'arch', 'progress', 'reason', 'reason_code', 'reason_key', 'reason_params', 'at', 'rollout_id',
    'enabled', 'release_key', 'window', 'waiting_for', 'p1_unacknowledged', 'writes_in_flight', 'previous_package', 'handed_over', 'deadline_at', 'proof', 'offer', 'history'],
  properties: {
    step: { enum: [...UPDATE_STEPS] },
    step_key: { type: 'string', description: 'Catalogue key of the step\'s words (updates.step.<step>).' },
    running_version: { type: 'string' },
    target_version: nstr,
    previous_version: { ...nstr, description: 'The version the box ran before this update (the one the installer goes back to).' },
    arch: { type: 'string', description: 'The box\'s Debian architecture (amd64, arm64).' },
    progress: { type: 'number', minimum: 0, maximum: 1, description: 'The download\'s progress (0..1); 1 once verified.' },
    reason: { ...nstr, description: 'Why the box is where it is, in English; null when nothing to say.' },
    reason_code: nstr,
    reason_key: { ...nstr, description: 'Catalogue key of the reason (updates.reason.<reason_code>).' },
    reason_params: { type: ['object', 'null'], description: 'The reason\'s parameters (data, never worded English).' },
    at: { type: 'string', format: 'date-time', description: 'When the step was entered.' },
    rollout_id: nstr,
    enabled: { type: 'boolean', description: 'The box updates itself: updates_enabled, a release key, and a master to sync with.' },
    release_key: { type: 'boolean', description: 'A release public key is configured (setting release_public_key).' },
    window: {
      type: 'object', required: ['setting', 'timezone', 'open', 'opens_at'],
      properties: { setting: { type: 'string', description: 'update_window as set; empty = any time.' }, timezone: { type: 'string' }, open: { type: 'boolean' }, opens_at: { ...ntime, description: 'When it next opens; null while open or with no window.' } },
    },
    waiting_for: { type: 'array', items: { enum: [...WAITS] }, description: 'What the install waits for now (each worded by updates.waiting.<code>); empty when nothing holds it.' },
    p1_unacknowledged: { type: 'integer' },
    writes_in_flight: { type: 'integer', description: 'Setpoint (field) writes running now.' },
    previous_package: { type: 'object', required: ['version', 'present'], properties: { version: { type: 'string' }, present: { type: 'boolean' } }, description: 'The package of the running version, kept to go back to: no update starts without it.' },
    handed_over: { type: 'boolean', description: 'request.json waits for the installer.' },
    deadline_at: { ...ntime, description: 'While proving: when the new version must have proven itself.' },
    proof: { type: ['object', 'null'], description: 'While proving: ready, answering (controllers read now), answering_before, synced.' },
    offer: { type: ['object', 'null'], description: 'What the master offered in its last answer: version, rollout_id, size; null when nothing (or no answer yet).' },
    history: { type: 'array', items: { type: 'object' }, description: 'The last step changes, newest first (step, at, by: service|installer, versions, reason).' },
  },
};

async function status(services: Services) {
  if (services.config.mode !== 'edge-single') {
    throw new ApiError('lifecycle_conflict', 'a box updates itself (mode edge-single); this installation runs cloud-multi and is updated by its operators', [{ field: 'mode', reason: 'not_edge_single' }]);
  }
  const updater = need(services, 'updater');
  const st = updater.status();
  const s = st.state;
  const cfg = updater.config;
  const previousPresent = packageOnDisk(cfg.data_dir, updater.version, updater.arch);
  const gates = await readGates({ db: services.db, field: services.field, config: cfg }, services.clock.now(), previousPresent);
  const key = Boolean(cfg.release_public_key);
  return {
    step: s.step, step_key: `updates.step.${s.step}`, running_version: updater.version, target_version: s.target_version, previous_version: s.previous_version,
    arch: updater.arch, progress: s.progress, reason: s.reason, reason_code: s.reason_code, reason_key: s.reason_code ? `updates.reason.${s.reason_code}` : null,
    reason_params: s.reason_params, at: s.at, rollout_id: s.rollout_id,
    enabled: cfg.updates_enabled && key && Boolean(cfg.sync_master_url), release_key: key,
    window: { setting: cfg.update_window, timezone: cfg.site_timezone, open: gates.in_window, opens_at: gates.window_opens_at },
    waiting_for: gates.waiting_for, p1_unacknowledged: gates.p1_unacknowledged, writes_in_flight: gates.writes_in_flight,
    previous_package: { version: updater.version, present: previousPresent },
    handed_over: existsSync(requestPath(cfg.data_dir)),
    deadline_at: s.deadline_at, proof: st.proof,
    offer: st.offer ? { version: st.offer.version, rollout_id: st.offer.rollout_id, size: st.offer.size, at: st.offered_at } : null,
    history: [...s.history].reverse().slice(0, 20),
  };
}

export const updatesRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/api/v1/updates/status', module: 'updates', tags: ['updates'],
    summary: 'Where the box\'s self-update stands: step, versions, download progress, the reason in words and as a key, the maintenance window, what the install waits for (window, unacknowledged P1 alarms, a setpoint write, the package to go back to), the proof after an install, the last step changes.',
    access: { resource: 'updates', action: 'read' },
    response: { kind: 'single', item: statusItem },
    errors: ['lifecycle_conflict', 'service_unavailable'],
    handler: async ({ services }) => status(services),
  }),
];
