import { sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import { projects } from '../modules/projects/projects.table.js';
import { type DbOrTx, queryRows } from './db/client.js';
import { type FileStore, sniffImage } from './files.js';
import type { CompanyInfo } from './mail/templates.js';
import { Kept, type ReadCache } from './read-cache.js';

/** What the mails and links of a project are made with. */
export interface ProjectMailInfo {
  /** Where people and devices reach Atrium: the general settings' server URL, else PUBLIC_URL; no trailing slash. */
  linkBase: string;
  /** The management company (white-label settings). */
  company: CompanyInfo;
}

/** An image sent inside a mail (core/mail/smtp.ts). */
export interface InlineImage {
  cid: string;
  filename: string;
  contentType: string;
  content: Buffer;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * A project's link base and management company, read from its settings document. Every mail and
 * every link Atrium hands out (registration, recovery, announces, guest keys, emergency sounds,
 * single sign-on) is built from `linkBase`, so one place decides between the project's `server_url`
 * and the server's PUBLIC_URL. Answers are kept under the read cache's generation (core/read-cache.ts):
 * a change of the project (any instance's, through the change feed) is seen by the next read, and
 * an announce to 100,000 people reads the settings once, not once per recipient.
 */
export class ProjectInfo {
  private readonly kept: Kept<ProjectMailInfo>;
  private readonly logos: Kept<InlineImage | null>;
  /** Logo files by key: a key names one upload (a new logo gets a new key), so its bytes never change. */
  private readonly logoBytes = new LRUCache<string, Buffer>({ max: 64 });

  constructor(
    private readonly db: DbOrTx,
    private readonly fallbackUrl: string,
    private readonly files: Pick<FileStore, 'find'> | null,
    cache?: Pick<ReadCache, 'begin'>,
  ) {
    const generation = cache ? () => cache.begin() : () => undefined;
    this.kept = new Kept(10_000, generation);
    this.logos = new Kept(1_000, generation);
  }

  /** The project's link base and company; `db`: the caller's transaction, when it has one. */
  of(projectId: number, db?: DbOrTx): Promise<ProjectMailInfo> {
    return this.kept.get(String(projectId), () => this.read(projectId, db ?? this.db), undefined, db === undefined);
  }

  /** Where links of the project lead: its server URL when set, else PUBLIC_URL (no trailing slash). */
  async linkBase(projectId: number, db?: DbOrTx): Promise<string> {
    return (await this.of(projectId, db)).linkBase;
  }

  /** An absolute link into Atrium for the project: `path` starts with '/'. */
  async link(projectId: number, path: string, db?: DbOrTx): Promise<string> {
    return `${await this.linkBase(projectId, db)}${path}`;
  }

  /** The project's logo as an inline image of a mail, or null when it has none (or its file is gone). */
  logo(projectId: number, cid: string): Promise<InlineImage | null> {
    return this.logos.get(`${projectId}\n${cid}`, async () => {
      const key = (await this.of(projectId)).company.logoKey;
      if (!key || !this.files) return null;
      let content = this.logoBytes.get(key);
      if (!content) {
        const found = await this.files.find(key);
        if (!found) return null;
        content = found;
        this.logoBytes.set(key, content);
      }
      let type: { type: string; ext: string };
      try {
        type = sniffImage(content);
      } catch {
        return null;
      }
      return { cid, filename: `logo.${type.ext}`, contentType: type.type, content };
    });
  }

  private async read(projectId: number, db: DbOrTx): Promise<ProjectMailInfo> {
    const [row] = await queryRows<{ server_url: unknown; white_label: Record<string, unknown> | null }>(
      db,
      sql`SELECT ${projects.settings} -> 'server_url' AS server_url, ${projects.settings} -> 'white_label' AS white_label
        FROM ${projects} WHERE ${projects.id} = ${projectId}`,
    );
    const wl = row?.white_label ?? {};
    return {
      linkBase: (text(row?.server_url) ?? this.fallbackUrl).replace(/\/+$/, ''),
      company: {
        name: text(wl.name),
        address: text(wl.address),
        email: text(wl.email),
        phone: text(wl.phone),
        logoKey: text(wl.logo),
      },
    };
  }
}
