import {
  AvailableRoleSchema,
  BulkDeleteBodySchema,
  CreateRoleBodySchema,
  dataResponse,
  IdParamsSchema,
  listResponse,
  RoleBulkDeleteResultSchema,
  RoleDeleteQuerySchema,
  RoleListQuerySchema,
  RoleSchema,
  UpdateRoleBodySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';

export async function rolesRoutes(app: AppInstance): Promise<void> {
  const { roles } = app.services;
  const tags = ['roles'];

  app.get(
    '/roles',
    { config: { cache: true }, schema: { tags, querystring: RoleListQuerySchema, response: { 200: listResponse(RoleSchema) } } },
    (req) => roles.list(req.actor, req.query),
  );

  app.get(
    '/roles/available',
    { config: { cache: true }, schema: { tags, response: { 200: dataResponse(z.array(AvailableRoleSchema)) } } },
    async (req) => ({
      data: await roles.available(req.actor),
    }),
  );

  app.get('/roles/:id', { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(RoleSchema) } } }, async (req) => ({
    data: await roles.get(req.actor, req.params.id),
  }));

  app.put('/roles', { schema: { tags, body: CreateRoleBodySchema, response: { 200: dataResponse(RoleSchema) } } }, async (req) => ({
    data: await roles.create(req.ctx, req.body),
  }));

  app.patch(
    '/roles/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateRoleBodySchema, response: { 200: dataResponse(RoleSchema) } } },
    async (req) => ({ data: await roles.update(req.ctx, req.params.id, req.body) }),
  );

  app.delete(
    '/roles/:id',
    { schema: { tags, params: IdParamsSchema, querystring: RoleDeleteQuerySchema, response: { 200: dataResponse(z.boolean()) } } },
    async (req) => {
      await roles.delete(req.ctx, req.params.id, req.query.gently);
      return { data: true };
    },
  );

  app.post(
    '/roles/delete',
    {
      schema: {
        tags,
        querystring: RoleDeleteQuerySchema,
        body: BulkDeleteBodySchema,
        response: { 200: dataResponse(RoleBulkDeleteResultSchema) },
      },
    },
    async (req) => ({ data: await roles.bulkDelete(req.ctx, req.body.items, req.query.gently) }),
  );
}
