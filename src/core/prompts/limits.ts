/**
 * The most characters a version's templates may hold, all messages together: compiling costs
 * time in proportion (most for a template dense in `{{tags}}`), at every save and render. Apart
 * from document.ts, so that the routes can say it without loading Handlebars (promptModules.ts).
 */
export const MAX_TEMPLATE_CHARS = 65_536;

/** Why a template of `size` characters is refused; null when it is within the limit. */
export function templateSizeProblem(size: number): string | null {
  return size > MAX_TEMPLATE_CHARS
    ? `the template is ${size} characters long; the limit is ${MAX_TEMPLATE_CHARS}`
    : null;
}
