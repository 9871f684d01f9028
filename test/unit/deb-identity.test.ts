// The .deb's Maintainer and Homepage come from package.json (author, homepage), never from a
// placeholder: no homepage, no Homepage field; DEBFULLNAME/DEBEMAIL name another packager.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error scripts/deb.mjs is plain JavaScript without declarations
import { packageIdentity } from '../../scripts/deb.mjs';

type Identity = (pkg?: Record<string, unknown>, env?: Record<string, string>) => { maintainer: string; homepage?: string };
const identity = packageIdentity as Identity;
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, unknown>;

describe('Debian package identity', () => {
  it('takes the Maintainer from package.json author, and leaves Homepage out without a homepage', () => {
    expect(typeof pkg.author).toBe('string');
    expect(identity(pkg, {})).toEqual({ maintainer: pkg.author, ...(pkg.homepage ? { homepage: pkg.homepage } : {}) });
    expect(identity({ author: { name: 'Farm IT', email: 'packaging@farm.test' } }, {})).toEqual({ maintainer: 'Farm IT <packaging@farm.test>' });
  });

  it('never writes a placeholder: a loopback or malformed homepage is left out, a missing author refused', () => {
    expect(identity({ author: 'A <a@b.c>', homepage: 'http://127.0.0.1:8080/docs' }, {})).not.toHaveProperty('homepage');
    expect(identity({ author: 'A <a@b.c>', homepage: 'https://cabinet.example.org/' }, {}).homepage).toBe('https://cabinet.example.org/');
    expect(() => identity({}, {})).toThrow(/author/);
    expect(() => identity({ author: 'nobody' }, {})).toThrow(/author/);
    const script = readFileSync('scripts/deb.mjs', 'utf8');
    expect(script).not.toMatch(/Homepage: http/);
    expect(script).toContain('`Maintainer: ${MAINTAINER}`');
    expect(script).not.toMatch(/['"]Maintainer: /);
  });

  it("takes the packager's DEBFULLNAME and DEBEMAIL when set (Debian's convention)", () => {
    expect(identity(pkg, { DEBFULLNAME: 'Site IT', DEBEMAIL: 'it@farm.test' }).maintainer).toBe('Site IT <it@farm.test>');
  });
});
