import type { JsonValue } from '../../../../kernel/records/canonical-json.js';
import type { PathSegment } from '../../../../kernel/records/record-filter.js';
import { numberPath } from '../../domain/records/record-numbers.js';
import type { ParamType, SqlDialect } from './sql-dialect.js';

/** The AND of SQL clauses, each in parentheses. */
export function allOf(clauses: string[]): string {
  return clauses.map((clause) => `(${clause})`).join(' AND ');
}

/** Collects a statement's bound values and the joins it needs; the dialect writes the placeholders. */
export class SqlWriter {
  readonly values: unknown[] = [];
  /** `LEFT JOIN record_numbers …`, one per payload field whose numbers the query reads. */
  readonly joins: string[] = [];
  private readonly numberAliases = new Map<string, string>();

  constructor(readonly dialect: SqlDialect) {}

  /** A bound value, numbered so that a placeholder may appear more than once. */
  param(value: unknown, type: ParamType = 'any'): string {
    this.values.push(value);
    return this.dialect.placeholder(this.values.length, type);
  }

  text(value: string): string {
    return this.param(value, 'text');
  }

  integer(value: number): string {
    return this.param(value, 'integer');
  }

  double(value: number): string {
    return this.param(value, 'double');
  }

  json(value: JsonValue): string {
    return this.param(JSON.stringify(value), 'json');
  }

  instant(iso: string): string {
    return this.param(this.dialect.instant(iso), 'instant');
  }

  boolean(value: boolean): string {
    return this.param(this.dialect.boolean(value), 'boolean');
  }

  /** The alias of the record_numbers row of one payload field, joined on first use. */
  numbers(path: PathSegment[]): string {
    const field = numberPath(path);
    let alias = this.numberAliases.get(field);
    if (alias === undefined) {
      alias = `n${this.numberAliases.size + 1}`;
      this.numberAliases.set(field, alias);
      this.joins.push(` LEFT JOIN record_numbers ${alias} ON ${alias}.record_id = r.id AND ${alias}.record_namespace = r.namespace AND ${alias}.path = ${this.text(field)}`);
    }
    return alias;
  }
}
