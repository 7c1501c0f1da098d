import LockIcon from '@mui/icons-material/Lock';
import { LockdownPage } from './LockdownPage';

/** The lockdown page, mounted as its own area at /emergency-lockdown (the emergency menu section). */
export default { list: LockdownPage, icon: LockIcon };
