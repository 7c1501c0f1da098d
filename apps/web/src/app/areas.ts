import type { SvgIconComponent } from '@mui/icons-material';
import AccountTreeIcon from '@mui/icons-material/AccountTree';
import AnnouncementIcon from '@mui/icons-material/Announcement'; // announces (issue 13)
import AssessmentIcon from '@mui/icons-material/Assessment';
import BackupIcon from '@mui/icons-material/Backup'; // backups (issue 14)
import BadgeIcon from '@mui/icons-material/Badge';
import BlockIcon from '@mui/icons-material/Block'; // IP blocking (issue 14)
import CampaignIcon from '@mui/icons-material/Campaign';
import CardMembershipIcon from '@mui/icons-material/CardMembership';
import CategoryIcon from '@mui/icons-material/Category';
import ChatIcon from '@mui/icons-material/Chat';
import DevicesIcon from '@mui/icons-material/Devices';
import DialpadIcon from '@mui/icons-material/Dialpad';
import ElevatorIcon from '@mui/icons-material/Elevator';
import EventAvailableIcon from '@mui/icons-material/EventAvailable'; // amenities (issue 13)
import EventNoteIcon from '@mui/icons-material/EventNote'; // amenities (issue 13)
import FactCheckIcon from '@mui/icons-material/FactCheck';
import GridOnIcon from '@mui/icons-material/GridOn'; // access matrix
import HistoryIcon from '@mui/icons-material/History';
import KeyIcon from '@mui/icons-material/Key';
import LabelIcon from '@mui/icons-material/Label';
import LockIcon from '@mui/icons-material/Lock';
import LoginIcon from '@mui/icons-material/Login'; // single sign-on (issue 14)
import MailIcon from '@mui/icons-material/Mail'; // mail templates (issue 14)
import ManageHistoryIcon from '@mui/icons-material/ManageHistory';
import MonitorHeartIcon from '@mui/icons-material/MonitorHeart';
import NotificationImportantIcon from '@mui/icons-material/NotificationImportant';
import OutboxIcon from '@mui/icons-material/Outbox';
import PeopleIcon from '@mui/icons-material/People';
import PhoneCallbackIcon from '@mui/icons-material/PhoneCallback';
import ForwardIcon from '@mui/icons-material/PhoneForwarded';
import PhoneInTalkIcon from '@mui/icons-material/PhoneInTalk';
import PolicyIcon from '@mui/icons-material/Policy';
import PollIcon from '@mui/icons-material/Poll'; // announces (issue 13)
import QrCodeIcon from '@mui/icons-material/QrCode2';
import RuleIcon from '@mui/icons-material/Rule';
import ScheduleIcon from '@mui/icons-material/Schedule';
import SecurityIcon from '@mui/icons-material/Security';
import SettingsIcon from '@mui/icons-material/Settings';
import TaskIcon from '@mui/icons-material/Task';
import TimelineIcon from '@mui/icons-material/Timeline';
import VideocamIcon from '@mui/icons-material/Videocam'; // integrations with Axxon One (issue 14)
import VpnKeyIcon from '@mui/icons-material/VpnKey'; // UKEY2 keys
import WebhookIcon from '@mui/icons-material/Webhook'; // webhooks (issue 14)
import type { ComponentType } from 'react';

/** What a resource module exports as default (`src/resources/<area>/index.ts`, CONVENTIONS). */
export interface AreaModule {
  list?: ComponentType;
  edit?: ComponentType;
  create?: ComponentType;
  show?: ComponentType;
}

/** A built area: mounted as a react-admin resource, shown in the menu at its paths. */
export interface AreaDefinition {
  /** The react-admin resource name, which is also its API path (`users`, `devices/events`). */
  name: string;
  /** The menu entries (paths of menu-rules.ts) this area serves. */
  menuPaths: readonly string[];
  /** The pages the module has, so routes exist before its code is loaded. */
  parts: readonly (keyof AreaModule)[];
  icon: SvgIconComponent;
  /** Loads the module lazily: each area is its own chunk. */
  load: () => Promise<{ default: AreaModule }>;
}

/**
 * The registry of areas that exist. An area whose issue has not landed is simply not listed: its
 * menu entries stay hidden and its paths answer not-found. Add one line per area, e.g.
 * `{ name: 'users', menuPaths: ['/users'], parts: ['list', 'edit', 'create'], icon: PeopleIcon, load: () => import('../resources/users') }`.
 */
export const AREAS: readonly AreaDefinition[] = [
  { name: 'users', menuPaths: ['/users'], parts: ['list', 'edit', 'create'], icon: PeopleIcon, load: () => import('../resources/users') },
  { name: 'roles', menuPaths: ['/roles'], parts: ['list', 'edit', 'create'], icon: BadgeIcon, load: () => import('../resources/roles') },
  {
    name: 'groups',
    menuPaths: ['/groups'],
    parts: ['list', 'edit', 'create'],
    icon: AccountTreeIcon,
    load: () => import('../resources/groups'),
  },
  { name: 'domain-types', menuPaths: [], parts: ['list'], icon: CategoryIcon, load: () => import('../resources/domain-types') },
  // Device tasks and events before devices: react-admin matches `devices/tasks` as its own resource, not a device id.
  {
    name: 'devices/tasks',
    menuPaths: ['/devices/tasks'],
    parts: ['list'],
    icon: TaskIcon,
    load: () => import('../resources/devices/tasks'),
  },
  {
    name: 'devices/events',
    menuPaths: ['/devices/events'],
    parts: ['list'],
    icon: TimelineIcon,
    load: () => import('../resources/devices/events'),
  },
  // Device alarms and SOS calls (issue 13): the API's /alarms and /alarms/calls (ApiRoutes path).
  {
    name: 'devices/alarms',
    menuPaths: ['/devices/alarms'],
    parts: ['list', 'edit'],
    icon: NotificationImportantIcon,
    load: () => import('../resources/device-alarms'),
  },
  {
    name: 'devices/alarms-calls',
    menuPaths: ['/devices/alarms-calls'],
    parts: ['list'],
    icon: PhoneCallbackIcon,
    load: () => import('../resources/device-alarms/calls'),
  },
  {
    name: 'devices',
    menuPaths: ['/devices'],
    parts: ['list', 'edit', 'create'],
    icon: DevicesIcon,
    load: () => import('../resources/devices'),
  },
  {
    name: 'schedules',
    menuPaths: ['/schedules'],
    parts: ['list', 'edit', 'create'],
    icon: ScheduleIcon,
    load: () => import('../resources/time-rules'),
  },
  {
    name: 'access-rules',
    menuPaths: ['/access-rules'],
    parts: ['list', 'edit', 'create'],
    icon: RuleIcon,
    load: () => import('../resources/access-rules'),
  },
  {
    name: 'identifiers',
    menuPaths: ['/identifiers'],
    parts: ['list', 'edit', 'create'],
    icon: KeyIcon,
    load: () => import('../resources/identifiers'),
  },
  // UKEY2 keys: view only (the list and /ukey2/:id/edit), with the identifiers' helpers
  { name: 'ukey2', menuPaths: ['/ukey2'], parts: ['list', 'edit'], icon: VpnKeyIcon, load: () => import('../resources/identifiers/ukey2') },
  {
    name: 'guest-access',
    menuPaths: ['/guest-access'],
    parts: ['list', 'edit', 'create'],
    icon: QrCodeIcon,
    load: () => import('../resources/guest-access'),
  },
  // The menu's /access-control/events; its pages reach the API's /access-control/logs (ApiRoutes path).
  {
    name: 'access-control/events',
    menuPaths: ['/access-control/events'],
    parts: ['list'],
    icon: SecurityIcon,
    load: () => import('../resources/access-events'),
  },
  // access matrix: list and download only
  {
    name: 'access-matrix',
    menuPaths: ['/access-matrix'],
    parts: ['list'],
    icon: GridOnIcon,
    load: () => import('../resources/access-matrix'),
  },
  // Elevator events and access rules before elevators: react-admin matches them as their own resources, not elevator ids.
  {
    name: 'elevators/events',
    menuPaths: ['/elevators/events'],
    parts: ['list'],
    icon: TimelineIcon,
    load: () => import('../resources/elevators/events'),
  },
  {
    name: 'elevators/access-rules',
    menuPaths: ['/elevators/access-rules'],
    parts: ['list', 'edit', 'create'],
    icon: PolicyIcon,
    load: () => import('../resources/elevators/access-rules'),
  },
  {
    name: 'elevators',
    menuPaths: ['/elevators'],
    parts: ['list', 'edit', 'create'],
    icon: ElevatorIcon,
    load: () => import('../resources/elevators'),
  },
  // The menu's /audit-events; its pages reach the API's /audit/items (ApiRoutes path).
  {
    name: 'audit-events',
    menuPaths: ['/audit-events'],
    parts: ['list'],
    icon: ManageHistoryIcon,
    load: () => import('../resources/audit-events'),
  },
  // backups (issue 14)
  { name: 'backups', menuPaths: ['/backups'], parts: ['list'], icon: BackupIcon, load: () => import('../resources/backups') },
  // licences and licence reports (issue 14)
  { name: 'licenses', menuPaths: ['/licenses'], parts: ['list'], icon: CardMembershipIcon, load: () => import('../resources/licenses') },
  {
    name: 'reports/licenses',
    menuPaths: ['/reports/licenses'],
    parts: ['list'],
    icon: AssessmentIcon,
    load: () => import('../resources/license-reports'),
  },
  // API keys and webhooks (issue 14)
  { name: 'api-keys', menuPaths: ['/api-keys'], parts: ['list'], icon: KeyIcon, load: () => import('../resources/api-keys') },
  { name: 'webhooks', menuPaths: ['/webhooks'], parts: ['list'], icon: WebhookIcon, load: () => import('../resources/webhooks') },
  // single sign-on (issue 14)
  { name: 'sso-providers', menuPaths: ['/sso-providers'], parts: ['list'], icon: LoginIcon, load: () => import('../resources/sso') },
  // IP blocking (issue 14)
  { name: 'ip-blocking', menuPaths: ['/ip-blocking'], parts: ['list'], icon: BlockIcon, load: () => import('../resources/ip-blocking') },
  {
    name: 'system-info',
    menuPaths: ['/system-info'],
    parts: ['list'],
    icon: MonitorHeartIcon,
    load: () => import('../resources/system-info'),
  },
  // Project settings (spec comms §3): the tabs that exist so far; markers are managed there and at /markers.
  {
    name: 'general-settings',
    menuPaths: ['/general-settings'],
    parts: ['list'],
    icon: SettingsIcon,
    load: () => import('../resources/general-settings'),
  },
  { name: 'markers', menuPaths: [], parts: ['list', 'edit', 'create'], icon: LabelIcon, load: () => import('../resources/markers') },
  // integrations with Axxon One (issue 14)
  {
    name: 'integrations',
    menuPaths: ['/integrations'],
    parts: ['list'],
    icon: VideocamIcon,
    load: () => import('../resources/integrations'),
  },
  // mail templates (issue 14)
  {
    name: 'mail-templates',
    menuPaths: ['/mail-templates'],
    parts: ['list'],
    icon: MailIcon,
    load: () => import('../resources/mail-templates'),
  },
  // Telephony (spec comms §2): the console's virtual numbers are the API's /sip-numbers, call history its /calls/history/items.
  {
    name: 'virtual-numbers',
    menuPaths: ['/virtual-numbers'],
    parts: ['list', 'edit', 'create'],
    icon: DialpadIcon,
    load: () => import('../resources/virtual-numbers'),
  },
  {
    name: 'forward-rules',
    menuPaths: ['/forward-rules'],
    parts: ['list', 'edit', 'create'],
    icon: ForwardIcon,
    load: () => import('../resources/forward-rules'),
  },
  {
    name: 'sip-trunks',
    menuPaths: ['/sip-trunks'],
    parts: ['list', 'edit', 'create'],
    icon: PhoneInTalkIcon,
    load: () => import('../resources/sip-trunks'),
  },
  {
    name: 'call-history',
    menuPaths: ['/call-history'],
    parts: ['list'],
    icon: HistoryIcon,
    load: () => import('../resources/call-history'),
  },
  { name: 'outbox', menuPaths: ['/outbox'], parts: ['list'], icon: OutboxIcon, load: () => import('../resources/outbox') },
  // Amenities and reservations (issue 13): reservations before amenities, so `amenities/reservations` is not read as an amenity id.
  {
    name: 'amenities/reservations',
    menuPaths: ['/amenities/reservations'],
    parts: ['list', 'edit', 'create'],
    icon: EventNoteIcon,
    load: () => import('../resources/amenities/reservations'),
  },
  {
    name: 'amenities',
    menuPaths: ['/amenities'],
    parts: ['list', 'edit', 'create'],
    icon: EventAvailableIcon,
    load: () => import('../resources/amenities'),
  },
  // Emergency alerts (issue 13): the console's /emergency-alerts are the API's /emergency; lockdown and muster are pages of the same area.
  {
    name: 'emergency-alerts',
    menuPaths: ['/emergency-alerts'],
    parts: ['list', 'edit', 'create'],
    icon: CampaignIcon,
    load: () => import('../resources/emergency-alerts'),
  },
  {
    name: 'emergency-lockdown',
    menuPaths: ['/emergency-lockdown'],
    parts: ['list'],
    icon: LockIcon,
    load: () => import('../resources/emergency-alerts/lockdown'),
  },
  {
    name: 'emergency-muster',
    menuPaths: ['/emergency-muster'],
    parts: ['list'],
    icon: FactCheckIcon,
    load: () => import('../resources/emergency-alerts/muster'),
  },
  // Conversations (issue 13): the list here; one conversation is App.tsx's route /conversation/:id.
  {
    name: 'conversations',
    menuPaths: ['/conversations'],
    parts: ['list'],
    icon: ChatIcon,
    load: () => import('../resources/conversations'),
  },
  // Announces and polls (issue 13): the API's /announcements; the poll responses before announces (react-admin
  // would take `announces/response` for an announce id); the recipient's /announce/:token is Root.tsx's.
  {
    name: 'announces/response',
    menuPaths: ['/announces/response'],
    parts: ['list'],
    icon: PollIcon,
    load: () => import('../resources/announces/responses'),
  },
  {
    name: 'announces',
    menuPaths: ['/announces'],
    parts: ['list', 'edit', 'create'],
    icon: AnnouncementIcon,
    load: () => import('../resources/announces'),
  },
];

/** Pages of the shell itself, and pages on routes of their own (App.tsx), always available. */
export const CORE_PATHS: readonly string[] = ['/home', '/notifications', '/access-control/explain'];

const available = new Set([...CORE_PATHS, ...AREAS.flatMap((a) => a.menuPaths)]);
export const isAvailable = (path: string): boolean => available.has(path);
