import {
  CreateDomainTypeBodySchema,
  DomainTypeSchema,
  dataResponse,
  IdParamsSchema,
  ListQuerySchema,
  listResponse,
  UpdateDomainTypeBodySchema,
} from '@atrium/contract';
import { z } from 'zod';
import type { AppInstance } from '../../app.js';

export async function domainTypesRoutes(app: AppInstance): Promise<void> {
  const { domainTypes } = app.services;
  const tags = ['domain-types'];

  app.get(
    '/domain-types',
    { config: { cache: true }, schema: { tags, querystring: ListQuerySchema, response: { 200: listResponse(DomainTypeSchema) } } },
    (req) => domainTypes.list(req.actor, req.query),
  );

  app.get(
    '/domain-types/:id',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(DomainTypeSchema) } } },
    async (req) => ({
      data: await domainTypes.get(req.actor, req.params.id),
    }),
  );

  app.put(
    '/domain-types',
    { schema: { tags, body: CreateDomainTypeBodySchema, response: { 200: dataResponse(DomainTypeSchema) } } },
    async (req) => ({ data: await domainTypes.create(req.ctx, req.body) }),
  );

  app.patch(
    '/domain-types/:id',
    { schema: { tags, params: IdParamsSchema, body: UpdateDomainTypeBodySchema, response: { 200: dataResponse(DomainTypeSchema) } } },
    async (req) => ({ data: await domainTypes.update(req.ctx, req.params.id, req.body) }),
  );

  app.delete(
    '/domain-types/:id',
    { schema: { tags, params: IdParamsSchema, response: { 200: dataResponse(z.boolean()) } } },
    async (req) => {
      await domainTypes.delete(req.ctx, req.params.id);
      return { data: true };
    },
  );
}
