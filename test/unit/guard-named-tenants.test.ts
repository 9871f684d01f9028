// The access guard's tenant boundary reads every tenant id a request names, in its query and
// anywhere in its JSON body down to depth 8 (objects and arrays both count a level).
import { describe, expect, it } from 'vitest';
import { namedTenants } from '../../src/auth/guard.js';

const nest = (levels: number, leaf: unknown): unknown => (levels === 0 ? leaf : { x: nest(levels - 1, leaf) });

describe('namedTenants', () => {
  it('finds tenant ids in the query and at any place of the body, in the order met', () => {
    const query = new URLSearchParams('tenant_id=q1&target_tenant_id=q2&tenant_id=q3');
    const body = {
      tenant_id: 'b1',
      events: [{ payload: { alarm: { tenant_id: 'b2', site_id: 's' } } }, null, 5, 'text', [{ target_tenant_id: 'b3' }]],
      other: { tenant_id: null, target_tenant_id: undefined },
    };
    expect(namedTenants(query, body)).toEqual(['q1', 'q3', 'q2', 'b1', 'b2', 'b3']);
  });

  it('reads a tenant id that is not text as its JSON, and does not walk into it', () => {
    expect(namedTenants(new URLSearchParams(), { tenant_id: { tenant_id: 'inner' }, list: [{ tenant_id: 7 }] })).toEqual(['{"tenant_id":"inner"}', '7']);
  });

  it('walks eight levels deep and no further', () => {
    expect(namedTenants(new URLSearchParams(), nest(8, { tenant_id: 'deep' }))).toEqual(['deep']);
    expect(namedTenants(new URLSearchParams(), nest(9, { tenant_id: 'too-deep' }))).toEqual([]);
    const arrays = [[[[[[[[{ tenant_id: 'in-arrays' }]]]]]]]];
    expect(namedTenants(new URLSearchParams(), arrays)).toEqual(['in-arrays']);
    expect(namedTenants(new URLSearchParams(), [arrays])).toEqual([]);
  });

  it('takes a body that is no object as naming nothing, and a sparse array as its elements', () => {
    expect(namedTenants(new URLSearchParams(), undefined)).toEqual([]);
    expect(namedTenants(new URLSearchParams(), 'tenant_id')).toEqual([]);
    const sparse: unknown[] = [];
    sparse[3] = { tenant_id: 'late' };
    expect(namedTenants(new URLSearchParams(), { sparse })).toEqual(['late']);
  });
});
