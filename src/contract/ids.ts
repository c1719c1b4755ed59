/**
 * Id types shared by the contract modules. Declared once: typia names a schema after the alias it
 * meets, and two aliases of one name become `Uuid` and `Uuid.o1` in the order the compiler met
 * them, so the reference would have two names for one thing.
 */
import type { tags } from 'typia';

export type Uuid = string & tags.Format<'uuid'>;
