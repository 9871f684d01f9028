// `cabinet help`: every setting with its flag, environment variable and default, as a person
// deciding whether to change it needs it.
import { describe, expect, it } from 'vitest';
import { helpText } from '../../src/cli-fast.js';
import { flagOf, SETTINGS } from '../../src/config.js';

describe('help', () => {
  it('names every setting with its default', () => {
    const text = helpText();
    for (const s of SETTINGS) expect(text, s.key).toMatch(new RegExp(`^  ${flagOf(s.key)} .*\\[default: [^\\]]+\\]$`, 'm'));
    expect(text).toMatch(/--http-port .*\[default: 8080\]$/m);
    expect(text).toMatch(/--https-port .*\[default: auto\]$/m);
    expect(text).toMatch(/--session-secret .*\[default: empty\]$/m);
  });
});
