import { type ForwardRules, TELEPHONY_DEFAULTS, WEEK_DAYS, type WeekDay } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { BatchedReads } from '../../core/batch.js';
import { type DbOrTx, queryRows } from '../../core/db/client.js';
import { Kept, type ReadCache } from '../../core/read-cache.js';
import { parseUri } from '../../sip/address.js';
import { resolveHost } from '../../sip/local-address.js';
import {
  SIP_HEADERS,
  type SipDirectory,
  type SipInviteInfo,
  type SipPeer,
  type SipRoute,
  type SipStage,
  type SipTarget,
  type SipTrunkRoute,
} from '../../sip/types.js';
import { type Caller, callablePredicate, loadCallers } from './call-rules.js';

const reject = (status: number, reason: string): SipRoute => ({ kind: 'reject', status, reason });

/** X-Sos-Call: any of 1, true, yes (case-insensitive). */
export const isSosHeader = (value: string | undefined): boolean => !!value && /^(1|true|yes)$/i.test(value.trim());

/** Week day and second of the day of `at` in a time zone (UTC when the zone is unknown). */
export function zonedDayAndSecond(at: Date, timeZone: string | null): { day: WeekDay; second: number } {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone: timeZone ?? 'UTC',
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    }).formatToParts(at);
  } catch {
    return zonedDayAndSecond(at, 'UTC');
  }
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '0';
  const day = get('weekday').toLowerCase().slice(0, 3) as WeekDay;
  return {
    day: WEEK_DAYS.includes(day) ? day : 'mon',
    second: Number(get('hour')) * 3600 + Number(get('minute')) * 60 + Number(get('second')),
  };
}

interface CalleeRow {
  id: number;
  number: string;
  user_id: number | null;
  is_active: boolean;
  is_reserved: boolean;
  callable: boolean;
  forward_mode: 'disabled' | 'manual' | 'picked';
  forward_rules: ForwardRules;
  forward_group: { params: Record<string, unknown>; forward_rules: ForwardRules } | null;
  time_zone: string | null;
}

/**
 * The SIP server's view of Atrium's tables (sip/types.ts): who may register, and where an
 * authenticated call goes — the call rules of spec comms §6, then the callee's forward mode
 * (disabled, manual with its own rules, picked with a forward rule group), interception, and
 * outside numbers through a SIP trunk of the caller's groups.
 *
 * Stages come in this order: 'initial'; then, when the number forwards on no answer, the
 * 'no_answer' stage (rung after the initial stage's timeout); then, when it forwards on error, the
 * 'error' stage (rung when every target of the stages before failed).
 */
export class TelephonyDirectory implements SipDirectory {
  /**
   * Every REGISTER and INVITE reads a number's secret and every INVITE its route; what does not
   * depend on the time of the call is kept in memory under the read cache's generation
   * (core/read-cache.ts): any write answered by this instance or heard on the change feed drops
   * it, and nothing is kept while changes may go unheard.
   */
  private readonly secrets: Kept<{ password: string } | null>;
  private readonly routes: Kept<{ route: SipRoute; timed: boolean }>;
  private readonly callers: Kept<Caller | null>;
  private readonly interceptorsOf: Kept<string[]>;
  private readonly trunkPeers: Kept<Map<string, number>>;
  private readonly activeNumbers: Kept<Set<string>>;
  /**
   * What the kept entries miss is read in batches: after a restart or a change every phone
   * registers within seconds, and one query per number queued the pool deep enough to hold
   * REGISTERs past SIP's 500 ms retransmission timer.
   */
  private readonly secretReads: BatchedReads<string, { password: string } | null>;
  private readonly callerReads: BatchedReads<string, Caller | null>;

  constructor(
    private readonly db: DbOrTx,
    private readonly now: () => Date = () => new Date(),
    cache?: Pick<ReadCache, 'begin'>,
  ) {
    // Without the read cache (tests of the directory alone) every request reads the tables.
    const generation = cache ? () => cache.begin() : () => undefined;
    this.secrets = new Kept(100_000, generation);
    this.routes = new Kept(10_000, generation);
    this.callers = new Kept(100_000, generation);
    this.interceptorsOf = new Kept(10_000, generation);
    this.trunkPeers = new Kept(1, generation);
    this.activeNumbers = new Kept(10_000, generation);
    this.secretReads = new BatchedReads(async (numbers) => {
      const rows = await queryRows<{ number: string; password: string }>(
        this.db,
        sql`SELECT number, password FROM sip_numbers WHERE number IN ${numbers} AND is_active AND NOT is_reserved`,
      );
      return new Map(rows.map((r) => [r.number, { password: r.password }]));
    }, null);
    this.callerReads = new BatchedReads((numbers) => loadCallers(this.db, numbers), null);
  }

  /**
   * SIP trunks trusted by their peer: the transport, address and port of each trunk's termination
   * URI (a name resolved once per change of the tables; port 5060, 5061 over TLS, when the URI
   * names none), lowest id first when two trunks share a peer. Another port of the same host is
   * another sender: it may be anything else running there.
   */
  async trunkPeer(flow: SipPeer): Promise<number | null> {
    const peers = await this.trunkPeers.get('peers', async () => {
      const rows = await queryRows<{ id: number; termination_uri: string }>(
        this.db,
        sql`SELECT id, termination_uri FROM sip_trunks ORDER BY id`,
      );
      const map = new Map<string, number>();
      for (const r of rows) {
        const peer = await trunkPeerOf(r.termination_uri);
        if (peer && !map.has(peerKey(peer))) map.set(peerKey(peer), Number(r.id));
      }
      return map;
    });
    return peers.get(peerKey(flow)) ?? null;
  }

  async credentials(number: string): Promise<{ password: string } | null> {
    const secret = await this.secrets.get(number, () => this.secretReads.get(number));
    // A number that registers is about to call: its caller row is read now, off the INVITE's path.
    if (secret) this.loadCaller(number).catch(() => undefined);
    return secret;
  }

  async callerName(number: string): Promise<string | null> {
    return (await this.loadCaller(number))?.name ?? null;
  }

  async route(invite: SipInviteInfo): Promise<SipRoute> {
    const sos = isSosHeader(invite.headers[SIP_HEADERS.sos.toLowerCase()]);
    const { route } = await this.routes.get(
      `${invite.trunkId === undefined ? '' : `trunk ${invite.trunkId}`}\n${invite.caller}\n${invite.callee.trim()}`,
      () => (invite.trunkId === undefined ? this.resolve(invite, sos) : this.resolveInbound(invite, invite.trunkId, sos)),
      // A forward group's days and hours make its route depend on the time of the call.
      (r) => !r.timed,
    );
    return withSos(route, sos);
  }

  private loadCaller(number: string): Promise<Caller | null> {
    return this.callers.get(number, () => this.callerReads.get(number));
  }

  private async resolve(invite: SipInviteInfo, sos: boolean): Promise<{ route: SipRoute; timed: boolean }> {
    const untimed = (route: SipRoute) => ({ route, timed: false });
    const caller = await this.loadCaller(invite.caller);
    if (!caller) return untimed(reject(403, 'Forbidden'));
    const dialled = invite.callee.trim();
    if (dialled === caller.number) return untimed(reject(403, 'Unable to call your number'));
    const [callee] = await queryRows<CalleeRow>(
      this.db,
      sql`SELECT n.id, n.number, n.user_id, n.is_active, n.is_reserved, n.forward_mode, n.forward_rules,
          ${callablePredicate(caller)} AS callable,
          (SELECT json_build_object('params', f.params, 'forward_rules', f.forward_rules) FROM forward_groups f
            WHERE f.id = n.forward_group_id) AS forward_group,
          (SELECT p.settings->>'time_zone' FROM projects p WHERE p.id = n.project_id) AS time_zone
        FROM sip_numbers n WHERE n.number = ${dialled} AND n.project_id = ${caller.projectId}`,
    );
    if (!callee) {
      const trunk = /^\+?[0-9]{3,20}$/.test(dialled) ? await this.trunkFor(caller.projectId, caller.lineage) : null;
      if (!trunk) return untimed(reject(404, 'Not Found'));
      return untimed({
        kind: 'fork',
        callee: dialled,
        sos,
        stages: [{ targets: [{ kind: 'trunk', number: dialled, trunk }], timeoutSeconds: null, reason: 'initial' }],
      });
    }
    if (!callee.is_active || callee.is_reserved) return untimed(reject(480, 'Temporarily Unavailable'));
    if (caller.userId !== null && callee.user_id !== null && Number(callee.user_id) === caller.userId) {
      return untimed(reject(403, 'User cannot communicate with himself'));
    }
    if (!callee.callable) return untimed(reject(403, 'Forbidden'));
    const [owner, interceptors] = await Promise.all([this.loadCaller(callee.number), this.interceptors(caller, callee)]);
    const stages = await this.stages(caller, callee, owner?.lineage ?? []);
    const initial = stages[0] as SipStage;
    for (const n of interceptors) if (!hasNumber(initial.targets, n)) initial.targets.push({ kind: 'number', number: n });
    return {
      route: { kind: 'fork', callee: callee.number, sos, stages: stages.filter((s) => s.targets.length > 0) },
      timed: callee.forward_mode === 'picked' && callee.forward_group !== null,
    };
  }

  /**
   * A call in from a SIP trunk: the dialled number must be an active number of the trunk's groups
   * (or below them); it rings as any call to that number would, with its forward mode and
   * interception. The outside caller is subject to no call rule of spec §6: the trunk is trusted.
   */
  private async resolveInbound(invite: SipInviteInfo, trunkId: number, sos: boolean): Promise<{ route: SipRoute; timed: boolean }> {
    const untimed = (route: SipRoute) => ({ route, timed: false });
    const dialled = invite.callee.trim();
    const [callee] = await queryRows<CalleeRow & { project_id: number; trunk_groups: number[] }>(
      this.db,
      sql`SELECT n.id, n.number, n.user_id, n.is_active, n.is_reserved, n.forward_mode, n.forward_rules, TRUE AS callable,
          n.project_id, (SELECT array_agg(x.group_id) FROM sip_trunk_groups x WHERE x.trunk_id = t.id) AS trunk_groups,
          (SELECT json_build_object('params', f.params, 'forward_rules', f.forward_rules) FROM forward_groups f
            WHERE f.id = n.forward_group_id) AS forward_group,
          (SELECT p.settings->>'time_zone' FROM projects p WHERE p.id = n.project_id) AS time_zone
        FROM sip_numbers n JOIN sip_trunks t ON t.id = ${trunkId} AND t.project_id = n.project_id
        WHERE n.number = ${dialled}
          AND EXISTS (SELECT 1 FROM groups g JOIN sip_trunk_groups x ON x.trunk_id = t.id
            WHERE g.id = n.group_id AND g.path && ARRAY[x.group_id])`,
    );
    if (!callee) return untimed(reject(404, 'Not Found'));
    if (!callee.is_active || callee.is_reserved) return untimed(reject(480, 'Temporarily Unavailable'));
    const groups = (callee.trunk_groups ?? []).map(Number);
    const caller: Caller = {
      id: 0,
      projectId: Number(callee.project_id),
      number: invite.caller,
      userId: null,
      deviceId: null,
      name: null,
      permissions: new Set(),
      groupIds: groups,
      lineage: groups,
    };
    const [owner, interceptors] = await Promise.all([this.loadCaller(callee.number), this.interceptors(caller, callee)]);
    const stages = await this.stages(caller, callee, owner?.lineage ?? []);
    const initial = stages[0] as SipStage;
    for (const n of interceptors) if (!hasNumber(initial.targets, n)) initial.targets.push({ kind: 'number', number: n });
    return {
      route: { kind: 'fork', callee: callee.number, sos, stages: stages.filter((s) => s.targets.length > 0) },
      timed: callee.forward_mode === 'picked' && callee.forward_group !== null,
    };
  }

  /** The forward mode's stages (spec comms §3, §4): the callee, then the rules of the number or its group. */
  private async stages(caller: Caller, callee: CalleeRow, lineage: number[]): Promise<SipStage[]> {
    const self: SipTarget = { kind: 'number', number: callee.number };
    let initial: SipStage = { targets: [self], timeoutSeconds: null, reason: 'initial' };
    let rules: ForwardRules | null = null;
    if (callee.forward_mode === 'manual') rules = callee.forward_rules;
    if (callee.forward_mode === 'picked' && callee.forward_group) {
      const p = callee.forward_group.params as {
        numbers?: string[];
        timeout?: number;
        days?: WeekDay[];
        period?: { from: number; to: number };
        trunk_numbers?: string[];
        trunk_id?: number | null;
      };
      const { day, second } = zonedDayAndSecond(this.now(), callee.time_zone);
      const days = p.days ?? [...WEEK_DAYS];
      const period = p.period ?? { from: 0, to: 86_400 };
      if (days.includes(day) && second >= period.from && second < period.to) {
        const targets: SipTarget[] = [self];
        for (const n of p.numbers ?? []) if (n !== caller.number && !hasNumber(targets, n)) targets.push({ kind: 'number', number: n });
        const trunk = p.trunk_numbers?.length && p.trunk_id ? await this.trunkById(caller.projectId, p.trunk_id) : null;
        if (trunk) for (const n of p.trunk_numbers ?? []) targets.push({ kind: 'trunk', number: n, trunk });
        initial = { targets, timeoutSeconds: p.timeout ?? TELEPHONY_DEFAULTS.group_forward_timeout, reason: 'initial' };
        rules = callee.forward_group.forward_rules;
      }
    }
    const stages: SipStage[] = [initial];
    if (!rules) return stages;
    const noAnswer = rules.redirect_if_no_answer;
    if (noAnswer?.numbers.length) {
      const targets = await this.targets(caller, noAnswer.numbers, lineage);
      if (targets.length) {
        // The initial stage rings for the rule's timeout (or the group's, when shorter) before the forward.
        const timeout = noAnswer.timeout ?? TELEPHONY_DEFAULTS.no_answer_timeout;
        initial.timeoutSeconds = initial.timeoutSeconds === null ? timeout : Math.min(initial.timeoutSeconds, timeout);
        stages.push({ targets, timeoutSeconds: null, reason: 'no_answer' });
      }
    }
    const onError = rules.redirect_if_error;
    if (onError?.numbers.length) {
      const targets = await this.targets(caller, onError.numbers, lineage);
      if (targets.length) stages.push({ targets, timeoutSeconds: null, reason: 'error' });
    }
    return stages;
  }

  /** Forward numbers as targets: Atrium numbers as they are, outside numbers through a trunk of the callee's groups. */
  private async targets(caller: Caller, numbers: string[], lineage: number[]): Promise<SipTarget[]> {
    // The same for every caller of a number: kept, so a new caller's first call reads one table less.
    const known = await this.activeNumbers.get(
      `${caller.projectId}\n${numbers.join(',')}`,
      async () =>
        new Set(
          (
            await queryRows<{ number: string }>(
              this.db,
              sql`SELECT number FROM sip_numbers WHERE project_id = ${caller.projectId} AND is_active AND NOT is_reserved
              AND number = ANY(${`{${numbers.join(',')}}`}::text[])`,
            )
          ).map((r) => r.number),
        ),
    );
    const out: SipTarget[] = [];
    let trunk: SipTrunkRoute | null | undefined;
    for (const n of numbers) {
      if (n === caller.number) continue;
      if (known.has(n)) {
        if (!hasNumber(out, n)) out.push({ kind: 'number', number: n });
        continue;
      }
      if (trunk === undefined) trunk = await this.trunkFor(caller.projectId, lineage);
      if (trunk) out.push({ kind: 'trunk', number: n, trunk });
    }
    return out;
  }

  /** Master numbers of users intercepting the callee's groups (not the caller's, not the callee's). */
  private async interceptors(caller: Caller, callee: CalleeRow): Promise<string[]> {
    const all = await this.interceptorsOf.get(`${caller.projectId}\n${callee.id}`, async () => {
      const rows = await queryRows<{ number: string }>(
        this.db,
        sql`SELECT DISTINCT m.number FROM call_interceptions ci
          JOIN users u ON u.id = ci.user_id JOIN roles r ON r.id = u.role_id
          JOIN sip_numbers m ON m.user_id = ci.user_id AND m.purpose = 'master_sip_number' AND m.is_active AND NOT m.is_reserved
          JOIN sip_numbers n ON n.id = ${callee.id}
          WHERE ci.is_active AND ci.project_id = ${caller.projectId}
            AND (r.is_builtin OR 'can_intercept_calls' = ANY(r.permissions))
            AND m.number <> n.number
            AND (n.user_id IS NULL OR n.user_id <> ci.user_id)
            AND CASE WHEN n.user_id IS NOT NULL
                THEN EXISTS (SELECT 1 FROM user_groups ug WHERE ug.user_id = n.user_id AND ug.group_id = ANY(ci.group_ids))
              WHEN n.device_id IS NOT NULL
                THEN EXISTS (SELECT 1 FROM devices d WHERE d.id = n.device_id AND d.group_id = ANY(ci.group_ids))
              ELSE n.group_id = ANY(ci.group_ids) END
          ORDER BY m.number`,
      );
      return rows.map((r) => r.number);
    });
    return all.filter((n) => n !== caller.number);
  }

  private async trunkFor(projectId: number, lineage: number[]): Promise<SipTrunkRoute | null> {
    return this.trunk(
      sql`t.project_id = ${projectId} AND EXISTS (SELECT 1 FROM sip_trunk_groups x WHERE x.trunk_id = t.id
        AND x.group_id = ANY(${`{${lineage.join(',')}}`}::int[]))`,
    );
  }

  private trunkById(projectId: number, id: number): Promise<SipTrunkRoute | null> {
    return this.trunk(sql`t.project_id = ${projectId} AND t.id = ${id}`);
  }

  private async trunk(where: ReturnType<typeof sql>): Promise<SipTrunkRoute | null> {
    const [t] = await queryRows<{
      id: number;
      termination_uri: string;
      login: string | null;
      password: string | null;
      outgoing_number: string;
    }>(
      this.db,
      sql`SELECT t.id, t.termination_uri, t.login, t.password, t.outgoing_number FROM sip_trunks t WHERE ${where} ORDER BY t.id LIMIT 1`,
    );
    return t
      ? { id: Number(t.id), terminationUri: t.termination_uri, login: t.login, password: t.password, outgoingNumber: t.outgoing_number }
      : null;
  }
}

/** A copy of a kept route for one call: the proxy owns what it is given, and the SOS flag is the call's own. */
const withSos = (route: SipRoute, sos: boolean): SipRoute => {
  const copy = structuredClone(route);
  if (copy.kind === 'fork') copy.sos = sos;
  return copy;
};

const hasNumber = (targets: SipTarget[], n: string) => targets.some((t) => t.kind === 'number' && t.number === n);

const peerKey = (p: SipPeer) => `${p.transport} ${p.address.replace(/^::ffff:(?=\d+\.)/i, '')} ${p.port}`;

/** Where a trunk's own requests come from: its termination URI's transport, address and port. */
async function trunkPeerOf(terminationUri: string): Promise<SipPeer | null> {
  const uri = parseUri(terminationUri);
  if (!uri) return null;
  const param = (uri.params.get('transport') ?? '').toLowerCase();
  const transport = uri.scheme === 'sips' || param === 'tls' ? 'tls' : param === 'tcp' ? 'tcp' : 'udp';
  const address = await resolveHost(uri.host);
  return address ? { transport, address, port: uri.port ?? (transport === 'tls' ? 5061 : 5060) } : null;
}
