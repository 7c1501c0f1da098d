import KeyIcon from '@mui/icons-material/Key';
import { editOrAdd } from '../../app/kit/RecordPage';
import { IdentifierCreate } from './IdentifierCreate';
import { IdentifierEdit } from './IdentifierEdit';
import { IdentifierList } from './IdentifierList';

export default { list: IdentifierList, edit: editOrAdd(IdentifierEdit, IdentifierCreate), create: IdentifierCreate, icon: KeyIcon };
