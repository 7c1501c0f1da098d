import HistoryIcon from '@mui/icons-material/History';
import { CallHistoryList } from './CallHistoryList';

export default { list: CallHistoryList, icon: HistoryIcon };
