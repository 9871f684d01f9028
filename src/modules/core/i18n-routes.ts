// The catalogues of the shell's languages, served like its other assets: public (the login screen
// needs them before anyone logs in; they hold words, no data), revalidated by ETag so that a
// site's own catalogue file (<data_dir>/i18n/<lang>.json) reaches the tablets without a rebuild.
import { createHash } from 'node:crypto';
import { defineRoute, type AnyRoute } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import { requestHeader } from '../../kernel/headers.js';
import type { AppContext } from '../../kernel/context.js';

const etags = new WeakMap<object, { etag: string; body: string }>();

function jsonAsset(c: AppContext, value: object, key: object): Response {
  let hit = etags.get(key);
  if (!hit) {
    const body = JSON.stringify(value);
    hit = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
    etags.set(key, hit);
  }
  const headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache', etag: hit.etag };
  // Headers as a plain object, written as they are (c.body() with several would build a web Headers object, loading undici).
  if (requestHeader(c, 'if-none-match') === hit.etag) return new Response(null, { status: 304, headers });
  return new Response(hit.body, { status: 200, headers });
}

export const i18nRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/app/i18n/{file}', module: 'core', summary: 'A language catalogue of the web shell, or languages.json: the languages offered', tags: ['web'], access: { public: true },
    description: '`languages.json`: {default, languages: [{code, name, shipped, coverage}]}, the site\'s default language (setting site_language) and every language a chooser offers, shipped and site-added. `<code>.json`: that language\'s catalogue, flat message keys to ICU MessageFormat strings, the shipped words with the site\'s own file (data_dir/i18n/<code>.json) over them. Revalidated by ETag (no-cache).',
    response: {
      kind: 'raw', contentType: 'application/json', description: 'languages.json: the offered languages; <code>.json: a catalogue (message key to ICU MessageFormat text)',
      schema: {
        oneOf: [
          {
            type: 'object', required: ['default', 'languages'],
            properties: {
              default: { type: 'string', description: 'The site\'s default language (setting site_language).' },
              languages: { type: 'array', items: { type: 'object', required: ['code', 'name', 'shipped', 'coverage'], properties: { code: { type: 'string' }, name: { type: 'string' }, shipped: { type: 'boolean' }, coverage: { type: 'number', minimum: 0, maximum: 1 } } } },
            },
          },
          { type: 'object', additionalProperties: { type: 'string' }, description: 'A catalogue: flat message keys to ICU MessageFormat strings.' },
        ],
      },
    },
    errors: ['not_found'],
    handler: async ({ c, params, services }) => {
      const file = params.file as string;
      if (file === 'languages.json') {
        const languages = services.catalogues.languages();
        const body = { default: services.config.site_language, languages };
        // A new object per request: the list is small and a site file may appear at any time.
        return jsonAsset(c, body, body);
      }
      const lang = /^([a-z]{2,3}(?:-[A-Z]{2})?)\.json$/.exec(file)?.[1];
      const catalogue = lang ? services.catalogues.catalogue(lang) : undefined;
      if (!catalogue) throw new ApiError('not_found', `no catalogue ${file}`);
      return jsonAsset(c, catalogue, catalogue);
    },
  }),
];
