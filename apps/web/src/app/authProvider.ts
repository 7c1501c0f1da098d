import type { Profile } from '@atrium/contract';
import type { QueryClient } from '@tanstack/react-query';
import type { AuthProvider } from 'ra-core';
import { signOut } from './auth';
import { ApiError, http } from './http';
import { sessionStore } from './session';

export const PROFILE_KEY = ['profile'] as const;

export const profileQuery = {
  queryKey: PROFILE_KEY,
  queryFn: ({ signal }: { signal?: AbortSignal }) => http.data<Profile>('/profile', { signal }),
  staleTime: 5 * 60_000,
};

/**
 * react-admin's auth provider. Sign-in happens on our own /login page (outside react-admin); the
 * route guards send signed-out users there. A 401 reaching react-admin means the one refresh has
 * already failed (see http.ts), so the session is over.
 */
export function createAuthProvider(queryClient: QueryClient): AuthProvider {
  return {
    login: () => Promise.reject(new Error('sign in on /login')),
    logout: async () => {
      signOut();
      return '/login';
    },
    checkAuth: () => (sessionStore.token() ? Promise.resolve() : Promise.reject({ message: false, redirectTo: '/login' })),
    checkError: (error: unknown) => {
      const status = error instanceof ApiError ? error.status : (error as { status?: number } | null)?.status;
      if (status === 401) {
        if (sessionStore.get().session) sessionStore.end('expired');
        return Promise.reject({ message: false, redirectTo: false, logoutUser: false });
      }
      return Promise.resolve();
    },
    getIdentity: async () => {
      const p = await queryClient.fetchQuery(profileQuery);
      return { id: p.id, fullName: p.name, avatar: p.avatar_url ?? undefined };
    },
    getPermissions: async () => (await queryClient.fetchQuery(profileQuery)).role?.permissions ?? [],
  };
}
