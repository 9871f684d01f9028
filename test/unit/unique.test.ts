// A unique-key violation from either engine becomes 409 already_exists naming the key columns;
// any other database error is left alone (a 500).
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { conflictError } from '../../src/kernel/unique.js';

function thrown(fn: () => unknown): unknown {
  try { fn(); } catch (err) { return err; }
  throw new Error('expected a throw');
}

describe('unique-key violations', () => {
  it('maps SQLite primary-key and unique violations, also wrapped as a cause', () => {
    const db = new Database(':memory:');
    db.exec('create table t (tenant_id text, id text, code text unique, primary key (tenant_id, id))');
    db.prepare("insert into t values ('t1', 'a', 'x')").run();
    const pk = conflictError(thrown(() => db.prepare("insert into t values ('t1', 'a', 'y')").run()));
    expect(pk).toMatchObject({ code: 'already_exists', status: 409, details: [{ field: 'tenant_id', reason: 'already_exists' }, { field: 'id', reason: 'already_exists' }] });
    const unique = thrown(() => db.prepare("insert into t values ('t1', 'b', 'x')").run());
    expect(conflictError(new Error('query failed', { cause: unique }))?.details).toEqual([{ field: 'code', reason: 'already_exists' }]);
    expect(conflictError(thrown(() => db.prepare('insert into nowhere values (1)').run()))).toBeUndefined();
    db.close();
  });

  it('maps PostgreSQL SQLSTATE 23505 and nothing else', () => {
    const pg = Object.assign(new Error('duplicate key value violates unique constraint "p_pkey"'), { code: '23505', detail: 'Key (tenant_id, id)=(t1, a) already exists.' });
    expect(conflictError(pg)?.details.map((d) => d.field)).toEqual(['tenant_id', 'id']);
    expect(conflictError(Object.assign(new Error('null value'), { code: '23502' }))).toBeUndefined();
    expect(conflictError(new Error('plain'))).toBeUndefined();
  });
});
