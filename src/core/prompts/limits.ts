/**
 * The most characters a version's templates may hold, all messages together: compiling costs
 * time in proportion (most for a template dense in `{{tags}}`), at every save and render. Apart
 * from document.ts, so that the routes can say it without loading Handlebars (promptModules.ts).
 */
export const MAX_TEMPLATE_CHARS = 65_536;
