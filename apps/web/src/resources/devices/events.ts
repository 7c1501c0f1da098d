import TimelineIcon from '@mui/icons-material/Timeline';
import { DeviceEventList } from './DeviceEventList';

export default { list: DeviceEventList, icon: TimelineIcon };
