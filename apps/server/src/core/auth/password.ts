import { randomInt } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

// argon2id with OWASP's recommended minimum (19 MiB, 2 passes).
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1, algorithm: 2 } as const;

export const hashPassword = (plain: string): Promise<string> => hash(plain, OPTIONS);

export async function verifyPassword(stored: string | null, plain: string): Promise<boolean> {
  if (!stored) return false;
  try {
    return await verify(stored, plain);
  } catch {
    return false;
  }
}

/** A hash to verify against when the login does not exist, so timing does not reveal logins. */
let dummy: Promise<string> | undefined;
export const dummyHash = (): Promise<string> => {
  dummy ??= hashPassword('not-a-real-password');
  return dummy;
};

/** A readable random password: letters and digits without look-alikes. */
export function randomPassword(length = 16): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}
