/** Wire types of environment and app administration; typia generates the validators at build time. */
import { strictQuery } from './strictQuery.js';
import typia, { type tags } from 'typia';
import type { EnvironmentKind } from '../core/admin/rules.js';
import type { Uuid } from './ids.js';

/** Same pattern as ENVIRONMENT_NAME in core/admin/rules.ts. */
export type EnvironmentName = string & tags.Pattern<'^[a-z0-9][a-z0-9-]{0,62}$'>;

/** An environment of the caller's app, or of `app_id` (an app of the caller's tenant). */
export interface CreateEnvironmentBody {
  name: EnvironmentName;
  kind: EnvironmentKind;
  app_id?: Uuid;
}

export interface EnvironmentListQuery {
  app_id?: Uuid;
}

export interface EnvironmentParams {
  id: Uuid;
}

export interface UpdateEnvironmentBody {
  name?: EnvironmentName;
  kind?: EnvironmentKind;
  app_id?: Uuid;
}

export interface DeleteEnvironmentBody {
  /** Must equal the environment's name (typed-name confirmation). */
  confirmation_name: string & tags.MaxLength<256>;
  app_id?: Uuid;
}

/** `null` clears a field; `runtime` cannot be cleared (it defaults to `nodejs`). */
export interface UpdateAppBody {
  display_name?: (string & tags.MaxLength<128>) | null;
  entry_point?: (string & tags.MaxLength<512>) | null;
  runtime?: string & tags.MinLength<1> & tags.MaxLength<32>;
  /** A git commit id, full (40 or 64 hex digits) or abbreviated (at least 7). */
  commit_sha?: (string & tags.Pattern<'^[0-9a-fA-F]{7,64}$'>) | null;
  /** Days the app's spans are kept; null: the server's default (`TRACELAKE_RETENTION_DAYS`). */
  retention_days?: (number & tags.Type<'uint32'> & tags.Minimum<1> & tags.Maximum<36500>) | null;
}

/** The body of DELETE /v1/apps/{appId} is optional; a confirmation, when sent, must be the app's name. */
export interface DeleteAppBody {
  confirmation_name?: string & tags.MaxLength<256>;
}

export const validateCreateEnvironmentBody = typia.createValidateEquals<CreateEnvironmentBody>();
export const validateEnvironmentListQuery = strictQuery(
  typia.http.createValidateQuery<EnvironmentListQuery>(),
  typia.json.schemas<[EnvironmentListQuery], '3.1'>(),
);
export const validateEnvironmentParams = typia.createValidateEquals<EnvironmentParams>();
export const validateUpdateEnvironmentBody = typia.createValidateEquals<UpdateEnvironmentBody>();
export const validateDeleteEnvironmentBody = typia.createValidateEquals<DeleteEnvironmentBody>();
export const validateUpdateAppBody = typia.createValidateEquals<UpdateAppBody>();
export const validateDeleteAppBody = typia.createValidateEquals<DeleteAppBody | undefined>();
