import RuleIcon from '@mui/icons-material/Rule';
import { editOrAdd } from '../../../app/kit/RecordPage';
import { ElevatorRuleCreate } from './ElevatorRuleCreate';
import { ElevatorRuleEdit } from './ElevatorRuleEdit';
import { ElevatorRuleList } from './ElevatorRuleList';

export default {
  list: ElevatorRuleList,
  edit: editOrAdd(ElevatorRuleEdit, ElevatorRuleCreate),
  create: ElevatorRuleCreate,
  icon: RuleIcon,
};
