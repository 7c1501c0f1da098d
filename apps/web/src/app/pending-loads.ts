import { useSyncExternalStore } from 'react';

// Code of a page being fetched (a lazy chunk): react-admin's own loading state knows only queries.
let pending = 0;
const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};

/** Counts `load` as pending until it settles; answers it unchanged. */
export function trackLoad<T>(load: Promise<T>): Promise<T> {
  pending++;
  emit();
  return load.finally(() => {
    pending--;
    emit();
  });
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** How many page chunks are being fetched now. */
export const usePendingLoads = (): number => useSyncExternalStore(subscribe, () => pending);
