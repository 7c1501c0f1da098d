import { AppleWalletSettingsSchema, dataResponse, UpdateAppleWalletBodySchema } from '@atrium/contract';
import type { AppInstance } from '../../app.js';

/** Project settings, Apple Wallet tab: GET and PATCH /general-settings/apple-wallet (spec comms §7). */
export async function settingsRoutes(app: AppInstance): Promise<void> {
  const { appleWallet } = app.services;
  const tags = ['project settings'];
  app.get(
    '/general-settings/apple-wallet',
    { schema: { tags, response: { 200: dataResponse(AppleWalletSettingsSchema) } } },
    async (req) => ({
      data: await appleWallet.get(req.actor),
    }),
  );
  app.patch(
    '/general-settings/apple-wallet',
    { schema: { tags, body: UpdateAppleWalletBodySchema, response: { 200: dataResponse(AppleWalletSettingsSchema) } } },
    async (req) => ({ data: await appleWallet.update(req.ctx, req.body) }),
  );
}
