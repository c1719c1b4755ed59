/** Wire types of the app endpoints. */
import typia, { type tags } from 'typia';

export interface CreateAppBody {
  name: string & tags.MinLength<1> & tags.MaxLength<64> & tags.Pattern<'^[a-z0-9][a-z0-9._-]*$'>;
  display_name?: string & tags.MaxLength<128>;
  entry_point?: string & tags.MaxLength<512>;
  /** Defaults to `nodejs` (spec: Apps). */
  runtime?: string & tags.MinLength<1> & tags.MaxLength<32>;
}

export interface AppParams {
  appId: string & tags.Format<'uuid'>;
}

export interface BlobParams {
  sha256: string & tags.Pattern<'^[0-9a-f]{64}$'>;
}

export const validateCreateAppBody = typia.createValidateEquals<CreateAppBody>();
export const validateAppParams = typia.createValidateEquals<AppParams>();
export const validateBlobParams = typia.createValidateEquals<BlobParams>();
