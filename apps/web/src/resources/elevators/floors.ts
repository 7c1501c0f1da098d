import { useQuery } from '@tanstack/react-query';
import { useDataProvider } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import type { FloorInfo } from './routes';

/** The floors of an elevator (`mode=access`: those a rule may grant, not public nor the panel floor). */
export function useElevatorFloors(elevatorId: unknown, mode: 'access' | 'all') {
  const dp = useDataProvider<AtriumDataProvider>();
  const id = typeof elevatorId === 'number' || (typeof elevatorId === 'string' && elevatorId !== '') ? elevatorId : null;
  return useQuery({
    queryKey: ['elevators', id, 'floors', mode],
    enabled: id !== null,
    queryFn: ({ signal }) =>
      dp
        .request<{ data: FloorInfo[] }>(`/elevators/${encodeURIComponent(String(id))}/floors`, { query: { mode }, signal })
        .then((b) => b.data),
  });
}
