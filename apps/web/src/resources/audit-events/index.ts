import ManageHistoryIcon from '@mui/icons-material/ManageHistory';
import { AuditEventList } from './AuditEventList';

// A list only: an event opens in a drawer beside it, with its change before and after.
export default { list: AuditEventList, icon: ManageHistoryIcon };
