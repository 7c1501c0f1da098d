import QrCodeIcon from '@mui/icons-material/QrCode2';
import { editOrAdd } from '../../app/kit/RecordPage';
import { GuestCreate } from './GuestCreate';
import { GuestEdit } from './GuestEdit';
import { GuestList } from './GuestList';

export default { list: GuestList, edit: editOrAdd(GuestEdit, GuestCreate), create: GuestCreate, icon: QrCodeIcon };
