/**
 * Prompt templates: `{{name}}` variables, compiled by Handlebars (a maintained Mustache superset:
 * `{{#if}}`, `{{#each}}`, `{{#with}}`, `{{#unless}}` and `{{lookup}}` work too). Output is not
 * HTML-escaped (a prompt is not a web page), only the built-in helpers exist (`log` aside), partials are refused,
 * and rendering refuses missing variables instead of printing nothing in their place.
 */
import Handlebars from 'handlebars';

/** An environment of our own, so nothing registered elsewhere (helpers, partials) leaks in. */
const engine = Handlebars.create();
// `{{log}}` would write to the server's stdout (its JSON log): not a helper prompts get.
engine.unregisterHelper('log');

const COMPILE_OPTIONS = { noEscape: true, strict: true, knownHelpersOnly: true, knownHelpers: { log: false } };

/**
 * The output budget of the render under way (rendering is synchronous): characters still allowed,
 * and for each loop body being run, what the bodies nested in it have produced so far.
 */
let output = { left: 0, nested: [] as number[] };

class OutputOverBudget extends Error {}

// Loops are where output multiplies (a Mustache section over a list runs `each` too): each body's
// own output is counted as it is produced, so a render past its budget stops before building it.
const builtInEach = engine.helpers.each!;
engine.registerHelper('each', function (this: unknown, context: unknown, options: Handlebars.HelperOptions) {
  return builtInEach.call(this, context, { ...options, fn: counted(options.fn) });
});

function counted(fn: Handlebars.TemplateDelegate): Handlebars.TemplateDelegate {
  return (context, runtimeOptions) => {
    const budget = output;
    budget.nested.push(0);
    const text = fn(context, runtimeOptions);
    // What nested bodies produced was counted when they ran.
    budget.left -= text.length - budget.nested.pop()!;
    if (budget.left < 0) throw new OutputOverBudget();
    if (budget.nested.length > 0) budget.nested[budget.nested.length - 1]! += text.length;
    return text;
  };
}

/** Blocks that keep the context: the paths inside them are the template's own variables. */
const SAME_CONTEXT = new Set(['if', 'unless']);

export type TemplateCheck = { ok: true; variables: string[] } | { ok: false; error: string };

/**
 * Parses and compiles `text` (so a broken template is refused when it is saved, not when it is
 * used) and lists its variables: the top-level names it reads, in order of first use.
 */
export function checkTemplate(text: string): TemplateCheck {
  let program: hbs.AST.Program;
  try {
    program = engine.parse(text);
    engine.precompile(text, COMPILE_OPTIONS);
  } catch (e) {
    return { ok: false, error: (e as Error).message.split('\n')[0]! };
  }
  const found = new Set<string>();
  const partial = walkProgram(program, true, found);
  if (partial) return { ok: false, error: 'partials ({{> name}}) are not supported in prompt templates' };
  return { ok: true, variables: [...found] };
}

/** Returns true when a partial was met (refused by the caller). */
function walkProgram(program: hbs.AST.Program | undefined, topLevel: boolean, found: Set<string>): boolean {
  let partial = false;
  for (const node of program?.body ?? []) partial = walkStatement(node as hbs.AST.Node, topLevel, found) || partial;
  return partial;
}

function walkStatement(node: hbs.AST.Node, topLevel: boolean, found: Set<string>): boolean {
  switch (node.type) {
    case 'MustacheStatement': {
      const m = node as hbs.AST.MustacheStatement;
      const isHelperCall = m.params.length > 0 || m.hash?.pairs.length > 0;
      if (!isHelperCall) walkExpression(m.path, topLevel, found);
      walkArguments(m.params, m.hash, topLevel, found);
      return false;
    }
    case 'BlockStatement': {
      const b = node as hbs.AST.BlockStatement;
      const helper = b.params.length > 0 || b.hash?.pairs.length > 0 || SAME_CONTEXT.has(b.path.original);
      // `{{#items}}…{{/items}}` (a Mustache section) reads `items` and enters it.
      if (!helper) walkExpression(b.path, topLevel, found);
      walkArguments(b.params, b.hash, topLevel, found);
      const inner = topLevel && SAME_CONTEXT.has(b.path.original);
      const a = walkProgram(b.program, inner, found);
      const c = walkProgram(b.inverse, inner, found);
      return a || c;
    }
    case 'PartialStatement':
    case 'PartialBlockStatement':
      return true;
    default:
      return false;
  }
}

function walkArguments(
  params: hbs.AST.Expression[],
  hash: hbs.AST.Hash | undefined,
  topLevel: boolean,
  found: Set<string>,
): void {
  for (const p of params) walkExpression(p, topLevel, found);
  for (const pair of hash?.pairs ?? []) walkExpression(pair.value, topLevel, found);
}

function walkExpression(e: hbs.AST.Expression, topLevel: boolean, found: Set<string>): void {
  if (e.type === 'SubExpression') {
    const s = e as hbs.AST.SubExpression;
    walkArguments(s.params, s.hash, topLevel, found);
    return;
  }
  if (e.type !== 'PathExpression') return;
  const p = e as hbs.AST.PathExpression;
  // `@root.x` names a top-level variable from anywhere; other data (`@index`, `@key`) is none.
  if (p.data) {
    if (p.parts[0] === 'root' && p.parts[1] !== undefined) found.add(p.parts[1]);
    return;
  }
  // Inside `each`/`with` a path is relative to the item, except `../x`, which climbs out.
  if ((topLevel || p.depth > 0) && p.parts[0] !== undefined) found.add(p.parts[0]);
}

/** Variable values: any JSON. */
export type Variables = Record<string, unknown>;

export type Rendered =
  | { ok: true; text: string }
  | { ok: false; missing: string[] }
  | { ok: false; error: string }
  | { ok: false; overBudget: true };

/**
 * Renders `text` with `variables`. Every variable the template reads must be given (null, false
 * and "" are values); a field missing deeper down (`{{user.name}}` without `name`) is refused too.
 * An output longer than `maxChars` characters is refused (`overBudget`), loops stopped as they pass it.
 */
export function renderTemplate(text: string, variables: Variables, maxChars = Number.POSITIVE_INFINITY): Rendered {
  const check = checkTemplate(text);
  if (!check.ok) return check;
  const missing = check.variables.filter((v) => !Object.hasOwn(variables, v) || variables[v] === undefined);
  if (missing.length > 0) return { ok: false, missing };
  output = { left: maxChars, nested: [] };
  try {
    const rendered = engine.compile(text, COMPILE_OPTIONS)(variables);
    // Text outside loops (a long variable read many times) is measured whole, before anything copies it.
    return rendered.length > maxChars ? { ok: false, overBudget: true } : { ok: true, text: rendered };
  } catch (e) {
    if (e instanceof OutputOverBudget) return { ok: false, overBudget: true };
    // Strict mode's words: `"name" not defined in [object Object] - 1:8`.
    const name = /^"([^"]+)" not defined/.exec((e as Error).message)?.[1];
    return name ? { ok: false, missing: [name] } : { ok: false, error: (e as Error).message.split('\n')[0]! };
  }
}
