import PhoneCallbackIcon from '@mui/icons-material/PhoneCallback';
import { SosCallList } from './SosCallList';

export default { list: SosCallList, icon: PhoneCallbackIcon };
