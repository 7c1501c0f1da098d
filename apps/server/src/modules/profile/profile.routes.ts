import { ChangePasswordBodySchema, MobilePopupBodySchema, ProfileSchema, UpdateProfileBodySchema } from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';
import { LICENSE_CACHE_MS } from '../frontend/license.service.js';

const ProfileAnswer = z.object({ data: ProfileSchema });
const Ok = z.object({ data: z.boolean() });

/** What GET /profile is read from: the user, role, project, groups, master number and licences. */
const PROFILE_CACHE = {
  tables: ['users', 'roles', 'projects', 'groups', 'user_groups', 'sip_numbers', 'licenses', 'mobile_clients', 'identifiers'],
  maxAgeMs: LICENSE_CACHE_MS,
} as const;

export async function profileRoutes(app: AppInstance): Promise<void> {
  const { profile } = app.services;
  const tags = ['profile'];

  // The console's first call on every page: kept while nothing it is read from changes, and at most as
  // long as the licence state it shows is kept (modules/frontend/license.service.ts).
  app.get('/profile', { config: { cache: PROFILE_CACHE }, schema: { tags, response: { 200: ProfileAnswer } } }, async (req) => ({
    data: await profile.get(req.actor),
  }));

  app.patch('/profile', { schema: { tags, body: UpdateProfileBodySchema, response: { 200: ProfileAnswer } } }, async (req) => ({
    data: await profile.update(req.ctx, req.body),
  }));

  app.post('/profile/password', { schema: { tags, body: ChangePasswordBodySchema, response: { 200: Ok } } }, async (req) => {
    await profile.changePassword(req.ctx, req.body);
    return { data: true };
  });

  app.patch(
    '/profile/mobile-client/popup/active',
    { schema: { tags, body: MobilePopupBodySchema, response: { 200: ProfileAnswer } } },
    async (req) => ({ data: await profile.setPopupActive(req.ctx, req.body.is_app_popup_active) }),
  );

  app.delete('/account', { schema: { tags, response: { 200: Ok } } }, async (req) => {
    await profile.deleteAccount(req.ctx);
    return { data: true };
  });

  app.post('/profile/avatar', { schema: { tags, consumes: ['multipart/form-data'], response: { 200: ProfileAnswer } } }, async (req) => {
    const file = await req.file();
    if (file?.fieldname !== 'image') throw new AppError('wrong_file_body', [{ field: 'image', message: 'field is required' }]);
    return { data: await profile.setAvatar(req.ctx, await file.toBuffer()) };
  });

  app.delete('/profile/avatar', { schema: { tags, response: { 200: ProfileAnswer } } }, async (req) => ({
    data: await profile.removeAvatar(req.ctx),
  }));
}
