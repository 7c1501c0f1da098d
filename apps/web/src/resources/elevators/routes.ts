import type { ApiRoute } from '../../app/kit/apiRoutes';

/** Elevators and their access rules search by name with `search`. */
export const ELEVATOR_ROUTES: Record<string, ApiRoute> = {
  elevators: { queryParams: ['search'] },
  'elevators/access-rules': { queryParams: ['search'] },
};

/** A floor of an elevator as `GET /elevators/{id}/floors` lists it. */
export interface FloorInfo {
  floor: number;
  name: string | null;
  is_public: boolean;
  is_panel_floor: boolean;
  apartments: string[];
}

/** How a floor reads in pickers: "3 · Lobby". */
export const floorText = (f: Pick<FloorInfo, 'floor' | 'name'>) => (f.name ? `${f.floor} · ${f.name}` : String(f.floor));
