import VideocamIcon from '@mui/icons-material/Videocam';
import { IntegrationsPage } from './IntegrationsPage';

export default { list: IntegrationsPage, icon: VideocamIcon };
