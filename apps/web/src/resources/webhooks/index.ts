import WebhookIcon from '@mui/icons-material/Webhook';
import { WebhooksPage } from './WebhooksPage';

export default { list: WebhooksPage, icon: WebhookIcon };
