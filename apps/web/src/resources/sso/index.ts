import LoginIcon from '@mui/icons-material/Login';
import { SsoProvidersPage } from './SsoProvidersPage';

export default { list: SsoProvidersPage, icon: LoginIcon };
