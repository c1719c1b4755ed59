/** Wire types of prompts and templates. Rules beyond shape (names, labels, templates) are core/prompts'. */
import typia, { type tags } from 'typia';
import type { JsonValue } from '../core/span.js';
import type { Count } from './ids.js';
import { strictQuery } from './strictQuery.js';
import type { TimeWindowFields } from './window.js';

/** A prompt's name (core/prompts/names.ts says which characters). */
type PromptName = string & tags.MinLength<1> & tags.MaxLength<128>;
type Label = string & tags.MinLength<1> & tags.MaxLength<36>;

export interface PromptListQuery {
  name?: PromptName;
  label?: Label;
  limit?: number & tags.Type<'uint32'> & tags.Minimum<1> & tags.Maximum<100>;
  offset?: Count;
}

export interface PromptParams {
  name: PromptName;
}

export interface PromptVersionParams {
  name: PromptName;
  /** A version number, as the path spells it. */
  version: string & tags.Pattern<'^[1-9][0-9]{0,8}$'>;
}

export interface PromptLabelParams {
  name: PromptName;
  label: Label;
}

/** Which version: `label` (default `production`) or `version`, not both. */
export interface PromptFetchQuery {
  label?: Label;
  version?: Count & tags.Minimum<1>;
}

export interface ChatMessageBody {
  role: 'system' | 'user' | 'assistant' | 'developer' | 'tool';
  content: string & tags.MaxLength<200000>;
}

/** A new version: `prompt` is the template text (type text) or the messages (type chat). */
export interface CreatePromptBody {
  name: PromptName;
  type?: 'text' | 'chat';
  prompt: (string & tags.MaxLength<200000>) | (ChatMessageBody[] & tags.MinItems<1> & tags.MaxItems<100>);
  config?: Record<string, JsonValue>;
  labels?: Label[] & tags.MaxItems<20>;
  commit_message?: string & tags.MaxLength<1000>;
}

export interface SetLabelsBody {
  labels: Label[] & tags.MinItems<1> & tags.MaxItems<20>;
}

export interface RenderBody {
  variables: Record<string, JsonValue>;
  label?: Label;
  version?: Count & tags.Minimum<1>;
}

export interface PromptMetricsQuery extends TimeWindowFields {}

export interface TemplateQuery {
  path: string & tags.MinLength<1> & tags.MaxLength<1024>;
  /** A branch or a full commit sha; default the connection's branch. */
  ref?: string & tags.MinLength<1> & tags.MaxLength<255>;
}

export const validatePromptListQuery = strictQuery(
  typia.http.createValidateQuery<PromptListQuery>(),
  typia.json.schemas<[PromptListQuery], '3.1'>(),
);
export const validatePromptParams = typia.createValidateEquals<PromptParams>();
export const validatePromptVersionParams = typia.createValidateEquals<PromptVersionParams>();
export const validatePromptLabelParams = typia.createValidateEquals<PromptLabelParams>();
export const validatePromptFetchQuery = strictQuery(
  typia.http.createValidateQuery<PromptFetchQuery>(),
  typia.json.schemas<[PromptFetchQuery], '3.1'>(),
);
export const validateCreatePromptBody = typia.createValidateEquals<CreatePromptBody>();
export const validateSetLabelsBody = typia.createValidateEquals<SetLabelsBody>();
export const validateRenderBody = typia.createValidateEquals<RenderBody>();
export const validatePromptMetricsQuery = strictQuery(
  typia.http.createValidateQuery<PromptMetricsQuery>(),
  typia.json.schemas<[PromptMetricsQuery], '3.1'>(),
);
export const validateTemplateQuery = strictQuery(
  typia.http.createValidateQuery<TemplateQuery>(),
  typia.json.schemas<[TemplateQuery], '3.1'>(),
);
