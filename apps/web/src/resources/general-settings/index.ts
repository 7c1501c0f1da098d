import SettingsIcon from '@mui/icons-material/Settings';
import { GeneralSettingsPage } from './GeneralSettingsPage';

export default { list: GeneralSettingsPage, icon: SettingsIcon };
