// The en catalogue: one file per area of the product (messages/en/<area>.json), merged here.
// Adding an area: its file in each language and a line here (test/unit/i18n-catalogues.test.ts finds a file left out);
// the server reads every file of a language itself (src/i18n/built-in.ts).
import common from './en/common.json' with { type: 'json' };
import login from './en/login.json' with { type: 'json' };
import locale from './en/locale.json' with { type: 'json' };
import box from './en/box.json' with { type: 'json' };
import errors from './en/errors.json' with { type: 'json' };
import shell from './en/shell.json' with { type: 'json' };
import alarms from './en/alarms.json' with { type: 'json' };
import overview from './en/overview.json' with { type: 'json' };
import setpoints from './en/setpoints.json' with { type: 'json' };
import charts from './en/charts.json' with { type: 'json' };
import forms from './en/forms.json' with { type: 'json' };
import modules from './en/modules.json' with { type: 'json' };
import adapters from './en/adapters.json' with { type: 'json' };
import setup from './en/setup.json' with { type: 'json' };
import siren from './en/siren.json' with { type: 'json' };
import notifications from './en/notifications.json' with { type: 'json' };
import settings from './en/settings.json' with { type: 'json' };
import fleet from './en/fleet.json' with { type: 'json' };
import updates from './en/updates.json' with { type: 'json' };

export const EN = {
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

/** Every key the product knows: English has them all (the parity test holds the others to it). */
export type MessageKey = keyof typeof EN;
