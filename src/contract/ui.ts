/** Wire types of the web UI's files: `?v=` versions an asset's URL (a cache key; its value is not checked). */
import typia, { type tags } from 'typia';
import { strictQuery } from './strictQuery.js';

export interface AssetQuery {
  v?: string & tags.MinLength<1> & tags.MaxLength<64>;
}

export const validateAssetQuery = strictQuery(
  typia.http.createValidateQuery<AssetQuery>(),
  typia.json.schemas<[AssetQuery], '3.1'>(),
);
