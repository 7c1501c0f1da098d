import ForwardIcon from '@mui/icons-material/PhoneForwarded';
import { editOrAdd } from '../../app/kit/RecordPage';
import { ForwardRuleCreate } from './ForwardRuleCreate';
import { ForwardRuleEdit } from './ForwardRuleEdit';
import { ForwardRuleList } from './ForwardRuleList';

export default { list: ForwardRuleList, edit: editOrAdd(ForwardRuleEdit, ForwardRuleCreate), create: ForwardRuleCreate, icon: ForwardIcon };
