import { startMailRelay } from './tests/support/mailbox';

/** One SMTP server for the whole run, on the port the e2e server relays its mail to (tests/support/mailbox.ts). */
export default async function globalSetup(): Promise<() => Promise<void>> {
  return startMailRelay();
}
