import DevicesIcon from '@mui/icons-material/Devices';
import { editOrAdd } from '../../app/kit/RecordPage';
import { DeviceCreate } from './DeviceCreate';
import { DeviceEdit } from './DeviceEdit';
import { DeviceList } from './DeviceList';

export default { list: DeviceList, edit: editOrAdd(DeviceEdit, DeviceCreate), create: DeviceCreate, icon: DevicesIcon };
