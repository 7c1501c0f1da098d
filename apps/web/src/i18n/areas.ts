import * as kitMessages from '../app/kit/messages';
import * as dialerMessages from '../dialer/messages';
import * as dashboardMessages from '../pages/dashboardMessages';
import * as accessEventsMessages from '../resources/access-events/messages';
import * as accessRulesMessages from '../resources/access-rules/messages';
import * as auditEventsMessages from '../resources/audit-events/messages';
import * as callHistoryMessages from '../resources/call-history/messages';
import * as devicesMessages from '../resources/devices/messages';
import * as domainTypesMessages from '../resources/domain-types/messages';
import * as elevatorsMessages from '../resources/elevators/messages';
import * as forwardRulesMessages from '../resources/forward-rules/messages';
import * as generalSettingsMessages from '../resources/general-settings/messages';
import * as groupsMessages from '../resources/groups/messages';
import * as guestAccessMessages from '../resources/guest-access/messages';
import * as identifiersMessages from '../resources/identifiers/messages';
import * as markersMessages from '../resources/markers/messages';
import * as outboxMessages from '../resources/outbox/messages';
import * as rolesMessages from '../resources/roles/messages';
import * as sipTrunksMessages from '../resources/sip-trunks/messages';
import * as systemInfoMessages from '../resources/system-info/messages';
import * as timeRulesMessages from '../resources/time-rules/messages';
import * as usersMessages from '../resources/users/messages';
import * as virtualNumbersMessages from '../resources/virtual-numbers/messages';
import { registerAreaMessages } from './index';

/** Every area's texts (the console's chunk loads this module; the sign-in pages never do). */
export const AREA_MESSAGES = [
  kitMessages,
  groupsMessages,
  domainTypesMessages,
  usersMessages,
  rolesMessages,
  devicesMessages,
  identifiersMessages,
  guestAccessMessages,
  accessEventsMessages,
  timeRulesMessages,
  accessRulesMessages,
  elevatorsMessages,
  virtualNumbersMessages,
  forwardRulesMessages,
  sipTrunksMessages,
  callHistoryMessages,
  markersMessages,
  generalSettingsMessages,
  outboxMessages,
  auditEventsMessages,
  systemInfoMessages,
  dashboardMessages,
  dialerMessages,
] as const;

registerAreaMessages(AREA_MESSAGES);
