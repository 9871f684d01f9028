// The es catalogue: one file per area of the product (messages/es/<area>.json), merged here.
// Adding an area: its file in each language and a line in en.ts, ru.ts and es.ts (test/unit/i18n-catalogues.test.ts finds a file left out).
import common from './es/common.json' with { type: 'json' };
import login from './es/login.json' with { type: 'json' };
import locale from './es/locale.json' with { type: 'json' };
import box from './es/box.json' with { type: 'json' };
import errors from './es/errors.json' with { type: 'json' };
import shell from './es/shell.json' with { type: 'json' };
import alarms from './es/alarms.json' with { type: 'json' };
import overview from './es/overview.json' with { type: 'json' };
import setpoints from './es/setpoints.json' with { type: 'json' };
import charts from './es/charts.json' with { type: 'json' };
import forms from './es/forms.json' with { type: 'json' };
import modules from './es/modules.json' with { type: 'json' };
import adapters from './es/adapters.json' with { type: 'json' };
import setup from './es/setup.json' with { type: 'json' };
import siren from './es/siren.json' with { type: 'json' };
import notifications from './es/notifications.json' with { type: 'json' };
import settings from './es/settings.json' with { type: 'json' };
import fleet from './es/fleet.json' with { type: 'json' };
import updates from './es/updates.json' with { type: 'json' };

import type { Catalogue } from '../translate.js';

export const ES: Catalogue = {
  ...common,
  ...login,
  ...locale,
  ...box,
  ...errors,
  ...shell,
  ...alarms,
  ...overview,
  ...setpoints,
  ...charts,
  ...forms,
  ...modules,
  ...adapters,
  ...setup,
  ...siren,
  ...notifications,
  ...settings,
  ...fleet,
  ...updates,
};
