// The ru catalogue: one file per area of the product (messages/ru/<area>.json), merged here.
// Adding an area: its file in each language and a line in en.ts, ru.ts and es.ts (test/unit/i18n-catalogues.test.ts finds a file left out).
import common from './ru/common.json' with { type: 'json' };
import login from './ru/login.json' with { type: 'json' };
import locale from './ru/locale.json' with { type: 'json' };
import box from './ru/box.json' with { type: 'json' };
import errors from './ru/errors.json' with { type: 'json' };
import shell from './ru/shell.json' with { type: 'json' };
import alarms from './ru/alarms.json' with { type: 'json' };
import overview from './ru/overview.json' with { type: 'json' };
import setpoints from './ru/setpoints.json' with { type: 'json' };
import charts from './ru/charts.json' with { type: 'json' };
import forms from './ru/forms.json' with { type: 'json' };
import modules from './ru/modules.json' with { type: 'json' };
import adapters from './ru/adapters.json' with { type: 'json' };
import setup from './ru/setup.json' with { type: 'json' };
import siren from './ru/siren.json' with { type: 'json' };
import notifications from './ru/notifications.json' with { type: 'json' };
import settings from './ru/settings.json' with { type: 'json' };
import fleet from './ru/fleet.json' with { type: 'json' };
import updates from './ru/updates.json' with { type: 'json' };

import type { Catalogue } from '../translate.js';

export const RU: Catalogue = {
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
