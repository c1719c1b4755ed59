import type { AnyRoute } from '../route.js';

/** Environments and app administration. */
export const adminRoutes: AnyRoute[] = [];
