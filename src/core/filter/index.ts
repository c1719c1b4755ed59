/** The filter language: string grammar, JSON filters, printer, SQL compiler and schema. */
export { parseFilter } from './parser.js';
export { validateJsonFilters, checkFilter } from './json.js';
export { compileFilter, type CompiledFilter } from './compile.js';
export { printFilter } from './printer.js';
export { filterSchema, type FieldType, type FilterSchema, type Level, type SchemaField } from './schema.js';
export {
  equalityValues,
  LIMITS,
  OPS,
  RESOURCES,
  type Clause,
  type Filter,
  type Op,
  type OrGroup,
  type Predicate,
  type Resource,
  type Scalar,
  type Value,
} from './ast.js';
