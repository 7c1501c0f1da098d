import NotificationImportantIcon from '@mui/icons-material/NotificationImportant';
import { DeviceAlarmEdit } from './DeviceAlarmEdit';
import { DeviceAlarmList } from './DeviceAlarmList';

export default { list: DeviceAlarmList, edit: DeviceAlarmEdit, icon: NotificationImportantIcon };
