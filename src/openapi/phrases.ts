/** Words the notes of several routes share (http/routes/*.ts). */
export const CSV = { 'text/csv': 'With `format=csv`: the same rows as CSV (a header line, then one line per row).' };
export const PAGE_HEADERS = {
  'X-Total-Count': 'With `format=csv` (and the span exports): the number of matching rows.',
};

/** A tenant-wide route given an `app_id` of no app of the caller's tenant. */
export const NO_SUCH_APP = { status: 404, when: '`not_found`: `app_id` names no app of the tenant.' };
/** A read by id that names its environment (`?environment=`) refuses one the app lacks. */
export const NO_SUCH_ENVIRONMENT = {
  status: 400,
  when: '`invalid_query_parameters`: `environment` names no environment of the app.',
};
/** Why a list of traces or spans refuses its query beyond its schema. */
export const LIST_REFUSALS =
  "`invalid_query_parameters`: `environment` names no environment of the app; `invalid_filter`: `filter` does not parse or names an unknown field; `invalid_time_window`: the window's start is not before its end, or it spans more than 90 days.";
/** Why a list or aggregation of scores refuses its kinds. */
export const SCORE_KINDS =
  '`invalid_query_parameters`: `data_type` is not NUMERIC, BOOLEAN or CATEGORICAL, or `source` not api, annotation, eval or sdk (any case)';
/** Why a score is refused beyond its schema: the one of `POST /v1/scores`, or an item of a batch. */
export const SCORE_RULES =
  "`resource_id` is missing, or neither a trace id (32 hex characters) nor a span id (16) nor the `session_id` scored; `data_type` is not NUMERIC, BOOLEAN or CATEGORICAL (any case), or `dataType` disagrees with it, or the score config of the name has another type; `source` is not api, annotation, eval or sdk; the `score` or `label` does not fit the type or the score config (a score missing, outside the config's range or not its category's value, a BOOLEAN score other than 0 or 1, a `label` not one of the categories)";
/** Why a score config is refused beyond its schema (on create and update). */
export const SCORE_CONFIG_RULES =
  '`invalid_request_body`: `data_type` is not NUMERIC, BOOLEAN or CATEGORICAL (any case); `min_value` or `max_value` on a config that is not NUMERIC, or `max_value` below `min_value`; `categories` empty on a CATEGORICAL config, on one of another type, or with a label twice.';
/** A search body's refusals beyond its schema. */
export const SEARCH_REFUSALS =
  "`invalid_request_body`: `environment` names no environment of the app; `invalid_filter`: a filter names an unknown field, an operator or value its field does not take, or an environment the app lacks; `invalid_time_window`: the window's start is not before its end, or it spans more than 90 days.";
