import type { ServerSettings } from '@atrium/contract';
import { useEffect, useState } from 'react';
import { http } from '../app/http';

let cached: Promise<ServerSettings | null> | null = null;

/** Server settings for the signed-out pages (which links to offer); null until known or when unavailable. */
export function usePublicSettings(): ServerSettings | null {
  const [settings, setSettings] = useState<ServerSettings | null>(null);
  useEffect(() => {
    cached ??= http.data<ServerSettings>('/frontend/server/settings', { auth: false }).catch((error) => {
      console.error(error);
      cached = null;
      return null;
    });
    let live = true;
    void cached.then((s) => {
      if (live) setSettings(s);
    });
    return () => {
      live = false;
    };
  }, []);
  return settings;
}
