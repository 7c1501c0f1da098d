import type { ApiRoute } from '../../app/kit/apiRoutes';

/** SIP trunks search by name with `search`. */
export const SIP_TRUNK_ROUTES: Record<string, ApiRoute> = { 'sip-trunks': { queryParams: ['search'] } };

/** Every scope variant of an action on SIP trunks (`can_edit_all_sip_trunks`, …). */
export const trunkScopes = (action: 'view' | 'edit' | 'delete') =>
  ['all', 'domain', 'descendants', 'own'].map((scope) => `can_${action}_${scope}_sip_trunks`);
