import TaskIcon from '@mui/icons-material/Task';
import { DeviceTaskList } from './DeviceTaskList';

export default { list: DeviceTaskList, icon: TaskIcon };
