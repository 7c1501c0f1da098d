import ScheduleIcon from '@mui/icons-material/Schedule';
import { editOrAdd } from '../../app/kit/RecordPage';
import { TimeRuleCreate } from './TimeRuleCreate';
import { TimeRuleEdit } from './TimeRuleEdit';
import { TimeRuleList } from './TimeRuleList';

export default { list: TimeRuleList, edit: editOrAdd(TimeRuleEdit, TimeRuleCreate), create: TimeRuleCreate, icon: ScheduleIcon };
