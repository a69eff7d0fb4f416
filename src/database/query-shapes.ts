import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';

/** A request's values, by the parameter names its query builder uses. */
export type QueryValues = Record<string, unknown>;

/** A statement's SQL with its placeholders, and which value (or element of a spread list) each placeholder takes. */
interface LaidOut {
  sql: string;
  slots: Array<{ name: string; index?: number }>;
}

/** A placeholder's value while a shape is being laid out: it says where it came from. */
interface Marker {
  name: string;
  index?: number;
}

const boundTo = ({ sql, slots }: LaidOut, values: QueryValues): [string, unknown[]] => [
  sql,
  slots.map(({ name, index }) => (index === undefined ? values[name] : (values[name] as unknown[])[index])),
];

/** More shapes than any real traffic uses; the bound keeps a flood of odd sort orders from growing memory. */
const MAX_SHAPES = 1000;

/** The query builder's SQL, laid out once per statement shape and reused. A shape is a plain value holding everything
 * a statement's SQL depends on and none of its values; it is its own key, and a builder reads nothing else, so that
 * no branch of a builder can be left out of the key. */
@Injectable()
export class QueryShapes {
  private readonly shapes = new Map<string, LaidOut>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The SQL and parameters for `values`, if `shape` was laid out before. */
  known(shape: object, values: QueryValues): [string, unknown[]] | undefined {
    const laidOut = this.shapes.get(JSON.stringify(shape));
    return laidOut && boundTo(laidOut, values);
  }

  /** `query`, built from `shape` alone, laid out once for every request of that shape; its SQL and parameters. */
  laidOut(shape: object, query: SelectQueryBuilder<ObjectLiteral>, values: QueryValues): [string, unknown[]] {
    const laidOut = this.layOut(query, values);
    if (this.shapes.size >= MAX_SHAPES) this.shapes.delete(this.shapes.keys().next().value as string);
    this.shapes.set(JSON.stringify(shape), laidOut);
    return boundTo(laidOut, values);
  }

  /** Lets the driver rewrite the named parameters as it always does, with markers in place of values to see where each goes. */
  private layOut(query: SelectQueryBuilder<ObjectLiteral>, values: QueryValues): LaidOut {
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
