import SecurityIcon from '@mui/icons-material/Security';
import { AccessEventList } from './AccessEventList';

export default { list: AccessEventList, icon: SecurityIcon };
