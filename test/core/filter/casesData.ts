/** The data file of filter cases, shared by the core tests and the DuckDB execution test. */
import { readFileSync } from 'node:fs';
import type { Filter, Resource } from '../../../src/core/filter/index.js';

export interface ValidCase {
  resource: Resource;
  expression: string;
  ast: Filter;
  /** How `printFilter(ast)` writes it, when not the expression itself. */
  printed?: string;
  /** Ids the filter matches in the fixtures of test/store/filterSql.test.ts. */
  expect?: string[];
}

export interface ValidJsonCase {
  resource: Resource;
  filters: unknown;
  ast: Filter;
  expect?: string[];
}

export interface ParseFail {
  resource: Resource;
  expression: string;
  position: number;
  message: string;
}

export interface ValidateFail {
  resource: Resource;
  filters: unknown;
  path: string;
  message: string;
}

export interface CompileFail {
  resource: Resource;
  ast: unknown;
  message: string;
}

export interface Cases {
  valid: ValidCase[];
  valid_json: ValidJsonCase[];
  parse_fails: ParseFail[];
  validate_fails: ValidateFail[];
  compile_fails: CompileFail[];
}

export const cases: Cases = JSON.parse(
  readFileSync(new URL('../../../../test/core/filter/cases.json', import.meta.url), 'utf8'),
) as Cases;
