/**
 * Named scalar types that the core's wire shapes (core/agents/session.ts) share with the contract
 * (contract/ids.ts re-exports them). Declared once: typia names a schema after the alias it meets,
 * and two aliases of one name become `Id` and `Id.o1`, numbered in the order the compiler met them,
 * so the API reference would have two names for one thing and differ from build to build.
 */
import type { tags } from 'typia';

export type Id = string & tags.MinLength<1> & tags.MaxLength<256>;
export type DateTime = string & tags.Format<'date-time'>;
// typia's JSON schema for `Type<'uint32'>` says `minimum: 0` and leaves the maximum out, so the
// reference called counts past 2^32 valid while the validators refused them: the bound is written
// out (found by test/http/validBodies.alone.test.ts).
/** A count: an integer from 0 to 4294967295. */
export type Count = number & tags.Type<'uint32'> & tags.Maximum<4294967295>;
