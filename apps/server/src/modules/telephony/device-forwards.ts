import type { DeviceForwards, ForwardRules } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { userVisible } from '../../core/acl.js';
import type { Actor } from '../../core/context.js';
import { type Db, queryRows } from '../../core/db/client.js';
import type { DevicesService } from '../devices/devices.service.js';

/** What the project's SIP tab says about devices: how they reach Atrium, auto forward rules, the resident phonebook. */
export interface DeviceSipSettings {
  address: string;
  protocol: 'UDP' | 'TCP' | 'TLS';
  autoForwardRules: boolean;
  phonebook: { is_enabled: boolean; show_all_groups: boolean };
}

interface Row {
  domain_id: number;
  domain: string;
  logic_address: number | null;
  number: string;
  name: string | null;
  purpose: 'group_sip_number' | 'master_sip_number';
  owner: string | null;
  forward_mode: 'disabled' | 'manual' | 'picked';
  forward_rules: ForwardRules;
  forward_group: string | null;
}

/**
 * A door panel's forwards (spec entities §7): the numbers it may ring — each group's own number and
 * its residents' master numbers, for the panel's group and every group below it (an entrance's
 * flats) — with how the panel dials them and where a call goes on when nobody answers. It is what a
 * panel's phonebook is set up from, as JSON and as a spreadsheet. Only those who may view the device
 * get it; a resident's name only when they may see that user.
 */
export class DeviceForwardsService {
  constructor(
    private readonly db: Db,
    private readonly devices: DevicesService,
    private readonly sipSettings: (projectId: number) => Promise<DeviceSipSettings>,
  ) {}

  async of(actor: Actor, deviceId: number): Promise<DeviceForwards> {
    const device = await this.devices.get(actor, deviceId);
    const { address, protocol, autoForwardRules, phonebook } = await this.sipSettings(actor.projectId);
    const [own] = await queryRows<{ number: string }>(
      this.db,
      sql`SELECT number FROM sip_numbers WHERE device_id = ${deviceId} AND project_id = ${actor.projectId}`,
    );
    const rows =
      device.domain_id === null
        ? []
        : await queryRows<Row>(
            this.db,
            sql`SELECT g.id AS domain_id, g.name AS domain, g.logic_address, n.number, n.name,
                  CASE WHEN n.purpose = 'group_sip_number' THEN 'group_sip_number' ELSE 'master_sip_number' END AS purpose,
                  CASE WHEN u.id IS NULL THEN NULL WHEN ${userVisible(actor, sql`u.id`, sql`u.created_by`)} THEN u.name END AS owner,
                  n.forward_mode, n.forward_rules, fg.name AS forward_group
                FROM groups g
                JOIN sip_numbers n ON n.project_id = g.project_id AND n.is_active AND NOT n.is_reserved
                  AND ((n.purpose = 'group_sip_number' AND n.group_id = g.id)
                    OR (n.purpose = 'master_sip_number' AND EXISTS (SELECT 1 FROM user_groups ug WHERE ug.user_id = n.user_id AND ug.group_id = g.id)))
                LEFT JOIN users u ON u.id = n.user_id
                LEFT JOIN forward_groups fg ON fg.id = n.forward_group_id
               WHERE g.project_id = ${actor.projectId} AND g.path && ARRAY[${device.domain_id}]::int[]
               ORDER BY g.logic_address NULLS LAST, g.name, g.id, n.purpose DESC, n.number`,
          );
    const transport = protocol.toLowerCase();
    const entries = new Map<number, DeviceForwards['entries'][number]>();
    for (const r of rows) {
      let e = entries.get(r.domain_id);
      if (!e) {
        e = { domain_id: r.domain_id, domain: r.domain, logic_address: r.logic_address, numbers: [] };
        entries.set(r.domain_id, e);
      }
      e.numbers.push({
        number: r.number,
        name: r.name,
        purpose: r.purpose,
        owner: r.owner,
        uri: `sip:${r.number}@${address};transport=${transport}`,
        forward_mode: r.forward_mode,
        forward_rules: r.forward_rules,
        forward_group: r.forward_group,
      });
    }
    const book =
      !phonebook.is_enabled || (device.domain_id === null && !phonebook.show_all_groups)
        ? []
        : await queryRows<DeviceForwards['phonebook'][number]>(
            this.db,
            sql`SELECT g.id AS domain_id, g.name AS domain, g.logic_address, u.name,
                  COALESCE(m.number, gn.number) AS number
                FROM groups g
                JOIN user_groups ug ON ug.group_id = g.id
                JOIN users u ON u.id = ug.user_id
                LEFT JOIN sip_numbers m ON m.user_id = u.id AND m.purpose = 'master_sip_number' AND m.is_active AND NOT m.is_reserved
                LEFT JOIN sip_numbers gn ON gn.group_id = g.id AND gn.purpose = 'group_sip_number' AND gn.is_active AND NOT gn.is_reserved
               WHERE g.project_id = ${actor.projectId} AND g.is_resident_phonebook_enabled
                 AND ${phonebook.show_all_groups ? sql`TRUE` : sql`g.path && ARRAY[${device.domain_id}]::int[]`}
                 AND ${userVisible(actor, sql`u.id`, sql`u.created_by`)}
                 AND COALESCE(m.number, gn.number) IS NOT NULL
               ORDER BY g.logic_address NULLS LAST, g.name, g.id, u.name, u.id`,
          );
    return {
      device_id: device.id,
      serial_number: device.serial_number,
      auto_forward_rules: autoForwardRules,
      phonebook: book,
      sip_number: own?.number ?? null,
      address,
      protocol,
      entries: [...entries.values()],
    };
  }
}

/** The spreadsheet's columns: one row per number. */
export const FORWARD_COLUMNS = [
  'logic_address',
  'domain',
  'number',
  'name',
  'owner',
  'uri',
  'forward_mode',
  'no_answer_timeout',
  'no_answer_numbers',
  'error_numbers',
  'forward_group',
] as const;

export function forwardRows(f: DeviceForwards): Record<(typeof FORWARD_COLUMNS)[number], unknown>[] {
  return f.entries.flatMap((e) =>
    e.numbers.map((n) => ({
      logic_address: e.logic_address,
      domain: e.domain,
      number: n.number,
      name: n.name,
      owner: n.owner,
      uri: n.uri,
      forward_mode: n.forward_mode,
      no_answer_timeout: n.forward_mode === 'manual' ? (n.forward_rules.redirect_if_no_answer?.timeout ?? null) : null,
      no_answer_numbers: n.forward_mode === 'manual' ? (n.forward_rules.redirect_if_no_answer?.numbers ?? []).join(' ') : '',
      error_numbers: n.forward_mode === 'manual' ? (n.forward_rules.redirect_if_error?.numbers ?? []).join(' ') : '',
      forward_group: n.forward_mode === 'picked' ? n.forward_group : null,
    })),
  );
}
