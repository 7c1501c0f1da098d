import type { SvgIconComponent } from '@mui/icons-material';
import AccountTreeIcon from '@mui/icons-material/AccountTree';
import BadgeIcon from '@mui/icons-material/Badge';
import CategoryIcon from '@mui/icons-material/Category';
import DevicesIcon from '@mui/icons-material/Devices';
import DialpadIcon from '@mui/icons-material/Dialpad';
import ElevatorIcon from '@mui/icons-material/Elevator';
import HistoryIcon from '@mui/icons-material/History';
import KeyIcon from '@mui/icons-material/Key';
import LabelIcon from '@mui/icons-material/Label';
import ManageHistoryIcon from '@mui/icons-material/ManageHistory';
import MonitorHeartIcon from '@mui/icons-material/MonitorHeart';
import OutboxIcon from '@mui/icons-material/Outbox';
import PeopleIcon from '@mui/icons-material/People';
import ForwardIcon from '@mui/icons-material/PhoneForwarded';
import PhoneInTalkIcon from '@mui/icons-material/PhoneInTalk';
import PolicyIcon from '@mui/icons-material/Policy';
import QrCodeIcon from '@mui/icons-material/QrCode2';
import RuleIcon from '@mui/icons-material/Rule';
import ScheduleIcon from '@mui/icons-material/Schedule';
import SecurityIcon from '@mui/icons-material/Security';
import SettingsIcon from '@mui/icons-material/Settings';
import TaskIcon from '@mui/icons-material/Task';
import TimelineIcon from '@mui/icons-material/Timeline';
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
];

/** Pages of the shell itself, always available. */
export const CORE_PATHS: readonly string[] = ['/home', '/notifications'];

const available = new Set([...CORE_PATHS, ...AREAS.flatMap((a) => a.menuPaths)]);
export const isAvailable = (path: string): boolean => available.has(path);
