// Communication loss as an industry alarm: a controller that stopped answering the poller, an
// RS-485 bus that went away, a house whose MQTT readings stopped. One alarm per thing lost, in
// the one alarm service (so it is stored, audited, on MQTT and bridged to status like any other),
// metric `comm_loss`. The alarm service refuses a second open event of the same rule on the same
// unit, so a repeated "lost" (or one after a restart) finds the open alarm instead of adding one.
//
// rule_id says what was lost, so two controllers of one house, the house's MQTT feed and the bus
// are separate alarms that clear separately:
//   comm_loss:<controller_id>   a polled controller (unit_id = its house or room)
//   comm_loss:mqtt              a house's MQTT readings (unit_id = the house)
//   comm_loss:bus:<bus>         a serial bus (unit_id null: it is not one house's)
import type { Services } from '../kernel/context.js';
import { need } from '../kernel/context.js';
import type { IndustrySeverity, Priority } from './alarm-schema.js';
import type { BoxText } from './box-text.js';

export const COMM_LOSS = 'comm_loss';
const ACTOR = 'device-polling';

export const controllerRule = (controllerId: string) => `${COMM_LOSS}:${controllerId}`;
export const MQTT_RULE = `${COMM_LOSS}:mqtt`;
export const busRule = (bus: string) => `${COMM_LOSS}:bus:${bus}`;

export interface CommLoss {
  tenant_id: string;
  site_id: string | null;
  industry_code: 'poultry' | 'swine' | 'melioration';
  unit_id: string | null;
  rule_id: string;
  priority: Priority;
  source: string;
  /** Title and message as keys (box.comm_loss.*) with their parameters; their English is rendered from them. */
  text: BoxText;
  details: Record<string, unknown>;
}

const severityOf = (p: Priority): IndustrySeverity => (p === 'P1' ? 'high' : 'medium');

/**
 * Raises the loss unless its alarm is open already; answers whether an alarm was raised (a new
 * one, or a flapping link's grouped alarm raised again: alarm_flood_count).
 */
export async function raiseCommLoss(services: Readonly<Services>, loss: CommLoss, now = new Date()): Promise<boolean> {
  const { created, grouped } = await need(services, 'industryAlarms').raise({
    tenant_id: loss.tenant_id, site_id: loss.site_id, industry_code: loss.industry_code, unit_id: loss.unit_id,
    rule_id: loss.rule_id, metric: COMM_LOSS, severity: severityOf(loss.priority), priority: loss.priority,
    source: loss.source, text: loss.text, details: loss.details, actor: ACTOR, now,
  });
  return created || grouped === true;
}

/** Clears the loss's open alarm; answers whether one was open. */
export async function clearCommLoss(services: Readonly<Services>, loss: Pick<CommLoss, 'tenant_id' | 'industry_code' | 'unit_id' | 'rule_id'>): Promise<boolean> {
  const row = await need(services, 'industryAlarms').clear({ tenant_id: loss.tenant_id, industry_code: loss.industry_code, unit_id: loss.unit_id, rule_id: loss.rule_id, actor: ACTOR });
  return row !== undefined;
}
