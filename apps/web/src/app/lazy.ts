import { type ComponentType, lazy } from 'react';
import { trackLoad } from './pending-loads';

/** React.lazy for a named export: `lazyNamed(() => import('./pages/LoginPage'), 'LoginPage')`. */
export function lazyNamed<M extends Record<string, unknown>, K extends keyof M>(load: () => Promise<M>, name: K) {
  return lazy(async () => ({ default: (await trackLoad(load()))[name] as ComponentType }));
}

/** A failed chunk load (spec core §8: ChunkLoadError, CSS_CHUNK_LOAD_FAILED). */
export function isChunkLoadError(error: unknown): boolean {
  const e = error as { name?: unknown; message?: unknown; code?: unknown } | null;
  const text = `${e?.name ?? ''} ${e?.message ?? ''} ${e?.code ?? ''}`;
  return /ChunkLoadError|CSS_CHUNK_LOAD_FAILED|Failed to fetch dynamically imported module|Importing a module script failed|error loading dynamically imported module/i.test(
    text,
  );
}
