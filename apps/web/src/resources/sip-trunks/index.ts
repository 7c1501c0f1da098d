import PhoneInTalkIcon from '@mui/icons-material/PhoneInTalk';
import { editOrAdd } from '../../app/kit/RecordPage';
import { SipTrunkCreate } from './SipTrunkCreate';
import { SipTrunkEdit } from './SipTrunkEdit';
import { SipTrunkList } from './SipTrunkList';

export default { list: SipTrunkList, edit: editOrAdd(SipTrunkEdit, SipTrunkCreate), create: SipTrunkCreate, icon: PhoneInTalkIcon };
