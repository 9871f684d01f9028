// Rewrites the generated tables in their docs/ pages (configuration, error codes, decisions).
import { readFileSync, writeFileSync } from 'node:fs';
import { GENERATED_PAGES, renderPage } from '../src/docs/readme-tables.js';

for (const page of GENERATED_PAGES) writeFileSync(page, renderPage(page, readFileSync(page, 'utf8')));
