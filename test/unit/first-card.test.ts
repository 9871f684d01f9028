// The first admin card's scope: the box's own tenant and site on an edge box (fixed once in
// <data_dir>/site.json, or chosen by writing that file first), a master card in the cloud.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { boxIdentity, setupCommand, setupMessage, siteIdFromHost, siteOf } from '../../src/runtime/first-run.js';

const fresh = () => mkdtempSync(join(tmpdir(), 'cabinet-first-card-'));

describe('first card', () => {
  it('on an edge box is the administrator of the box tenant and site, stored at first start and kept', () => {
    const dir = fresh();
    const config = loadConfig({ data_dir: dir }, {});
    const command = setupCommand(config, {});
    const site = JSON.parse(readFileSync(join(dir, 'site.json'), 'utf8')) as { tenant_id: string; site_id: string };
    expect(site.tenant_id).toMatch(/^farm-[0-9a-f]{8}$/);
    // No ids in the command: the CLI binds a tenant card without --tenant-id to site.json's.
    expect(command).toContain('--role admin --scope-type tenant --card-uid <card UID>');
    expect(command).not.toContain('--tenant-id');
    expect(setupCommand(config, {})).toBe(command);
    expect(boxIdentity(dir)).toEqual(site);
    expect(setupMessage(config)).toContain('(RF-<card UID>)');
  });

  it('takes the ids an installer wrote before the first start, and refuses a malformed file', () => {
    const dir = fresh();
    writeFileSync(join(dir, 'site.json'), JSON.stringify({ tenant_id: 'acme', site_id: 'north-farm' }));
    expect(setupCommand(loadConfig({ data_dir: dir }, {}), {})).toContain('--scope-type tenant --card-uid');
    expect(boxIdentity(dir)).toEqual({ tenant_id: 'acme', site_id: 'north-farm' });
    const bad = fresh();
    writeFileSync(join(bad, 'site.json'), JSON.stringify({ tenant_id: 'a b' }));
    expect(() => boxIdentity(bad)).toThrow(/site\.json must hold/);
    // The runtime snapshot leaves a site it cannot read out instead of failing.
    expect(siteOf(loadConfig({ data_dir: bad }, {}))).toBeUndefined();
    expect(siteOf(loadConfig({ data_dir: dir }, {}))).toEqual({ tenant_id: 'acme', site_id: 'north-farm' });
    expect(siteOf(loadConfig({ data_dir: dir, mode: 'cloud-multi' }, {}))).toBeUndefined();
  });

  it('in the master cloud stays a master card, and writes no site file', () => {
    const dir = fresh();
    const command = setupCommand(loadConfig({ data_dir: dir, mode: 'cloud-multi' }, {}), {});
    expect(command).toContain('--role admin --scope-type master --card-uid <card UID>');
    expect(command).not.toContain('--tenant-id');
    expect(() => readFileSync(join(dir, 'site.json'))).toThrow();
  });

  it('derives the site id from the host name', () => {
    expect(siteIdFromHost('Barn-Controller_01.local')).toBe('barn-controller-01.local');
    expect(siteIdFromHost('---')).toBe('site-1');
  });
});
