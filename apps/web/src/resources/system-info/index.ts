import { SystemInfoPage } from './SystemInfoPage';

export default { list: SystemInfoPage };
