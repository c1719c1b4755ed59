/**
 * `GET /v1/templates?path=` (template.read): one template file of the connected repository, at
 * the connection's branch or `ref`, with the blob and commit it came from and what it declares:
 * its variables and, for prompt files, the front matter. Paths outside `prompts/` are 400.
 */
import { validateTemplateQuery } from '../../contract/prompts.js';
import type { TemplateAnswer, TemplateFile } from '../../contract/responses.js';
import { ApiError, validationError } from '../../core/errors.js';
import { isRef } from '../../core/git/names.js';
import { templateSizeProblem } from '../../core/prompts/limits.js';
import { checkTemplatePath, PROMPT_EXTENSION, promptNameOfPath } from '../../core/prompts/names.js';
import { promptModules } from '../../promptModules.js';
import { etagOf, noneMatch } from '../etag.js';
import { bytes } from '../reply.js';
import { route } from '../route.js';
import { answer } from '../../openapi/note.js';
import { CACHE_HEADERS, COMMIT, IF_NONE_MATCH, NOT_CONNECTED, NOT_MODIFIED } from '../../openapi/promptExamples.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** What a template file declares; `error` says why it cannot be used as a template (it is served all the same). */
async function declarations(
  path: string,
  text: string,
): Promise<Omit<TemplateFile, 'path' | 'repository' | 'ref' | 'commit_sha' | 'sha' | 'content'>> {
  const { parsePromptFile, checkTemplate } = await promptModules();
  if (path.endsWith(PROMPT_EXTENSION)) {
    const doc = parsePromptFile(text);
    if (doc.ok)
      return {
        prompt_name: promptNameOfPath(path),
        type: doc.value.type,
        variables: doc.value.variables,
        config: doc.value.config,
        labels: doc.value.labels,
        error: null,
      };
    return { prompt_name: promptNameOfPath(path), type: null, variables: [], config: {}, labels: [], error: doc.error };
  }
  // Not compiled past the size a version may have: compiling a file dense in tags takes seconds.
  const tooLong = templateSizeProblem(text.length);
  const check = tooLong ? { ok: false as const, error: tooLong } : checkTemplate(text);
  return {
    prompt_name: null,
    type: 'text',
    variables: check.ok ? check.variables : [],
    config: {},
    labels: [],
    error: check.ok ? null : check.error,
  };
}

export const templateRoutes = [
  route({
    method: 'GET',
    path: '/v1/templates',
    permission: 'template.read',
    validate: { query: validateTemplateQuery },
    note: {
      tag: 'Prompts and templates',
      summary: 'A template file of the connected repository',
      description:
        "A file under `prompts/`, at the connection's branch or `ref` (a branch or a full commit sha), with its blob and commit and what it declares: its variables and, for a prompt file (`.md`), the front matter. A file that cannot be used as a template is served all the same, with `error` saying why.",
      query: 'TemplateQuery',
      headers: IF_NONE_MATCH,
      answers: [
        {
          ...answer(200, 'TemplateAnswer', 'The file.', {
            prompt: {
              data: {
                path: 'prompts/support/greeting.md',
                repository: 'acme/prompts',
                ref: 'main',
                commit_sha: COMMIT,
                sha: '5716ca5987cbf97d6bb54920bea6adde242d87e6',
                content:
                  '---\nlabels: [production]\nmodel: gpt-4o\ntemperature: 0.2\n---\nHello {{name}}, welcome to {{product}}!\n',
                prompt_name: 'support/greeting',
                type: 'text',
                variables: ['name', 'product'],
                config: { model: 'gpt-4o', temperature: 0.2 },
                labels: ['production'],
                error: null,
              },
            },
          }),
          headers: CACHE_HEADERS,
        },
        NOT_MODIFIED,
      ],
      errors: [
        {
          status: 400,
          when: '`invalid_query_parameters`: a `path` that is not a plain relative path of a file inside `prompts/` (a leading `/`, a `.`, `..` or empty part, a backslash or a control character), a `ref` that is neither a branch name nor a commit sha, or a file that is not UTF-8 text.',
        },
        { status: 404, when: '`not_found`: no such ref, or no such file at it.' },
        { status: 409, when: NOT_CONNECTED },
        { status: 413, when: '`payload_too_large`: the file is over the size a template may have.' },
        { status: 503, when: '`unavailable`: GitHub, or the git root, cannot be read.' },
      ],
    },
    async handler({ query, headers }, ctx) {
      const path = checkTemplatePath(query.path);
      if (!path.ok) throw validationError('query', { path: path.reason });
      if (query.ref !== undefined && !isRef(query.ref))
        throw validationError('query', { ref: 'must be a branch name or a full commit sha' });
      const { repository, branch, reader } = await ctx.services.git.connected({
        tenantId: ctx.principal.tenantId,
        appId: ctx.principal.appId,
      });
      const ref = query.ref ?? branch;
      const commit = await reader.resolveRef(repository, ref);
      if (!commit) throw new ApiError('not_found', `${repository} has no ref ${ref}`);
      const file = await reader.readFile(repository, commit, path.path);
      if (!file) throw new ApiError('not_found', `${repository} has no file ${path.path} at ${ref}`);
      let content: string;
      try {
        content = UTF8.decode(file.content);
      } catch {
        throw validationError('query', { path: 'names a file that is not UTF-8 text' });
      }
      const body = JSON.stringify({
        data: {
          path: path.path,
          repository,
          ref,
          commit_sha: commit,
          sha: file.blobSha,
          content,
          ...(await declarations(path.path, content)),
        },
      } satisfies TemplateAnswer);
      const etag = etagOf(body);
      const cacheHeaders = { ETag: etag, 'Cache-Control': 'no-cache' };
      if (noneMatch(headers['if-none-match'], etag)) return bytes('', 'application/json', 304, cacheHeaders);
      return bytes(body, 'application/json', 200, cacheHeaders);
    },
  }),
];
