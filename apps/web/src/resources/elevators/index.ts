import ElevatorIcon from '@mui/icons-material/Elevator';
import { editOrAdd } from '../../app/kit/RecordPage';
import { ElevatorCreate } from './ElevatorCreate';
import { ElevatorEdit } from './ElevatorEdit';
import { ElevatorList } from './ElevatorList';

export default { list: ElevatorList, edit: editOrAdd(ElevatorEdit, ElevatorCreate), create: ElevatorCreate, icon: ElevatorIcon };
