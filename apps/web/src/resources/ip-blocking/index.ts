import { IpBlockingPage } from './IpBlockingPage';

export default { list: IpBlockingPage };
