import OutboxIcon from '@mui/icons-material/Outbox';
import { OutboxList } from './OutboxList';

// The outbox is a list only: a mail is retried or deleted from its row.
export default { list: OutboxList, icon: OutboxIcon };
