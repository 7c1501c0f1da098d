import type { ProjectsRepository } from '../projects/projects.repository.js';

export interface RegistrationSettings {
  recovery: boolean;
  by_token: boolean;
  self: boolean;
}

/** Server-wide switches that the console reads before sign-in. */
export class SettingsService {
  constructor(private readonly repo: ProjectsRepository) {}

  async registration(): Promise<RegistrationSettings> {
    const stored = await this.repo.setting<Partial<RegistrationSettings>>('registration');
    return { recovery: true, by_token: true, self: false, ...stored };
  }
}
