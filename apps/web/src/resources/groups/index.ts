import AccountTreeIcon from '@mui/icons-material/AccountTree';
import { editOrAdd } from '../../app/kit/RecordPage';
import { GroupCreate } from './GroupCreate';
import { GroupEdit } from './GroupEdit';
import { GroupList } from './GroupList';

export default { list: GroupList, edit: editOrAdd(GroupEdit, GroupCreate), create: GroupCreate, icon: AccountTreeIcon };
