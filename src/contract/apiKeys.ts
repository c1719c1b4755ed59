/** Wire types of the API key endpoints, with typia tags; the validators are generated at build time. */
import typia, { type tags } from 'typia';
import { strictQuery } from './strictQuery.js';
import type { Permission } from '../core/permissions.js';

export interface CreateKeyBody {
  name: string & tags.MinLength<1> & tags.MaxLength<128>;
  /** Defaults to the app of the calling key; another app of the tenant needs a tenant admin. */
  app_id?: string & tags.Format<'uuid'>;
  /** Defaults to the app's default environment. */
  environment_name?: string & tags.MinLength<1> & tags.MaxLength<64>;
  /** A preset (SDK, Read-Only, Full Access) or Custom; Custom needs `permissions`. */
  role?: string & tags.MinLength<1> & tags.MaxLength<32>;
  permissions?: Permission[] & tags.MinItems<1> & tags.MaxItems<11> & tags.UniqueItems;
  expires_at?: string & tags.Format<'date-time'>;
}

export interface KeyIdParams {
  id: string & tags.Format<'uuid'>;
}

/** List and revoke: the app whose keys (default: the caller's app). */
export interface KeyAppQuery {
  app_id?: string & tags.Format<'uuid'>;
}

export const validateCreateKeyBody = typia.createValidateEquals<CreateKeyBody>();
export const validateKeyIdParams = typia.createValidateEquals<KeyIdParams>();
export const validateKeyAppQuery = strictQuery(
  typia.http.createValidateQuery<KeyAppQuery>(),
  typia.json.schemas<[KeyAppQuery], '3.1'>(),
);
