import DialpadIcon from '@mui/icons-material/Dialpad';
import { editOrAdd } from '../../app/kit/RecordPage';
import { VirtualNumberCreate } from './VirtualNumberCreate';
import { VirtualNumberEdit } from './VirtualNumberEdit';
import { VirtualNumberList } from './VirtualNumberList';

export default {
  list: VirtualNumberList,
  edit: editOrAdd(VirtualNumberEdit, VirtualNumberCreate),
  create: VirtualNumberCreate,
  icon: DialpadIcon,
};
