import KeyIcon from '@mui/icons-material/Key';
import { ApiKeysPage } from './ApiKeysPage';

export default { list: ApiKeysPage, icon: KeyIcon };
