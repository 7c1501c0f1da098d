import type { LicenseInfo, Profile, ServerSettings } from '@atrium/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useEffect, useMemo } from 'react';
import { isAppLocale } from '../i18n';
import { profileQuery } from './authProvider';
import { http } from './http';
import { getAppLocale, setAppLocale } from './locale';
import type { RuleContext } from './menu-rules';
import { readRaw, remove, STORAGE_KEYS } from './storage';

export const SERVER_SETTINGS_KEY = ['server-settings'] as const;
export const RESOURCES_META_KEY = ['resources-meta'] as const;

export interface ResourcesMeta {
  meta: { locales: string[]; version: string; api_version: string };
  permissions: { code: string; family: string; scope: string | null; en: string; ru: string }[];
  notification_settings: { acs: boolean };
}

interface SessionValue {
  profile: Profile;
  settings: ServerSettings | null;
  meta: ResourcesMeta | null;
  permissions: readonly string[];
  ruleContext: RuleContext;
  can: (code: string) => boolean;
  reloadProfile: () => Promise<void>;
}

const SessionContext = createContext<SessionValue | null>(null);

/** The signed-in user's profile, the server settings and the resource metadata, loaded once per sign-in. */
export function useSessionData(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSessionData outside SessionProvider');
  return value;
}

export function SessionProvider({
  children,
  loading,
  failed,
}: {
  children: ReactNode;
  loading: ReactNode;
  failed: (retry: () => void) => ReactNode;
}) {
  const queryClient = useQueryClient();
  const profile = useQuery(profileQuery);
  const settings = useQuery({
    queryKey: SERVER_SETTINGS_KEY,
    queryFn: ({ signal }) => http.data<ServerSettings>('/frontend/server/settings', { signal }),
    staleTime: 10 * 60_000,
  });
  const meta = useQuery({
    queryKey: RESOURCES_META_KEY,
    queryFn: ({ signal }) => http.data<ResourcesMeta>('/frontend/resources/meta', { signal }),
    staleTime: 30 * 60_000,
  });

  // Right after sign-in the console takes the language saved in the profile.
  useEffect(() => {
    const locale = profile.data?.locale;
    if (!locale || readRaw(STORAGE_KEYS.adoptProfileLocale, 'session') !== '1') return;
    remove(STORAGE_KEYS.adoptProfileLocale);
    if (isAppLocale(locale) && locale !== getAppLocale()) void setAppLocale(locale);
  }, [profile.data?.locale]);

  // react-admin keeps the toolbar's identity (name, avatar) in its own query: follow every profile change.
  const profileData = profile.data;
  useEffect(() => {
    if (profileData) void queryClient.invalidateQueries({ queryKey: ['auth', 'getIdentity'] });
  }, [profileData, queryClient]);

  const value = useMemo<SessionValue | null>(() => {
    if (!profile.data) return null;
    const p = profile.data;
    const permissions = p.role?.permissions ?? [];
    const serverLicense: LicenseInfo | null = settings.data?.license?.features ?? null;
    return {
      profile: p,
      settings: settings.data ?? null,
      meta: meta.data ?? null,
      permissions,
      ruleContext: {
        permissions,
        userLicense: p.license_info,
        serverLicense,
        restrictors: (p.license_state?.restrictors ?? []).map((r) => r.type),
      },
      can: (code) => permissions.includes(code),
      reloadProfile: async () => {
        await queryClient.invalidateQueries({ queryKey: profileQuery.queryKey });
        await queryClient.invalidateQueries({ queryKey: ['auth'] });
      },
    };
  }, [profile.data, settings.data, meta.data, queryClient]);

  if (profile.isError && !profile.data) return failed(() => void profile.refetch());
  if (!value) return loading;
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
