/** How many rows a preview may return: a default, and a cap that no request can lift. */
export const DEFAULT_PREVIEW_ROWS = 100;
export const MAX_PREVIEW_ROWS = 1000;

/**
 * The number of rows to fetch for a requested limit: the default when none is given,
 * at most MAX_PREVIEW_ROWS; undefined when the request is not a whole number >= 1.
 */
export function previewRowLimit(requested: number | undefined): number | undefined {
  if (requested === undefined) return DEFAULT_PREVIEW_ROWS;
  if (!Number.isInteger(requested) || requested < 1) return undefined;
  return Math.min(requested, MAX_PREVIEW_ROWS);
}
