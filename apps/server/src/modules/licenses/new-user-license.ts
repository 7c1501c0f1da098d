import {
  BasicLicenseSchema,
  type LicenseInfo,
  SelfRegisterClientSchema,
  UNLIMITED_PERIOD,
  type UserLicenseBlock,
  type UserLicenseInfo,
} from '@atrium/contract';
import { z } from 'zod';

const DAY_S = 86_400;
const StoredClients = z.array(SelfRegisterClientSchema);

/** The licence a new user is given, and which setting gave it. */
export interface NewUserLicense {
  info: Partial<UserLicenseInfo>;
  source: 'client' | 'basic';
}

/** `days` from `nowMs` as a licence period in Unix seconds; null days: none (unlimited). */
export function periodFrom(nowMs: number, days: number | null): { from: number; to: number } | undefined {
  if (days === null) return undefined;
  const from = Math.floor(nowMs / 1000);
  return { from, to: Math.min(from + days * DAY_S, UNLIMITED_PERIOD.to) };
}

/**
 * What the general settings give a new user (docs/decisions.md, "Licences of new users"):
 * - a self-registered client whose type has licence features: those features, one count each, for
 *   the client's period;
 * - anyone else (made by an administrator, invited, or a client type without features): the basic
 *   licence, `qty` mobile apps for its period, when it has a quantity.
 * A granted block is the project licence's block (its sub-features) with the user's count and
 * period; a feature the project's licence does not hold is not handed out. Null: no licence.
 */
export function newUserLicense(
  stored: { clients: unknown; basic: unknown },
  clientType: string | null,
  project: LicenseInfo,
  nowMs: number,
): NewUserLicense | null {
  const grant = (blocks: UserLicenseBlock[], count: number, days: number | null): Partial<UserLicenseInfo> | null => {
    const period = periodFrom(nowMs, days);
    const info: Partial<UserLicenseInfo> = {};
    for (const b of blocks) {
      if (!project[b].is_enabled) continue;
      info[b] = { ...project[b], license_count: count, ...(period ? { period } : {}) } as never;
    }
    return Object.keys(info).length ? info : null;
  };
  if (clientType !== null) {
    const clients = StoredClients.safeParse(stored.clients);
    const client = clients.success ? clients.data.find((c) => c.type === clientType) : undefined;
    if (client?.license_settings.features.length) {
      const info = grant([...client.license_settings.features], 1, client.license_settings.period);
      return info ? { info, source: 'client' } : null;
    }
  }
  const basic = BasicLicenseSchema.safeParse(stored.basic);
  if (!basic.success || basic.data.qty === null) return null;
  const info = grant(['mobile_app'], basic.data.qty, basic.data.period);
  return info ? { info, source: 'basic' } : null;
}
