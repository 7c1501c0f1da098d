import CategoryIcon from '@mui/icons-material/Category';
import { DomainTypeList } from './DomainTypeList';

// Domain types are a small catalogue: created and edited in dialogs of the list.
export default { list: DomainTypeList, icon: CategoryIcon };
