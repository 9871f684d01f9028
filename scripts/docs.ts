// Rewrites the generated tables in README.md (configuration, error codes, decisions).
import { readFileSync, writeFileSync } from 'node:fs';
import { renderReadme } from '../src/docs/readme-tables.js';

writeFileSync('README.md', renderReadme(readFileSync('README.md', 'utf8')));
