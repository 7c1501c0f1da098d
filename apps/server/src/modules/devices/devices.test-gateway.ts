import type { DeviceGateway, DeviceInputMessage, DeviceTaskMessage } from './devices.gateway.js';

/**
 * An in-memory gateway for tests: records what was handed to each device, and refuses devices
 * it is told are unreachable (as the MQTT gateway does for a device that is not connected).
 */
export class RecordingGateway implements DeviceGateway {
  readonly sent: { serial: string; task: DeviceTaskMessage }[] = [];
  readonly inputs: { serial: string; input: DeviceInputMessage }[] = [];
  readonly unreachable = new Set<string>();

  async sendInput(serial: string, input: DeviceInputMessage): Promise<void> {
    if (this.unreachable.has(serial)) throw new Error(`device ${serial} is not connected`);
    this.inputs.push({ serial, input });
  }

  async sendTask(serial: string, task: DeviceTaskMessage): Promise<void> {
    if (this.unreachable.has(serial)) throw new Error(`device ${serial} is not connected`);
    this.sent.push({ serial, task });
  }

  ids(serial?: string): number[] {
    return this.sent.filter((s) => !serial || s.serial === serial).map((s) => s.task.id);
  }
}
