import {
  AvatarCropSchema,
  BulkDeleteBodySchema,
  BulkDeleteResultSchema,
  CreateUserBodySchema,
  dataResponse,
  IdParamsSchema,
  listResponse,
  MailDeliverySchema,
  SetUserPasswordBodySchema,
  UpdateUserBodySchema,
  UserListQuerySchema,
  UserSchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';
import { AppError } from '../../core/errors.js';

const Ok = dataResponse(z.boolean());
const WithQuery = z.object({ with: UserListQuerySchema.shape.with });

/**
 * What the users list is read from: the users, their groups (and the group tree the scopes walk),
 * roles, markers and mobile clients. A device, a task or a notification leaves it cached.
 */
const USERS_LIST_CACHE = { tables: ['users', 'user_groups', 'groups', 'roles', 'markers', 'user_markers', 'mobile_clients'] } as const;

export async function usersRoutes(app: AppInstance): Promise<void> {
  const { users } = app.services;
  const tags = ['users'];

  app.get(
    '/users',
    {
      config: { cache: USERS_LIST_CACHE },
      schema: { tags, querystring: UserListQuerySchema, response: { 200: listResponse(UserSchema) } },
      // toUser builds each row key by key in the contract's order, and nothing else: encoding every
      // page through zod again on the way out cost a list call about as much as its statement's
      // parameters and rows. users.routes.test.ts checks the text is exactly what the schema gives.
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    (req) => users.list(req.actor, req.query),
  );

  app.get(
    '/users/:id',
    { schema: { tags, params: IdParamsSchema, querystring: WithQuery, response: { 200: dataResponse(UserSchema) } } },
    async (req) => ({ data: await users.get(req.actor, req.params.id, req.query.with) }),
  );

  app.put('/users', { schema: { tags, body: CreateUserBodySchema, response: { 200: dataResponse(UserSchema) } } }, async (req) => ({
    data: await users.create(req.ctx, req.body),
  }));

  app.patch(
    '/users/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateUserBodySchema, response: { 200: dataResponse(UserSchema) } } },
    async (req) => ({ data: await users.update(req.ctx, req.params.id, req.body) }),
  );

  app.delete('/users/:id', { schema: { tags, params: IdParamsSchema, response: { 200: Ok } } }, async (req) => {
    await users.delete(req.ctx, req.params.id);
    return { data: true };
  });

  app.post(
    '/users/delete',
    { schema: { tags, body: BulkDeleteBodySchema, response: { 200: dataResponse(BulkDeleteResultSchema) } } },
    async (req) => ({ data: await users.bulkDelete(req.ctx, req.body.items) }),
  );

  app.post(
    '/users/:id/password',
    { schema: { tags, params: IdParamsSchema, body: SetUserPasswordBodySchema, response: { 200: Ok } } },
    async (req) => {
      await users.setPassword(req.ctx, req.params.id, req.body.new_password);
      return { data: true };
    },
  );

  app.post(
    '/users/:id/unlock',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.object({ id: z.number() })) } } },
    async (req) => ({ data: await users.unlockSignIn(req.ctx, req.params.id) }),
  );

  app.post(
    '/users/:id/registration-link',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(MailDeliverySchema) } } },
    async (req) => ({ data: await users.sendRegistrationLink(req.ctx, req.params.id) }),
  );

  app.post(
    '/users/:id/avatar',
    { schema: { tags, params: IdParamsSchema, consumes: ['multipart/form-data'], response: { 200: dataResponse(UserSchema) } } },
    async (req) => {
      if (!req.isMultipart()) throw new AppError('wrong_file_body', [{ field: 'image', message: 'field is required' }]);
      let image: Buffer | undefined;
      const fields: Record<string, string> = {};
      for await (const part of req.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== 'image') throw new AppError('wrong_file_body', [{ field: part.fieldname, message: 'unexpected file' }]);
          image = await part.toBuffer();
        } else {
          fields[part.fieldname] = String(part.value);
        }
      }
      if (!image) throw new AppError('wrong_file_body', [{ field: 'image', message: 'field is required' }]);
      const crop = AvatarCropSchema.safeParse(fields);
      if (!crop.success) {
        throw new AppError(
          'invalid_data',
          crop.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
        );
      }
      return { data: await users.setAvatar(req.ctx, req.params.id, image, crop.data) };
    },
  );

  app.delete(
    '/users/:id/avatar',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(UserSchema) } } },
    async (req) => ({
      data: await users.removeAvatar(req.ctx, req.params.id),
    }),
  );
}
