import type { SvgIconComponent } from '@mui/icons-material';
import AccountTreeIcon from '@mui/icons-material/AccountTree';
import AssessmentIcon from '@mui/icons-material/Assessment';
import BackupIcon from '@mui/icons-material/Backup';
import BadgeIcon from '@mui/icons-material/Badge';
import CampaignIcon from '@mui/icons-material/Campaign';
import ChatIcon from '@mui/icons-material/Chat';
import DevicesIcon from '@mui/icons-material/DevicesOther';
import DialpadIcon from '@mui/icons-material/Dialpad';
import ElevatorIcon from '@mui/icons-material/Elevator';
import EventIcon from '@mui/icons-material/Event';
import EventNoteIcon from '@mui/icons-material/EventNote';
import GridOnIcon from '@mui/icons-material/GridOn';
import HelpCenterIcon from '@mui/icons-material/HelpCenter';
import HistoryIcon from '@mui/icons-material/History';
import HomeIcon from '@mui/icons-material/Home';
import InfoIcon from '@mui/icons-material/Info';
import KeyIcon from '@mui/icons-material/Key';
import ListAltIcon from '@mui/icons-material/ListAlt';
import MeetingRoomIcon from '@mui/icons-material/MeetingRoom';
import AlarmIcon from '@mui/icons-material/NotificationImportant';
import NotificationsIcon from '@mui/icons-material/Notifications';
import PeopleIcon from '@mui/icons-material/People';
import PersonAddIcon from '@mui/icons-material/PersonAdd';
import ForwardIcon from '@mui/icons-material/PhoneForwarded';
import PhoneInTalkIcon from '@mui/icons-material/PhoneInTalk';
import PolicyIcon from '@mui/icons-material/Policy';
import PollIcon from '@mui/icons-material/Poll';
import RuleIcon from '@mui/icons-material/Rule';
import ScheduleIcon from '@mui/icons-material/Schedule';
import SecurityIcon from '@mui/icons-material/Security';
import SettingsIcon from '@mui/icons-material/Settings';
import SosIcon from '@mui/icons-material/Sos';
import TaskIcon from '@mui/icons-material/Task';
import TimelineIcon from '@mui/icons-material/Timeline';
import VerifiedIcon from '@mui/icons-material/Verified';
import VpnKeyIcon from '@mui/icons-material/VpnKey';
import WarningIcon from '@mui/icons-material/Warning';
import WorkspacesIcon from '@mui/icons-material/Workspaces';
import { AREAS } from '../app/areas';

/** Icons of the menu entries; a built area's own icon wins (CONVENTIONS: the menu reuses it). */
const ICONS: Record<string, SvgIconComponent> = {
  '/home': HomeIcon,
  '/notifications': NotificationsIcon,
  '/reports/licenses': AssessmentIcon,
  '/users': PeopleIcon,
  '/roles': BadgeIcon,
  '/groups': AccountTreeIcon,
  '/guest-access': PersonAddIcon,
  '/schedules': ScheduleIcon,
  '/access-rules': RuleIcon,
  '/identifiers': KeyIcon,
  '/ukey2': VpnKeyIcon,
  '/access-matrix': GridOnIcon,
  '/access-control/events': SecurityIcon,
  '/conversations': ChatIcon,
  '/announces': CampaignIcon,
  '/announces/response': PollIcon,
  '/amenities': MeetingRoomIcon,
  '/amenities/reservations': EventIcon,
  '/devices/alarms': AlarmIcon,
  '/devices/alarms-calls': SosIcon,
  '/emergency-alerts': WarningIcon,
  '/virtual-numbers': DialpadIcon,
  '/forward-rules': ForwardIcon,
  '/call-history': HistoryIcon,
  '/sip-trunks': PhoneInTalkIcon,
  '/devices': DevicesIcon,
  '/devices/events': TimelineIcon,
  '/devices/tasks': TaskIcon,
  '/elevators': ElevatorIcon,
  '/elevators/events': EventNoteIcon,
  '/elevators/access-rules': PolicyIcon,
  '/audit-events': ListAltIcon,
  '/backups': BackupIcon,
  '/general-settings': SettingsIcon,
  '/licenses': VerifiedIcon,
  '/system-info': InfoIcon,
  '/access-control/explain': HelpCenterIcon,
};

const fromAreas = new Map(AREAS.flatMap((a) => a.menuPaths.map((p) => [p, a.icon] as const)));

export const menuIcon = (path: string): SvgIconComponent => fromAreas.get(path) ?? ICONS[path] ?? WorkspacesIcon;
