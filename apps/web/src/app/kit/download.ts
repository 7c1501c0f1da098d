import { API_BASE, ApiError, buildUrl, type RequestOptions } from '../http';
import { sessionStore } from '../session';

/** Spec core §9: imports, exports and backups may take up to an hour. */
export const LONG_TIMEOUT_MS = 60 * 60_000;

/** The file name of a `content-disposition` header, if it gives one. */
export function fileNameOf(disposition: string | null, fallback: string): string {
  const m = disposition ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition) : null;
  return m?.[1] ? decodeURIComponent(m[1]) : fallback;
}

/** Fetches a file the API answers (an image, a spreadsheet, an archive) with the bearer token: the JSON client cannot carry binary bodies. */
export async function fetchFile(
  path: string,
  query: RequestOptions['query'],
  signal?: AbortSignal,
): Promise<{ blob: Blob; name: string | null }> {
  const token = sessionStore.get().session?.token;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), LONG_TIMEOUT_MS);
  signal?.addEventListener('abort', () => controller.abort());
  try {
    const res = await fetch(buildUrl(API_BASE, path, query), {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
      signal: controller.signal,
    });
    if (!res.ok) {
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      const message = (body as { message?: unknown } | null)?.message;
      throw new ApiError(res.status, typeof message === 'string' ? message : res.statusText, body);
    }
    const disposition = res.headers.get('content-disposition');
    return { blob: await res.blob(), name: disposition ? fileNameOf(disposition, '') || null : null };
  } finally {
    clearTimeout(timer);
  }
}

/** Hands a blob to the browser as a download. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Downloads a file the API answers and hands it to the browser under the name the server gives. */
export async function downloadFile(path: string, query: RequestOptions['query'], fallbackName: string): Promise<void> {
  const { blob, name } = await fetchFile(path, query);
  saveBlob(blob, name ?? fallbackName);
}

/** The caller's offset from UTC in minutes, as imports and exports take it (`tz_offset`). */
export const tzOffsetMinutes = (date = new Date()): number => -date.getTimezoneOffset();
