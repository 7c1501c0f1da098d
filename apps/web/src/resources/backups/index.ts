import BackupIcon from '@mui/icons-material/Backup';
import { BackupsPage } from './BackupsPage';

export default { list: BackupsPage, icon: BackupIcon };
