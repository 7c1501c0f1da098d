import ChatIcon from '@mui/icons-material/Chat';
import { ConversationList } from './ConversationList';

// One conversation is its own route (/conversation/:id, spec comms §2): App.tsx mounts ConversationPage there.
export default { list: ConversationList, icon: ChatIcon };
