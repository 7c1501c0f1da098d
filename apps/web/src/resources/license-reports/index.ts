import { LicenseReportsPage } from './LicenseReportsPage';

export default { list: LicenseReportsPage };
