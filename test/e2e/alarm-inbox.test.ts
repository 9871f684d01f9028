// The one alarm inbox in Debian's Chromium, in two parts that share this file's browser (a worker
// and a Chromium for both, not one each): in English on a master with every kind of alarm
// (alarm-inbox/english.ts), and in Russian and Spanish on a box whose own controller stopped
// answering (alarm-inbox/languages.ts). Each part has its own server: a master and a box are
// different deployments, and a server starts in a fraction of a second.
import { afterAll, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch } from './browser.js';
import { inboxInEnglish } from './alarm-inbox/english.js';
import { inboxInLanguages } from './alarm-inbox/languages.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const shared = { browser: () => browser };
inboxInEnglish(shared);
inboxInLanguages(shared);
