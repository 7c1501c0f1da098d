import { AppleWalletSettingsSchema, dataResponse, UpdateAppleWalletBodySchema } from '@atrium/contract';
import type { AppInstance } from '../../app.js';

/** Project settings, Apple Wallet tab: GET and PATCH /settings/apple-wallet (spec comms §7; the settings issue names the paths /settings/…). */
export async function settingsRoutes(app: AppInstance): Promise<void> {
  const { appleWallet } = app.services;
  const tags = ['project settings'];
  app.get('/settings/apple-wallet', { schema: { tags, response: { 200: dataResponse(AppleWalletSettingsSchema) } } }, async (req) => ({
    data: await appleWallet.get(req.actor),
  }));
  app.patch(
    '/settings/apple-wallet',
    { schema: { tags, body: UpdateAppleWalletBodySchema, response: { 200: dataResponse(AppleWalletSettingsSchema) } } },
    async (req) => ({ data: await appleWallet.update(req.ctx, req.body) }),
  );
}
