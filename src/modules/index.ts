// The static list of modules. No directory scanning: it must work inside a bundle.
import type { ModuleManifest } from '../kernel/module.js';
import core from './core/module.js';
import auth from './auth/module.js';
import tables from './tables/module.js';
import forms from './forms/module.js';
import field from './field/module.js';
import passkeys from './passkeys/module.js';
import tenantMaster from './tenant-master/module.js';
import tenantMasterSync from './tenant-master-sync/module.js';
import subscriptions from './subscriptions/module.js';
import slaProfiles from './sla-profiles/module.js';
import versionPolicies from './version-policies/module.js';
import analytics from './analytics/module.js';
import industry from './industry/module.js';
import poultry from './poultry/module.js';
import swine from './swine/module.js';
import melioration from './melioration/module.js';
import audit from './audit/module.js';
import status from './status/module.js';
import alarms from './alarms/module.js';
import tasks from './tasks/module.js';
import devices from './devices/module.js';
import shell from './shell/module.js';
import devicePolling from './device-polling/module.js';
import storage from './storage/module.js';

export const MODULES: readonly ModuleManifest[] = [core, auth, passkeys, tables, forms, field, tenantMaster, tenantMasterSync, subscriptions, slaProfiles, versionPolicies, analytics, industry, poultry, swine, melioration, audit, status, alarms, tasks, devices, shell, devicePolling, storage];
