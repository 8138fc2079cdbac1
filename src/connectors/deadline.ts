/**
 * Settles with `work`, or rejects with `onTimeout()` once `ms` have passed. The work is not
 * cancelled by this: the caller closes whatever it was waiting on.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/** What fetchWithin rejects with when its time ran out. */
export class DeadlineExceeded extends Error {}

/**
 * fetch, aborted once `ms` have passed, until `use` of its response has finished too (what `use`
 * does not read, it leaves to a deadline of its own). A time-out rejects with DeadlineExceeded;
 * any other failure (refused, unknown host) as fetch's own.
 */
export async function fetchWithin<T>(url: string | URL, init: RequestInit, ms: number, use: (response: Response) => T | Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, ms);
  try {
    return await use(await fetch(url, { ...init, signal: controller.signal }));
  } catch (err) {
    throw timedOut ? new DeadlineExceeded() : err;
  } finally {
    clearTimeout(timer);
  }
}

/** "5 s", "1.5 s", "800 ms": for messages. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}
