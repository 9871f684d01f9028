// site-setup/list: every installed module's set-up steps (kernel/setup.ts), in commissioning
// order, each checked now for the caller's tenant and site.
import type { AnyRoute } from '../../kernel/route.js';
import { defineRoute } from '../../kernel/route.js';
import { SETUP_STATES, type SetupStep } from '../../kernel/setup.js';
import type { Caller, Services } from '../../kernel/context.js';
import { boxSteps } from './steps.js';

const ITEM = {
  type: 'object',
  required: ['id', 'order', 'title', 'state', 'words', 'module', 'screen'],
  properties: {
    id: { type: 'string' },
    order: { type: 'integer', description: 'Commissioning order: trust, people, units, controllers, siren, notifications, master.' },
    title: { type: 'string' },
    state: { enum: [...SETUP_STATES], description: 'done; missing (not set up, and what that means for the farm); attention (set up, but wrong now); optional (not set up, and the box runs well without it).' },
    words: { type: 'string', description: 'One sentence for the installer: what is there, or what is missing and what it means.' },
    module: { type: ['string', 'null'], description: 'The module whose screen sets it up.' },
    screen: { type: ['string', 'null'], description: 'Else one of the shell\'s own screens (settings, handoff).' },
  },
};

/** A step whose check fails says so as its own line: one broken module never hides the rest. */
async function checked(step: SetupStep, services: Services, caller: Caller) {
  const where = !step.screen ? { module: null, screen: null } : 'module' in step.screen ? { module: step.screen.module, screen: null } : { module: null, screen: step.screen.screen };
  try {
    const r = await step.check(services, caller);
    return { id: step.id, order: step.order, title: step.title, ...r, ...where };
  } catch (err) {
    services.log.warn('set-up check failed', { step: step.id, err: err instanceof Error ? err.message : String(err) });
    return { id: step.id, order: step.order, title: step.title, state: 'attention' as const, words: 'This could not be checked just now; open its screen to see it.', ...where };
  }
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
