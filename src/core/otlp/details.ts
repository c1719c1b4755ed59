/**
 * Usage and cost sent as one attribute holding a JSON object, as the Langfuse SDKs do
 * (`langfuse.observation.usage_details` = `{"input":12,"output":3,"total":15}`): each number becomes
 * a key of its own, `<attribute>.<name>`, so the conventions read it as they read any count.
 */
import { emptyMap, isObject, parseJson, type DropCounter, type JsonMap } from './attributes.js';

export const USAGE_DETAILS_KEY = 'langfuse.observation.usage_details';
export const COST_DETAILS_KEY = 'langfuse.observation.cost_details';
const DETAIL_KEYS = [USAGE_DETAILS_KEY, COST_DETAILS_KEY] as const;

/**
 * `attrs` with the numbers of its detail objects added as keys (see the module comment); `attrs`
 * itself when it has none. A cost without `total` totals its parts, as Langfuse does.
 */
export function withDetails(attrs: JsonMap, counter: DropCounter): JsonMap {
  let view: JsonMap | undefined;
  for (const key of DETAIL_KEYS) {
    const raw = attrs[key];
    if (raw === undefined) continue;
    const details = typeof raw === 'string' ? parseJson(raw, counter) : raw;
    if (!isObject(details) || Array.isArray(details)) continue;
    view ??= Object.assign(emptyMap(), attrs);
    let sum = 0;
    for (const [name, value] of Object.entries(details)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) continue;
      view[`${key}.${name}`] = value;
      sum += value;
    }
    if (key === COST_DETAILS_KEY && !(`${key}.total` in view)) view[`${key}.total`] = sum;
  }
  return view ?? attrs;
}
