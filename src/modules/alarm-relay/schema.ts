// The box's two alarm outputs as the box's admin configured them: the siren relay (energised
// while an unacknowledged, active alarm of its priorities exists) and the watchdog (toggled while
// the box is healthy). One row per output of the box's own tenant (site.json); the live state
// (last drive, failure) is the runtime's and is not stored.
import { defineRecord } from '../../kernel/record.js';

export const OUTPUTS = ['siren', 'watchdog'] as const;
export const TRANSPORTS = ['modbus-tcp', 'modbus-rtu', 'bacnet'] as const;
export const RELAY_PRIORITIES = ['P1', 'P2'] as const;

export type OutputName = (typeof OUTPUTS)[number];

export const outputRecord = defineRecord('alarm_relay_outputs', {
  id: { type: 'string', label: 'Output', enum: OUTPUTS, readOnly: true, description: 'siren: the alarm relay; watchdog: the output the box toggles while healthy.' },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
  site_id: { type: 'string', label: 'Site', nullable: true, readOnly: true },
  enabled: { type: 'boolean', label: 'Enabled' },
  transport: { type: 'string', label: 'Transport', enum: TRANSPORTS },
  host: { type: 'string', label: 'I/O module address', nullable: true, description: 'modbus-tcp: the I/O module\'s IPv4 address.' },
  port: { type: 'integer', label: 'TCP port', nullable: true },
  serial_port: { type: 'string', label: 'Serial port', nullable: true, description: 'modbus-rtu: the RS-485 adapter (/dev/serial/by-id/... survives re-plugging).' },
  baud_rate: { type: 'integer', label: 'Baud rate', nullable: true },
  parity: { type: 'string', label: 'Parity', enum: ['none', 'even', 'odd'], nullable: true },
  unit_id: { type: 'integer', label: 'Unit id', nullable: true },
  coil: { type: 'integer', label: 'Coil address', nullable: true, description: 'Zero-based coil address (the wire address, as the field service writes it).' },
  device_instance: { type: 'integer', label: 'BACnet device', nullable: true },
  object_instance: { type: 'integer', label: 'Binary output instance', nullable: true },
  priorities: { type: 'array', items: 'string', label: 'Priorities', description: 'siren: the alarm priorities that energise it.' },
  period_s: { type: 'integer', label: 'Period', ui: { unit: 's' }, description: 'siren: how often the state is re-asserted; watchdog: the toggle period.' },
  updated_by: { type: 'string', label: 'Updated by', readOnly: true },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true },
}, { primaryKey: ['tenant_id', 'id'] });

export const alarmRelayOutputs = outputRecord.table;
export type OutputRow = typeof outputRecord.row;
