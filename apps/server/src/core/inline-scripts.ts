import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

/** The CSP sources (`'sha256-…'`) that allow the inline scripts of an HTML page, and no other. */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
    .filter(([, attributes]) => !/\bsrc\s*=/i.test(attributes ?? ''))
    .map(
      ([, , body]) =>
        `'sha256-${createHash('sha256')
          .update(body ?? '', 'utf8')
          .digest('base64')}'`,
    );
}

/**
 * The inline-script hashes of an HTML file, read again whenever the file changes: the console is
 * served from its folder as built, so a rebuilt index.html is allowed without a restart. A missing
 * file allows none.
 */
export function fileScriptHashes(file: string): () => string[] {
  let seen: number | null = null;
  let hashes: string[] = [];
  return () => {
    let changed: number;
    try {
      changed = statSync(file).mtimeMs;
    } catch {
      // The same empty list while the file is missing, so callers see no change.
      if (seen !== null) hashes = [];
      seen = null;
      return hashes;
    }
    if (changed !== seen) {
      hashes = inlineScriptHashes(readFileSync(file, 'utf8'));
      seen = changed;
    }
    return hashes;
  };
}
