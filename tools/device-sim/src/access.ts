import {
  type AccessDecision,
  type AccessRefusal,
  decideAccess as decide,
  type SyncIdentifier,
  type SyncSchedule,
  scheduleOpen,
} from '@atrium/contract';

export type AccessDeniedReason = AccessRefusal;
export type { AccessDecision };
export { scheduleOpen };

/** What a device holds after its sync tasks: identifiers by value, schedules by id. */
export class SyncedData {
  readonly identifiers = new Map<number, SyncIdentifier>();
  readonly schedules = new Map<number, SyncSchedule>();
  private byValue = new Map<string, SyncIdentifier>();

  clear(): void {
    this.identifiers.clear();
    this.schedules.clear();
    this.byValue.clear();
  }

  putIdentifier(i: SyncIdentifier): void {
    const old = this.identifiers.get(i.id);
    if (old) this.byValue.delete(old.value);
    this.identifiers.set(i.id, i);
    this.byValue.set(i.value, i);
  }

  removeIdentifier(id: number): void {
    const old = this.identifiers.get(id);
    if (old) this.byValue.delete(old.value);
    this.identifiers.delete(id);
  }

  find(value: string): SyncIdentifier | undefined {
    return this.byValue.get(value);
  }
}

/** Decides access as a device does, from its synced data alone, with the evaluation the server explains with. */
export function decideAccess(data: SyncedData, value: string, lock: number, at: Date): AccessDecision {
  return decide(data.find(value), (id) => data.schedules.get(id), lock, at);
}
