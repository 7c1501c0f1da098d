import type { Locale } from '@atrium/contract';
import type { Db } from '../../core/db/client.js';
import type { Mailer } from '../../core/mail/mailer.js';
import type { DevicesRepository } from './devices.repository.js';
import type { DeviceNotice } from './devices.service.js';

/** Where a project sends its device notices: the general settings' administrator e-mail, when switched on. */
export type DeviceNoticeRecipient = (
  projectId: number,
  kind: DeviceNotice['kind'],
) => Promise<{ to: string; locale: Locale; project: string; timeZone: string } | null>;

/** A time as the project's wall clock reads it: `2026-11-23 19:30:05 (Europe/Moscow)`. */
export function projectTime(at: Date, timeZone: string): string {
  try {
    return `${new Intl.DateTimeFormat('sv-SE', { timeZone, dateStyle: 'short', timeStyle: 'medium' }).format(at)} (${timeZone})`;
  } catch {
    return at.toISOString();
  }
}

/**
 * Device notices by mail (spec comms §3, general settings: offline and task-failed device
 * notifications to the administrator e-mail). The devices area calls `send` once per real change
 * (the instance whose write changed the row), so the mail goes through the outbox once per cluster.
 */
export class DeviceMailNotices {
  constructor(
    private readonly db: Db,
    private readonly repo: DevicesRepository,
    private readonly mailer: Mailer,
    private readonly recipient: DeviceNoticeRecipient,
  ) {}

  async send(projectId: number, notice: DeviceNotice): Promise<boolean> {
    const to = await this.recipient(projectId, notice.kind);
    if (!to) return false;
    const label = await this.repo.label(notice.deviceId);
    if (!label) return false;
    const common = { project: to.project, ...label, time: projectTime(notice.at, to.timeZone) };
    const base = { projectId, to: to.to, locale: to.locale };
    const mail =
      notice.kind === 'device_offline'
        ? await this.mailer.queue(this.db, { ...base, kind: 'device_offline', params: common })
        : await this.mailer.queue(this.db, {
            ...base,
            kind: 'device_task_failed',
            params: { ...common, task_type: notice.taskType, error: notice.error.slice(0, 500) },
          });
    this.mailer.deliverSoon([mail]);
    return true;
  }
}
