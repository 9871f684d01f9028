// site-setup/list: every installed module's set-up steps (kernel/setup.ts), in commissioning
// order, each checked now for the caller's tenant and site. Each line's title and words are a
// message key with parameters (the shell renders them in its reader's language) beside their
// English, rendered here from the same keys.
import type { AnyRoute } from '../../kernel/route.js';
import { defineRoute } from '../../kernel/route.js';
import { englishParams, SETUP_STATES, type SetupCheck, type SetupStep } from '../../kernel/setup.js';
import type { Caller, Services } from '../../kernel/context.js';
import { boxSteps } from './steps.js';

const ITEM = {
  type: 'object',
  required: ['id', 'order', 'title', 'title_key', 'title_params', 'state', 'words', 'text_key', 'text_params', 'module', 'screen'],
  properties: {
    id: { type: 'string' },
    order: { type: 'integer', description: 'Commissioning order: trust, people, units, controllers, siren, notifications, master.' },
    title: { type: 'string', description: 'In English, rendered from title_key.' },
    title_key: { type: 'string', description: 'The title\'s message key (area setup, GET /app/i18n/{lang}.json).' },
    title_params: { type: 'object', additionalProperties: { type: ['string', 'number'] }, description: 'The title\'s parameters.' },
    state: { enum: [...SETUP_STATES], description: 'done; missing (not set up, and what that means for the farm); attention (set up, but wrong now); optional (not set up, and the box runs well without it).' },
    words: { type: 'string', description: 'One sentence for the installer, in English (rendered from text_key): what is there, or what is missing and what it means.' },
    text_key: { type: 'string', description: 'The words\' message key (area setup).' },
    text_params: { type: 'object', additionalProperties: { type: ['string', 'number'] }, description: 'The words\' parameters: names, ids and counts as they are; a parameter named *_at is an instant (RFC 3339), which each reader writes as their clock reads (the English words: the site\'s clocks, site_timezone).' },
    module: { type: ['string', 'null'], description: 'The module whose screen sets it up.' },
    screen: { type: ['string', 'null'], description: 'Else one of the shell\'s own screens (settings, handoff).' },
  },
};

const FAILED: SetupCheck = { state: 'attention', key: 'setup.check_failed' };

/** A step whose check fails says so as its own line: one broken module never hides the rest. */
async function checked(step: SetupStep, services: Services, caller: Caller) {
  const where = !step.screen ? { module: null, screen: null } : 'module' in step.screen ? { module: step.screen.module, screen: null } : { module: null, screen: step.screen.screen };
  let r: SetupCheck;
  try {
    r = await step.check(services, caller);
  } catch (err) {
    services.log.warn('set-up check failed', { step: step.id, err: err instanceof Error ? err.message : String(err) });
    r = FAILED;
  }
  // The API's English fields, from the same keys as every other language (a site's own en.json included).
  const en = services.catalogues.translator('en', services.config.site_locale);
  const title_params = step.title_params ?? {};
  const text_params = r.params ?? {};
  return {
    id: step.id, order: step.order,
    title: en.t(step.title, englishParams(services.config, title_params)), title_key: step.title, title_params,
    state: r.state,
    words: en.t(r.key, englishParams(services.config, text_params)), text_key: r.key, text_params,
    ...where,
  };
}

export const siteSetupRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/api/v1/site-setup/list', module: 'site-setup', tags: ['site-setup'],
    summary: 'What is set up on this box and what is missing, in the order an installer commissions it.',
    description: 'One line per step of every installed module that declares one (HTTPS and the tablets\' trust, people\'s cards, houses and flocks, controllers and their readings, siren relay and watchdog, notifications, fleet master), checked at the time of the request for the caller\'s tenant and site. Not paged: a box has about ten steps.',
    access: { resource: 'site-setup', action: 'read', scope: 'tenant' },
    response: { kind: 'list', item: ITEM },
    handler: async ({ services, caller }) => {
      const steps = [...boxSteps, ...services.modules.manifests().filter((m) => services.modules.isInstalled(m.id)).flatMap((m) => m.setup ?? [])];
      steps.sort((a, b) => a.order - b.order || a.id.localeCompare(b.id));
      const items = await Promise.all(steps.map((s) => checked(s, services, caller!)));
      return { items, offset: 0, limit: items.length, total: items.length };
    },
  }),
];
