import { randomBytes } from 'node:crypto';
import { BUILTIN_ROLE_NAME, DEFAULT_DOMAIN_TYPES, PERMISSION_CODES } from '@atrium/contract';
import { hashPassword, randomPassword } from '../../core/auth/password.js';
import type { Db, Tx } from '../../core/db/client.js';
import type { ProjectsRepository } from './projects.repository.js';

export interface BootstrapResult {
  created: boolean;
  projectId?: number;
  login?: string;
  /** Present only when the password was generated here: shown once, stored hashed. */
  generatedPassword?: string;
}

export interface NewProject {
  projectId: number;
  adminId: number;
  roleId: number;
  rootGroupId: number;
}

export interface NewProjectInput {
  name: string;
  rootGroupName?: string;
  adminLogin: string;
  adminName: string;
  adminPassword: string;
}

export class ProjectsService {
  constructor(
    private readonly db: Db,
    private readonly repo: ProjectsRepository,
  ) {}

  /** The JWT secret shared by every instance on this database. */
  jwtSecret(): Promise<string> {
    return this.repo.settingOrCreate('jwt_secret', () => randomBytes(48).toString('base64url'));
  }

  /** Creates a project with its administrator, root group, domain types and built-in role. */
  async createProject(v: NewProjectInput): Promise<NewProject> {
    const passwordHash = await hashPassword(v.adminPassword);
    return this.db.transaction((tx) => this.createIn(tx, v, passwordHash));
  }

  private async createIn(tx: Tx, v: NewProjectInput, passwordHash: string): Promise<NewProject> {
    const project = await this.repo.createProject(tx, v.name);
    const types = await this.repo.createDomainTypes(tx, project.id, DEFAULT_DOMAIN_TYPES);
    const complex = types.find((t) => t.type === 1)?.id ?? null;
    const rootGroupId = await this.repo.createRootGroup(tx, project.id, v.rootGroupName ?? v.name, complex);
    const roleId = await this.repo.createBuiltinRole(tx, project.id, BUILTIN_ROLE_NAME, [...PERMISSION_CODES]);
    const adminId = await this.repo.createAdmin(tx, {
      projectId: project.id,
      login: v.adminLogin,
      name: v.adminName,
      passwordHash,
      roleId,
      groupId: rootGroupId,
    });
    return { projectId: project.id, adminId, roleId, rootGroupId };
  }

  /** On first start: one project and its administrator, unless a project already exists. */
  async bootstrap(opts: { adminLogin?: string | undefined; adminPassword?: string | undefined }): Promise<BootstrapResult> {
    if ((await this.repo.count(this.db)) > 0) return { created: false };
    const login = opts.adminLogin ?? 'admin';
    const password = opts.adminPassword ?? randomPassword(16);
    const passwordHash = await hashPassword(password);
    const input = { name: 'Atrium', rootGroupName: 'Site', adminLogin: login, adminName: 'Administrator', adminPassword: password };
    const created = await this.db.transaction(async (tx) => {
      // Two instances starting together on one database create one project, not two.
      await this.repo.lockBootstrap(tx);
      if ((await this.repo.count(tx)) > 0) return undefined;
      return this.createIn(tx, input, passwordHash);
    });
    if (!created) return { created: false };
    return { created: true, projectId: created.projectId, login, ...(opts.adminPassword ? {} : { generatedPassword: password }) };
  }
}
