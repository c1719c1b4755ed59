/**
 * The check of routes declared `appWide` (http/route.ts): what every environment of an app shares
 * is changed by a tenant admin, or by a lower pin under its own label (core/admin/rules.ts).
 */
import { changesAppWide } from '../core/admin/rules.js';
import { ApiError } from '../core/errors.js';
import type { Principal } from './principal.js';
import type { AnyRoute, RouteInput } from './route.js';

/**
 * 403 when a route that changes an app-wide object is called by a credential pinned below
 * production, unless every prompt label the request names is its own environment's.
 */
export function authorizeAppWide(
  principal: Principal,
  route: AnyRoute,
  input: RouteInput<unknown, unknown, unknown>,
): void {
  const change = route.appWide;
  const pin = principal.pin ?? null;
  if (change === undefined || changesAppWide(pin, change.labels?.(input) ?? [])) return;
  throw new ApiError(
    'forbidden',
    `This key is pinned to the ${pin!.kind} environment "${pin!.name}" and may not ${change.what}: it is shared by every environment of the app, so only an unpinned or production-pinned credential may${change.labels ? `, or this key for the "${pin!.name}" label alone` : ''}`,
  );
}
