import type { ReadStore } from './read-store.port.js';

export class ProjectionLagError extends Error {
  constructor(views: readonly string[], position: number) {
    super(`views ${views.join(', ')} did not reach position ${position} in time`);
    this.name = 'ProjectionLagError';
  }
}

/** How often a wait on another process's runner reads the shared checkpoint: from the first, doubling up to the last. */
export const SHARED_POLL_MS = [2, 50];

/**
 * A view without documents whose checkpoint is the position through which every view has
 * folded: committed with each batch, in the same transaction, so that another process
 * learns with one read that the views have passed a position.
 */
export const FOLDED = 'all_views';

/** Reads the shared checkpoint until it has passed `position`; rejects at `deadline` (`Date.now()`). */
export async function waitForFolded(store: ReadStore, views: readonly string[], position: number, deadline: number): Promise<void> {
  let pause = SHARED_POLL_MS[0];
  while (((await store.viewState(FOLDED))?.position ?? 0) < position) {
    const left = deadline - Date.now();
    if (left <= 0) throw new ProjectionLagError(views, position);
    await new Promise((r) => setTimeout(r, Math.min(pause, left)));
    pause = Math.min(pause * 2, SHARED_POLL_MS[1]);
  }
}
