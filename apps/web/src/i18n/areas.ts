import * as kitMessages from '../app/kit/messages';
import * as dialerMessages from '../dialer/messages';
import * as dashboardMessages from '../pages/dashboardMessages';
import * as accessEventsMessages from '../resources/access-events/messages';
import * as accessMatrixMessages from '../resources/access-matrix/messages'; // access matrix
import * as accessRulesMessages from '../resources/access-rules/messages';
import * as amenitiesMessages from '../resources/amenities/messages'; // amenities (issue 13)
// announces and polls (issue 13)
import * as announcesMessages from '../resources/announces/messages';
import * as apiKeysMessages from '../resources/api-keys/messages'; // API keys (issue 14)
import * as auditEventsMessages from '../resources/audit-events/messages';
import * as backupsMessages from '../resources/backups/messages'; // backups (issue 14)
import * as callHistoryMessages from '../resources/call-history/messages';
import * as conversationsMessages from '../resources/conversations/messages'; // conversations (issue 13)
import * as deviceAlarmsMessages from '../resources/device-alarms/messages';
import * as devicesMessages from '../resources/devices/messages';
import * as domainTypesMessages from '../resources/domain-types/messages';
import * as elevatorsMessages from '../resources/elevators/messages';
// emergency alerts, lockdown and muster (issue 13)
import * as emergencyAlertsMessages from '../resources/emergency-alerts/messages';
import * as forwardRulesMessages from '../resources/forward-rules/messages';
import * as generalSettingsMessages from '../resources/general-settings/messages';
import * as groupsMessages from '../resources/groups/messages';
import * as guestAccessMessages from '../resources/guest-access/messages';
import * as identifiersMessages from '../resources/identifiers/messages';
import * as ukey2Messages from '../resources/identifiers/ukey2/messages'; // UKEY2 keys
import * as integrationsMessages from '../resources/integrations/messages'; // integrations with Axxon One (issue 14)
import * as ipBlockingMessages from '../resources/ip-blocking/messages'; // IP blocking (issue 14)
import * as licenseReportsMessages from '../resources/license-reports/messages';
import * as licensesMessages from '../resources/licenses/messages';
import * as mailTemplatesMessages from '../resources/mail-templates/messages'; // mail templates (issue 14)
import * as markersMessages from '../resources/markers/messages';
import * as outboxMessages from '../resources/outbox/messages';
import * as rolesMessages from '../resources/roles/messages';
import * as sipTrunksMessages from '../resources/sip-trunks/messages';
import * as ssoMessages from '../resources/sso/messages'; // single sign-on (issue 14)
import * as systemInfoMessages from '../resources/system-info/messages';
import * as timeRulesMessages from '../resources/time-rules/messages';
import * as usersMessages from '../resources/users/messages';
import * as virtualNumbersMessages from '../resources/virtual-numbers/messages';
import * as webhooksMessages from '../resources/webhooks/messages'; // webhooks (issue 14)
import { registerAreaMessages } from './index';

/** Every area's texts (the console's chunk loads this module; the sign-in pages never do). */
export const AREA_MESSAGES = [
  kitMessages,
  groupsMessages,
  domainTypesMessages,
  usersMessages,
  rolesMessages,
  devicesMessages,
  // device alarms (issue 13)
  deviceAlarmsMessages,
  // announces and polls (issue 13)
  announcesMessages,
  // emergency alerts, lockdown and muster (issue 13)
  emergencyAlertsMessages,
  identifiersMessages,
  ukey2Messages, // UKEY2 keys
  guestAccessMessages,
  accessEventsMessages,
  accessMatrixMessages, // access matrix
  amenitiesMessages, // amenities (issue 13)
  timeRulesMessages,
  accessRulesMessages,
  elevatorsMessages,
  virtualNumbersMessages,
  forwardRulesMessages,
  sipTrunksMessages,
  callHistoryMessages,
  conversationsMessages, // conversations (issue 13)
  markersMessages,
  mailTemplatesMessages, // mail templates (issue 14)
  integrationsMessages, // integrations with Axxon One (issue 14)
  generalSettingsMessages,
  outboxMessages,
  auditEventsMessages,
  backupsMessages, // backups (issue 14)
  systemInfoMessages,
  ipBlockingMessages, // IP blocking (issue 14)
  ssoMessages, // single sign-on (issue 14)
  // API keys and webhooks (issue 14)
  apiKeysMessages,
  webhooksMessages,
  // licences and licence reports (issue 14)
  licensesMessages,
  licenseReportsMessages,
  dashboardMessages,
  dialerMessages,
] as const;

registerAreaMessages(AREA_MESSAGES);
