import VpnKeyIcon from '@mui/icons-material/VpnKey';
import { Ukey2List, Ukey2View } from './Ukey2Pages';

// View only: the list, and /ukey2/:id/edit reads one key (spec entities §2).
export default { list: Ukey2List, edit: Ukey2View, icon: VpnKeyIcon };
