import type { ProjectSettingsService } from '../settings/project-settings.service.js';

export interface RegistrationSettings {
  recovery: boolean;
  by_token: boolean;
  self: boolean;
}

/** The switches and values the console reads before sign-in, from the project settings (modules/settings). */
export class SettingsService {
  constructor(private readonly project: Pick<ProjectSettingsService, 'serverView'>) {}

  /** Registration and recovery switches of a project, or of the server's default project for public calls. */
  async registration(projectId: number | null = null): Promise<RegistrationSettings> {
    return (await this.project.serverView(projectId)).registration;
  }

  server(projectId: number | null) {
    return this.project.serverView(projectId);
  }
}
