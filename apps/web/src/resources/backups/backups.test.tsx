import { BACKUP_ENTITIES, type Backup } from '@atrium/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../app/http';
import { createI18nProvider } from '../../i18n';
import '../../i18n/areas';
import { BACKUP_PERMISSIONS, BackupsTable, backupErrorText, EntitiesPicker } from './BackupsPage';
import { en, ru } from './messages';

const leaves = (o: object, prefix = ''): [string, unknown][] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));

const wrap = (node: React.ReactNode, locale: 'en' | 'ru' = 'en') =>
  renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
        <QueryClientProvider client={new QueryClient()}>{node}</QueryClientProvider>
      </AdminContext>
    </MemoryRouter>,
  );

const backup: Backup = {
  id: 3,
  name: 'Before works',
  entities: ['groups', 'users'],
  size: 2048,
  counts: { groups: 3, users: 2 },
  created_by: 1,
  created_at: '2026-01-01T00:00:00.000Z',
  applied_at: null,
};

describe('backups page', () => {
  it('has every text in both languages, and a name for every entity', () => {
    const [e, r] = [leaves(en), leaves(ru)];
    expect(r.map(([k]) => k)).toEqual(e.map(([k]) => k));
    for (const [k, v] of [...e, ...r]) expect(v, k).toMatch(/\S/);
    for (const x of BACKUP_ENTITIES) expect((en.backups.entities as Record<string, string>)[x], x).toBeTypeOf('string');
  });

  it('offers every entity once to choose', () => {
    const html = wrap(<EntitiesPicker value={['users']} onChange={() => undefined} error={false} />);
    expect(html.match(/type="checkbox"/g)).toHaveLength(BACKUP_ENTITIES.length);
    expect(html.match(/checked=""/g)).toHaveLength(1);
    expect(wrap(<EntitiesPicker value={[]} onChange={() => undefined} error />, 'ru')).toContain('Выберите хотя бы одну сущность');
  });

  it('lists backups with the actions the caller may take', () => {
    const all = wrap(<BackupsTable backups={[backup]} onAction={() => undefined} can={() => true} />);
    for (const s of ['Before works', 'Groups and domain types, Users', '2 kB', 'Never', 'Download']) expect(all).toContain(s);
    // Applying and deleting wait in the row's menu, named after the backup.
    expect(all).toContain('aria-label="More actions: Before works"');
    const applier = wrap(<BackupsTable backups={[backup]} onAction={() => undefined} can={(c) => c === BACKUP_PERMISSIONS.apply} />);
    expect(applier).toContain('Apply');
    expect(applier).not.toContain('More actions');
    const viewer = wrap(<BackupsTable backups={[backup]} onAction={() => undefined} can={(c) => c === BACKUP_PERMISSIONS.view} />);
    for (const s of ['Download', 'Apply', 'Delete', 'type="checkbox"']) expect(viewer).not.toContain(s);
    expect(wrap(<BackupsTable backups={[]} onAction={() => undefined} can={() => true} />, 'ru')).toContain('Резервных копий пока нет');
  });

  it('names why a file was refused, in the caller’s language', () => {
    const provider = createI18nProvider('ru');
    const translate = (k: string, o?: Record<string, unknown>) => provider.translate(k, o);
    const refused = new ApiError(400, 'invalid backup image', {
      message: 'invalid backup image',
      details: [{ field: 'file', message: 'the archive expands beyond {max} MB', params: { max: 128 } }],
    });
    expect(backupErrorText(refused, translate)).toBe('Неверный образ резервной копии: Архив в распакованном виде больше 128 МБ');
  });
});
