/**
 * Wire types of the operator API (/v1/operator/*; core/admin/operatorApi.ts maps them to the CLI's
 * commands). typia checks their shape here; the values then pass the CLI's own checks (cliArgs.ts),
 * so the API and the CLI accept the same names, plans, kinds and dates.
 */
import typia, { type tags } from 'typia';
import type { EnvironmentKind } from '../core/admin/rules.js';
import type { Permission } from '../core/permissions.js';
import type { Count, Uuid } from './ids.js';

export interface OperatorTenantParams {
  tenant: Uuid;
}

export interface OperatorAppParams {
  app: Uuid;
}

export interface OperatorKeyParams {
  app: Uuid;
  id: Uuid;
}

/** A tenant with its `default` app and that app's `production` environment. */
export interface OperatorCreateTenantBody {
  name: string & tags.MaxLength<128>;
  /** A plan of the server's plans file; default: the plans file's default. */
  plan?: string & tags.MaxLength<64>;
}

export interface OperatorSetPlanBody {
  plan: string & tags.MaxLength<64>;
}

export interface OperatorCreateAppBody {
  name: string & tags.MaxLength<64>;
  display_name?: string & tags.MaxLength<128>;
  entry_point?: string & tags.MaxLength<512>;
  runtime?: string & tags.MaxLength<32>;
}

export interface OperatorCreateEnvironmentBody {
  name: string & tags.MaxLength<63>;
  kind: EnvironmentKind;
}

/**
 * Exactly one of `role` (sdk, read-only, full-access) and `permissions` (a custom key); exactly one
 * of `environment` (pinned to it) and `kinds` (kind-scoped: the environment is named per request).
 */
export interface OperatorCreateKeyBody {
  name: string & tags.MaxLength<128>;
  role?: string & tags.MaxLength<32>;
  permissions?: Permission[] & tags.MinItems<1> & tags.UniqueItems;
  environment?: string & tags.MaxLength<63>;
  kinds?: EnvironmentKind[] & tags.MinItems<1> & tags.UniqueItems;
  expires_at?: string & tags.Format<'date-time'>;
}

/** A session token for a tenant admin of `app_id` (an app of `tenant_id`). */
export interface OperatorCreateTokenBody {
  tenant_id: Uuid;
  app_id: Uuid;
  subject: string & tags.MaxLength<254>;
  /** Default 3600; 60 to 7 days. */
  ttl_seconds?: Count;
}

export const validateOperatorTenantParams = typia.createValidateEquals<OperatorTenantParams>();
export const validateOperatorAppParams = typia.createValidateEquals<OperatorAppParams>();
export const validateOperatorKeyParams = typia.createValidateEquals<OperatorKeyParams>();
export const validateOperatorCreateTenantBody = typia.createValidateEquals<OperatorCreateTenantBody>();
export const validateOperatorSetPlanBody = typia.createValidateEquals<OperatorSetPlanBody>();
export const validateOperatorCreateAppBody = typia.createValidateEquals<OperatorCreateAppBody>();
export const validateOperatorCreateEnvironmentBody = typia.createValidateEquals<OperatorCreateEnvironmentBody>();
export const validateOperatorCreateKeyBody = typia.createValidateEquals<OperatorCreateKeyBody>();
export const validateOperatorCreateTokenBody = typia.createValidateEquals<OperatorCreateTokenBody>();
