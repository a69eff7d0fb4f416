import { describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { toDatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { buildDataSourceOptions } from './data-source-options';
import { QueryShapes } from './query-shapes';

// Never connected: only the MySQL driver's parameter rewriting is used, over a table named as such (no entity).
const dataSource = new DataSource(buildDataSourceOptions(toDatabaseConfig(validateEnvironment({ DB_TYPE: 'mysql' }))));

describe('QueryShapes', () => {
  it('builds a shape once and lays each request’s values into its placeholders, in the SQL’s order', () => {
    const shapes = new QueryShapes(dataSource);
    const build = jest.fn((values: { b: number; a: string }) =>
      dataSource
        .createQueryBuilder()
        .from('orders', 'o')
        .where('o.status = :a', { a: values.a })
        .andWhere('o.user_id = :b OR o.concert_id = :b', { b: values.b }),
    );
    const first = shapes.statement('shape', { a: 'REFUNDED', b: 7 }, () => build({ a: 'REFUNDED', b: 7 }));
    const second = shapes.statement('shape', { b: 9, a: 'CANCELLED' }, () => build({ a: 'CANCELLED', b: 9 }));
    expect(build).toHaveBeenCalledTimes(1);
    expect(second[0]).toBe(first[0]);
    expect(first[0]).toContain('WHERE o.status = ? AND o.user_id = ? OR o.concert_id = ?');
    expect(first[1]).toEqual(['REFUNDED', 7, 7]);
    expect(second[1]).toEqual(['CANCELLED', 9, 9]);
  });

  it('lays out the elements of a spread list, whose length belongs to the shape', () => {
    const shapes = new QueryShapes(dataSource);
    const build = (ids: number[]) =>
      dataSource.createQueryBuilder().from('orders', 'o').where('o.id IN (:...ids)', { ids });
    shapes.statement('ids|3', { ids: [1, 2, 3] }, () => build([1, 2, 3]));
    const [sql, parameters] = shapes.statement('ids|3', { ids: [7, 8, 9] }, () => build([7, 8, 9]));
    expect(sql).toContain('IN (?, ?, ?)');
    expect(parameters).toEqual([7, 8, 9]);
  });

  it('refuses a shape whose builder names other parameters than the values do', () => {
    const shapes = new QueryShapes(dataSource);
    expect(() =>
      shapes.statement('mismatch', { userId: 1 }, () =>
        dataSource.createQueryBuilder().from('orders', 'o').where('o.user_id = :user', { user: 1 }),
      ),
    ).toThrow(/differ/);
  });
});
