// The README tells the truth about what the code enforces.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderReadme } from '../../src/docs/readme-tables.js';

describe('README', () => {
  const text = readFileSync('README.md', 'utf8');

  it('carries the current configuration, error-code and decision tables (npm run docs)', () => {
    expect(renderReadme(text)).toBe(text);
  });

  it('names the test command CI runs', () => {
    expect(text).toContain('npm test');
    expect(readFileSync('.ci/run', 'utf8')).toContain('npm test');
  });
});
