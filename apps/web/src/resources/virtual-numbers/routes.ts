import { SIP_NUMBER_RELATIONS } from '@atrium/contract';
import type { ApiRoute } from '../../app/kit/apiRoutes';

/** The console's virtual numbers are the API's SIP numbers (/sip-numbers); the list searches with `search`. */
export const SIP_NUMBERS_API = 'sip-numbers';
export const VIRTUAL_NUMBER_ROUTES: Record<string, ApiRoute> = {
  'virtual-numbers': { path: SIP_NUMBERS_API, queryParams: ['search'] },
};

/** Relations the list and the edit page ask for. */
export const SIP_NUMBER_WITH = { meta: { with: [...SIP_NUMBER_RELATIONS] } };

// Server-side search of pickers: the name contains what was typed.
export const byName = (q: string) => (q ? { 'name@has': q } : {});
export const userText = (u: { name?: string; login?: string } | undefined) => (u ? `${u.name ?? ''}${u.login ? ` (${u.login})` : ''}` : '');
export const deviceText = (d: { name?: string; serial_number?: string } | undefined) =>
  d ? `${d.name ?? ''}${d.serial_number ? ` · ${d.serial_number}` : ''}` : '';
