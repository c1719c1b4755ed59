/**
 * Named scalar types shared by the contract modules. Declared once: typia names a schema after the
 * alias it meets, and two aliases of one name become `Uuid` and `Uuid.o1` in the order the compiler
 * met them, so the reference would have two names for one thing (and a name that changes between
 * builds). Those the core's wire shapes use too are the core's (core/scalars.ts), re-exported here.
 */
import type { tags } from 'typia';
export type { Count, DateTime, Id } from '../core/scalars.js';

export type Uuid = string & tags.Format<'uuid'>;
export type Name = string & tags.MinLength<1> & tags.MaxLength<256>;
/**
 * A cost in USD a body states: at most a billion, as a span's (core/cost/money.ts), so that sums
 * of them fit the store's DECIMAL(38, 12); past it a figure is a mistake, refused.
 */
export type Usd = number & tags.Minimum<0> & tags.Maximum<1000000000>;
/**
 * A score a body states: within ±1e15, so that the sums and
 * averages the API answers over them stay finite; past it a figure is a mistake, refused.
 */
export type Measure = number & tags.Minimum<-1000000000000000> & tags.Maximum<1000000000000000>;
export type Limit = number & tags.Type<'uint32'> & tags.Minimum<1> & tags.Maximum<1000>;
/** Rows to skip before the page starts: an integer from 0 to 4294967295. */
export type Offset = number & tags.Type<'uint32'> & tags.Maximum<4294967295>;
