import RuleIcon from '@mui/icons-material/Rule';
import { editOrAdd } from '../../app/kit/RecordPage';
import { AccessRuleCreate } from './AccessRuleCreate';
import { AccessRuleEdit } from './AccessRuleEdit';
import { AccessRuleList } from './AccessRuleList';

export default { list: AccessRuleList, edit: editOrAdd(AccessRuleEdit, AccessRuleCreate), create: AccessRuleCreate, icon: RuleIcon };
