/**
 * Comments are their own resource, attached to a trace, a span or a session of the caller's app.
 * This module checks what a comment names before the store looks it up.
 */
import { validationError } from '../errors.js';
import type { ResourceRef } from './resource.js';
import { resourceKind, type ResourceType } from './model.js';

export const MAX_COMMENT = 5000;

/** The reference a comment's `resource_type` and `resource_id` make; 400 when the id cannot be one. */
export function commentTarget(type: ResourceType, id: string, part: 'body' | 'query'): ResourceRef {
  if (type === 'session') return { resourceId: null, resourceKind: null, sessionId: id };
  if (resourceKind(id) !== type) {
    throw validationError(part, { resource_id: `a ${type} id is ${type === 'trace' ? 32 : 16} hex characters` });
  }
  return { resourceId: id.toLowerCase(), resourceKind: type, sessionId: null };
}

/** Comment text is kept as written, but must say something. */
export function checkContent(content: string): string {
  if (content.trim() === '') throw validationError('body', { content: 'must not be blank' });
  return content;
}
