import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';

/** A request's values, by the parameter names its query builder uses. */
export type QueryValues = Record<string, unknown>;

/** A statement's SQL with its placeholders, and which value (or element of a spread list) each placeholder takes. */
interface Shape {
  sql: string;
  slots: Array<{ name: string; index?: number }>;
}

/** A placeholder's value while a shape is being laid out: it says where it came from. */
interface Marker {
  name: string;
  index?: number;
}

/** More shapes than any real traffic uses; the bound keeps a flood of odd sort orders from growing memory. */
const MAX_SHAPES = 1000;

/** The query builder's SQL, built once per query shape and reused. */
@Injectable()
export class QueryShapes {
  private readonly shapes = new Map<string, Shape>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The SQL and parameters for `values`; `build` runs only the first time `key` is seen, with the names of `values`. */
  statement(key: string, values: QueryValues, build: () => SelectQueryBuilder<ObjectLiteral>): [string, unknown[]] {
    let shape = this.shapes.get(key);
    if (!shape) {
      shape = this.layOut(build(), values);
      if (this.shapes.size >= MAX_SHAPES) this.shapes.delete(this.shapes.keys().next().value as string);
      this.shapes.set(key, shape);
    }
    return [
      shape.sql,
      shape.slots.map(({ name, index }) => (index === undefined ? values[name] : (values[name] as unknown[])[index])),
    ];
  }

  /** Lets the driver rewrite the named parameters as it always does, with markers in place of values to see where each goes. */
  private layOut(query: SelectQueryBuilder<ObjectLiteral>, values: QueryValues): Shape {
    const parameters = query.getParameters();
    const names = Object.keys(parameters).sort();
    if (names.join() !== Object.keys(values).sort().join()) {
      throw new Error(
        `Query shape parameters [${names.join()}] differ from the values [${Object.keys(values).join()}]`,
      );
    }
    const markers: Record<string, Marker | Marker[]> = {};
    for (const name of names) {
      const value = parameters[name] as unknown;
      markers[name] = Array.isArray(value) ? value.map((_, index) => ({ name, index })) : { name };
    }
    const [sql, slots] = this.dataSource.driver.escapeQueryWithParameters(query.getQuery(), markers);
    return { sql, slots: slots as Marker[] };
  }
}
