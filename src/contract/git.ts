/** Wire types of the git endpoints (spec: Apps and git) and of the handshake's page. */
import typia, { type tags } from 'typia';
import type { Count } from './ids.js';
import { strictQuery } from './strictQuery.js';

export interface GitAppParams {
  appId: string & tags.Format<'uuid'>;
}

/**
 * `POST /v1/apps/{appId}/git/connect`. `local`: a repository under TRACELAKE_GIT_ROOT, picked on
 * the page the answer points to (or named here). `github`: a fine-grained `token`, or a GitHub
 * App (`app`) whose installation the human makes on GitHub.
 */
export interface GitConnectBody {
  provider: 'local' | 'github';
  /** A GitHub token is printable ASCII: what else it held could not go into the Authorization header. */
  token?: string & tags.MinLength<1> & tags.MaxLength<1024> & tags.Pattern<'^[!-~]+$'>;
  app?: {
    app_id: Count & tags.Minimum<1>;
    /** PEM, as GitHub hands it out. */
    private_key: string & tags.MinLength<1> & tags.MaxLength<16384>;
    /** The App's URL name: github.com/apps/<slug>. */
    slug: string & tags.MinLength<1> & tags.MaxLength<100> & tags.Pattern<'^[a-z0-9][a-z0-9-]*$'>;
  };
  /** Picks the repository at once (local and token connections): no human step. */
  repository?: string & tags.MinLength<1> & tags.MaxLength<255>;
  branch?: string & tags.MinLength<1> & tags.MaxLength<255>;
}

export interface GitBranchesQuery {
  repository: string & tags.MinLength<1> & tags.MaxLength<255>;
}

export interface GitSetupQuery {
  state: string & tags.MinLength<1> & tags.MaxLength<128>;
}

/** What GitHub appends to the App's setup URL when it sends the human back. */
export interface GitHubCallbackQuery {
  state: string & tags.MinLength<1> & tags.MaxLength<128>;
  installation_id: number & tags.Type<'uint64'> & tags.Minimum<1>;
  setup_action?: string & tags.MinLength<1> & tags.MaxLength<32>;
}

export const validateGitAppParams = typia.createValidateEquals<GitAppParams>();
export const validateGitConnectBody = typia.createValidateEquals<GitConnectBody>();
export const validateGitBranchesQuery = strictQuery(
  typia.http.createValidateQuery<GitBranchesQuery>(),
  typia.json.schemas<[GitBranchesQuery], '3.1'>(),
);
export const validateGitSetupQuery = strictQuery(
  typia.http.createValidateQuery<GitSetupQuery>(),
  typia.json.schemas<[GitSetupQuery], '3.1'>(),
);
export const validateGitHubCallbackQuery = strictQuery(
  typia.http.createValidateQuery<GitHubCallbackQuery>(),
  typia.json.schemas<[GitHubCallbackQuery], '3.1'>(),
);
