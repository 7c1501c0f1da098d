import BadgeIcon from '@mui/icons-material/Badge';
import { editOrAdd } from '../../app/kit/RecordPage';
import { RoleCreate } from './RoleCreate';
import { RoleEdit } from './RoleEdit';
import { RoleList } from './RoleList';

export default { list: RoleList, edit: editOrAdd(RoleEdit, RoleCreate), create: RoleCreate, icon: BadgeIcon };
