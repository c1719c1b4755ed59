/**
 * Score configs: what a score of a given name must look like (data type, range, categories). A
 * definition is checked whole when created and after each update; a score whose name has a config
 * is judged against it by `finalizeScore`, which also settles the score's data type.
 */
import { validationError } from '../errors.js';
import type { PreparedScore } from './item.js';
import { canonicalDataType, type DataType, type ItemError } from './model.js';

export interface Category {
  label: string;
  value: number;
}

/** A config definition as the wire carries it (create body, or the result of merging a patch). */
export interface ConfigDefinition {
  data_type: string;
  min_value?: number | null;
  max_value?: number | null;
  categories?: Category[] | null;
  description?: string | null;
}

/** The fields of a config an update may change; null clears one. */
export interface ConfigPatch {
  min_value?: number | null;
  max_value?: number | null;
  categories?: Category[] | null;
  description?: string | null;
}

/** A checked definition, as stored. */
export interface ConfigRules {
  dataType: DataType;
  minValue: number | null;
  maxValue: number | null;
  categories: Category[] | null;
  description: string | null;
}

/** A stored config, as score validation needs it. */
export interface ScoreConfigRule extends Omit<ConfigRules, 'description'> {
  id: string;
  name: string;
}

/** Checks a definition whole; any fault is a 400 `invalid_request_body` naming each bad field. */
export function checkConfigDefinition(d: ConfigDefinition): ConfigRules {
  const details: Record<string, string> = {};
  const dataType = canonicalDataType(d.data_type);
  const minValue = d.min_value ?? null;
  const maxValue = d.max_value ?? null;
  const categories = d.categories ?? null;
  if (!dataType) details.data_type = `must be one of NUMERIC, BOOLEAN, CATEGORICAL, got "${d.data_type}"`;
  if (dataType !== 'NUMERIC') {
    if (minValue !== null) details.min_value = 'only NUMERIC configs have a range';
    if (maxValue !== null) details.max_value = 'only NUMERIC configs have a range';
  } else if (minValue !== null && maxValue !== null && minValue > maxValue) {
    details.max_value = `must be at least min_value (${minValue})`;
  }
  if (dataType === 'CATEGORICAL') {
    if (categories === null || categories.length === 0)
      details.categories = 'a CATEGORICAL config needs at least one category';
    else {
      const seen = new Set<string>();
      for (const c of categories) {
        if (seen.has(c.label)) details.categories = `duplicate label "${c.label}"`;
        seen.add(c.label);
      }
    }
  } else if (categories !== null) {
    details.categories = 'only CATEGORICAL configs have categories';
  }
  if (Object.keys(details).length > 0) throw validationError('body', details);
  return { dataType: dataType!, minValue, maxValue, categories, description: d.description ?? null };
}

/** The definition an update asks for: the patch over the stored rules (the data type never changes). */
export function mergeConfigPatch(stored: ConfigRules, patch: ConfigPatch): ConfigDefinition {
  const pick = <K extends keyof ConfigPatch>(key: K, current: ConfigPatch[K]) =>
    patch[key] === undefined ? current : patch[key];
  return {
    data_type: stored.dataType,
    min_value: pick('min_value', stored.minValue),
    max_value: pick('max_value', stored.maxValue),
    categories: pick('categories', stored.categories),
    description: pick('description', stored.description),
  };
}

/** What is stored of a score once its data type is settled. */
export interface FinalScore {
  dataType: DataType;
  score: number;
  label: string | null;
  configId: string | null;
}

export type Finalized = { ok: true; value: FinalScore } | { ok: false; error: ItemError };

function fail(field: string, message: string): Finalized {
  return { ok: false, error: { code: 'invalid_request_body', message: `${field}: ${message}`, field } };
}

/**
 * Settles a prepared item's data type (as given, else the config's, else NUMERIC) and checks it
 * against the type's rules and the name's config, when there is one:
 * NUMERIC needs a score within the config's range; BOOLEAN a score of 0 or 1; CATEGORICAL a label
 * (one of the config's categories, whose value becomes the score when none is given).
 */
export function finalizeScore(item: PreparedScore, config: ScoreConfigRule | null): Finalized {
  if (config && item.dataType !== null && item.dataType !== config.dataType) {
    return fail('data_type', `the score config "${config.name}" is ${config.dataType}, not ${item.dataType}`);
  }
  const dataType = item.dataType ?? config?.dataType ?? 'NUMERIC';
  const configId = config?.id ?? null;
  let score = item.score;
  switch (dataType) {
    case 'NUMERIC':
      if (score === null) return fail('score', 'is required');
      if (config?.minValue != null && score < config.minValue)
        return fail('score', `must be at least ${config.minValue} (score config "${config.name}")`);
      if (config?.maxValue != null && score > config.maxValue)
        return fail('score', `must be at most ${config.maxValue} (score config "${config.name}")`);
      break;
    case 'BOOLEAN':
      if (score === null) return fail('score', 'is required');
      if (score !== 0 && score !== 1) return fail('score', `a BOOLEAN score is 0 or 1, got ${score}`);
      break;
    case 'CATEGORICAL': {
      if (item.label === null) return fail('label', 'is required for a CATEGORICAL score');
      if (config?.categories) {
        const category = config.categories.find((c) => c.label === item.label);
        if (!category)
          return fail(
            'label',
            `must be one of ${config.categories.map((c) => JSON.stringify(c.label)).join(', ')} (score config "${config.name}")`,
          );
        if (score !== null && score !== category.value)
          return fail('score', `the category "${category.label}" has the value ${category.value}, got ${score}`);
        score = category.value;
      }
      if (score === null) return fail('score', 'is required (no score config gives the category a value)');
      break;
    }
  }
  return { ok: true, value: { dataType, score, label: item.label, configId } };
}
