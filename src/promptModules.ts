/**
 * The prompt modules (core/prompts: documents and templates), loaded at their first use rather than
 * at every start of the HTTP thread: they bring yaml and handlebars, many modules that a server which
 * serves no prompt never needs (native-bench/RESULTS.md, "Figures behind the code").
 */
let loaded: Promise<typeof import('./core/prompts/document.js') & typeof import('./core/prompts/template.js')> | null =
  null;

export function promptModules() {
  loaded ??= Promise.all([import('./core/prompts/document.js'), import('./core/prompts/template.js')]).then(
    ([document, template]) => ({ ...document, ...template }),
  );
  return loaded;
}
