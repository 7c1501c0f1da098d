import { useSyncExternalStore } from 'react';
import { sessionStore } from './session';

/** The session snapshot, re-rendering on sign-in, refresh and sign-out. */
export const useSession = () => useSyncExternalStore(sessionStore.subscribe, sessionStore.get);
