import PeopleIcon from '@mui/icons-material/People';
import { editOrAdd } from '../../app/kit/RecordPage';
import { UserCreate } from './UserCreate';
import { UserEdit } from './UserEdit';
import { UserList } from './UserList';

export default { list: UserList, edit: editOrAdd(UserEdit, UserCreate), create: UserCreate, icon: PeopleIcon };
