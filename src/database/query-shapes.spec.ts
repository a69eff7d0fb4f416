import { describe, expect, it, jest } from '@jest/globals';
import { DataSource, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';
import { toDatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { buildDataSourceOptions } from './data-source-options';
import { QueryShapes, type QueryValues } from './query-shapes';

// Never connected: only the MySQL driver's parameter rewriting is used, over a table named as such (no entity).
const dataSource = new DataSource(buildDataSourceOptions(toDatabaseConfig(validateEnvironment({ DB_TYPE: 'mysql' }))));

/** A statement as the listing's builders send one: known by its shape, else built from the shape alone. */
const statementOf = (
  shapes: QueryShapes,
  shape: { statement: string; byUser: boolean },
  values: QueryValues,
  build: (shape: { byUser: boolean }) => SelectQueryBuilder<ObjectLiteral>,
) => shapes.known(shape, values) ?? shapes.laidOut(shape, build(shape), values);

describe('QueryShapes', () => {
  const build = jest.fn(({ byUser }: { byUser: boolean }) => {
    const query = dataSource.createQueryBuilder().from('orders', 'o').where('o.status = :a', { a: undefined });
    return byUser ? query.andWhere('o.user_id = :b OR o.concert_id = :b', { b: undefined }) : query;
  });

  it('lays a shape out once and each request’s values into its placeholders, in the SQL’s order', () => {
    build.mockClear();
    const shapes = new QueryShapes(dataSource);
    const shape = { statement: 'test', byUser: true };
    const first = statementOf(shapes, shape, { a: 'REFUNDED', b: 7 }, build);
    const second = statementOf(shapes, { statement: 'test', byUser: true }, { b: 9, a: 'CANCELLED' }, build);
    expect(build).toHaveBeenCalledTimes(1);
    expect(second[0]).toBe(first[0]);
    expect(first[0]).toContain('WHERE o.status = ? AND o.user_id = ? OR o.concert_id = ?');
    expect(first[1]).toEqual(['REFUNDED', 7, 7]);
    expect(second[1]).toEqual(['CANCELLED', 9, 9]);
  });

  it('keys by the whole shape: a shape differing in anything its builder reads has SQL of its own', () => {
    build.mockClear();
    const shapes = new QueryShapes(dataSource);
    const [withUser] = statementOf(shapes, { statement: 'test', byUser: true }, { a: 'PAID', b: 1 }, build);
    const [alone] = statementOf(shapes, { statement: 'test', byUser: false }, { a: 'PAID' }, build);
    expect(build).toHaveBeenCalledTimes(2);
    expect(alone).not.toBe(withUser);
    expect(alone).not.toContain('user_id');
  });

  it('lays out the elements of a spread list, whose length belongs to the shape', () => {
    const shapes = new QueryShapes(dataSource);
    const shape = { statement: 'ids', ids: 3 };
    const ids = () =>
      dataSource
        .createQueryBuilder()
        .from('orders', 'o')
        .where('o.id IN (:...ids)', { ids: [0, 0, 0] });
    shapes.laidOut(shape, ids(), { ids: [1, 2, 3] });
    const [sql, parameters] = shapes.known({ statement: 'ids', ids: 3 }, { ids: [7, 8, 9] })!;
    expect(sql).toContain('IN (?, ?, ?)');
    expect(parameters).toEqual([7, 8, 9]);
  });

  it('refuses a shape whose builder names other parameters than the values do', () => {
    const shapes = new QueryShapes(dataSource);
    const query = dataSource.createQueryBuilder().from('orders', 'o').where('o.user_id = :user', { user: 1 });
    expect(() => shapes.laidOut({ statement: 'mismatch' }, query, { userId: 1 })).toThrow(/differ/);
  });
});
