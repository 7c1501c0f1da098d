import TimelineIcon from '@mui/icons-material/Timeline';
import { ElevatorEventList } from './ElevatorEventList';

export default { list: ElevatorEventList, icon: TimelineIcon };
